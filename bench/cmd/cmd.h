/* cmd.h — the command layer: the subcommands, and what they share. Only this layer (and
 * main) decides a process exit code; everything below returns FP_E* codes (core/log.h). */
#ifndef FP_CMD_H
#define FP_CMD_H

#include <stdio.h>

#include "core/results.h"
#include "fabric/emit.h"

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

/* Write topology.csv, tiers.csv, suspects.csv and (with_schedulers) every scheduler file into
 * dir. A file whose format cannot hold a host name is not written (said on stderr):
 * FP_EUSAGE after the rest. */
int topo_outputs_write(const char *dir, const struct emit_topo *t, int with_schedulers);

#endif
