/* cmd.h — the command layer: the subcommands, and what they share. Only this layer (and
 * main) decides a process exit code; everything below returns FP_E* codes (core/log.h). */
#ifndef FP_CMD_H
#define FP_CMD_H

#include <stdio.h>

#include "coll/coll.h"
#include "core/results.h"
#include "fabric/emit/emit.h"
#include "inventory/inv_stage.h"
#include "run/checks.h"
#include "p2p/p2p.h"

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
/* A measuring subcommand: its usage, an optional check of the options once the ranks are
 * known, and its body (core/run.h's run_command). */
struct cmd_stage {
	const char *name;
	void (*usage)(FILE *f);
	int (*check)(struct world *w, void *opts);
	int (*body)(struct world *w, struct run_out *ro, void *opts);
};

/* The measuring subcommands' one skeleton, after their parser returned parse_rc (0, 1 for
 * --help, FP_EUSAGE with err): --help prints the usage (exit 0); a usage error is said before
 * MPI_Init (exit 2); otherwise the stage runs under run_command. Returns the exit code. */
int cmd_measure(const struct cmd_stage *s, int argc, char **argv, int parse_rc, const char *err,
		const struct results_where *where, int progress, void *opts);

/* `fabprobe run`: the options of every stage. */
struct run_opts {
	struct p2p_opts p2p;
	struct inv_opts inv;
	struct coll_opts coll;
	long slots;                  /* ranks per node in host files; 0 = as in this job */
	const char *label_prefix;    /* Kubernetes label prefix */
	uint64_t coll_max;           /* largest all-reduce of the collectives stage */
	int no_inventory, no_coll;   /* leave a stage out */
	double confirm_time;         /* the confirmation pass: at most this long (s) */
	long confirm_factor;         /* …with this many times the samples and windows */
	int no_confirm;
	struct checks_opts checks;    /* --baseline, --expect, --accept, --declared */
};
/* p2p's options with run's; the other stages' defaults. As p2p_opts_parse. */
int run_opts_parse(int argc, char **argv, struct run_opts *o, char *err);

#endif
