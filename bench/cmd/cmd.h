/* cmd.h — the command layer: the subcommands, and what they share. Only this layer (and
 * main) decides a process exit code; everything below returns FP_E* codes (core/log.h). */
#ifndef FP_CMD_H
#define FP_CMD_H

#include <stdio.h>

/* A subcommand: registry shape (core/registry.h); main returns the process exit code. */
struct command {
	const char *name;
	const char *absent;   /* NULL, or why this version lacks it */
	const char *summary;
	int (*main)(int argc, char **argv);
};

/* The registry (fabprobe.c), NULL-terminated. */
extern const struct command *const command_registry[];

int cmd_run(int argc, char **argv);
int cmd_p2p(int argc, char **argv);
int cmd_coll(int argc, char **argv);
int cmd_inventory(int argc, char **argv);
int cmd_topo(int argc, char **argv);
int cmd_report(int argc, char **argv);

/* Rank 0, once a measuring command's results are final: write <dir>/report.html and say where;
 * a failure is a warning on stderr, never the run's exit code. */
void cmd_report_after(const char *dir);
int cmd_compare(int argc, char **argv);

struct world;
struct run_out;
struct results_where;
/* A measuring subcommand: its usage, an optional check of the options once the ranks are
 * known, and its body (core/run.h's run_command). */
struct cmd_stage {
	const char *name;
	void (*usage)(FILE *f);
	/* before MPI_Init, on every rank (NULL: none): what the libraries read once per process,
	 * such as the environment a network path needs. 0, or FP_E* (the command ends) */
	int (*prepare)(void *opts);
	int (*check)(struct world *w, void *opts);
	int (*body)(struct world *w, struct run_out *ro, void *opts);
};

/* The measuring subcommands' one skeleton, after their parser returned parse_rc (0, 1 for
 * --help, FP_EUSAGE with err): --help prints the usage (exit 0); a usage error is said before
 * MPI_Init (exit 2); otherwise the stage runs under run_command. Returns the exit code. */
int cmd_measure(const struct cmd_stage *s, int argc, char **argv, int parse_rc, const char *err,
		const struct results_where *where, int progress, void *opts);

struct run_opts;
/* Parse `fabprobe run`'s options, those of every stage of its list (run/run_stage.h). Returns
 * 0, 1 when --help was asked for, or FP_EUSAGE with a one-line reason in err. Pure. */
int run_opts_parse(int argc, char **argv, struct run_opts *o, char *err);

#endif
