/* run.h — one run's results directory and its metadata, shared by every subcommand that
 * measures. Only rank 0 holds open files; the calls below are collective over
 * MPI_COMM_WORLD so that every rank agrees on success and on the exit code. */
#ifndef FP_RUN_H
#define FP_RUN_H

#include <stdio.h>
#include <time.h>

#include "results.h"
#include "world.h"

struct run_out {
	char dir[RESULTS_PATH_MAX];
	const char *run_id;    /* the directory's last component */
	const char *command;   /* the subcommand */
	int argc;
	char **argv;
	time_t started;
	int progress;          /* print progress on stderr */
	FILE *p2p_csv;         /* streamed rows, opened by the p2p stage */
	void (*after)(const char *dir); /* set by the body: rank 0 calls it once meta.json is final */
};


/* Create the directory (rank 0) and write meta.json with status "running". Returns 0, or
 * the same FP_EUSAGE / FP_ERUNTIME on every rank after rank 0 printed why. */
int run_begin(struct run_out *ro, const struct world *w, const struct results_where *where,
	      const char *command, int argc, char **argv, int progress);
/* A measuring command from start to end: MPI up, the world; check (optional: options that
 * could only be judged once the ranks are known; FP_EUSAGE after rank 0 said why); the results
 * directory; body on every rank (it returns 0, 1 for a failed check, or a negative FP_E*); then
 * every rank waits asleep for the others, meta.json is finished and the exit code agreed.
 * Returns that code. */
int run_command(int argc, char **argv, const char *command, const struct results_where *where,
		int progress, int (*check)(struct world *w, void *arg),
		int (*body)(struct world *w, struct run_out *ro, void *arg), void *arg);

/* Close streamed files, rewrite meta.json with the exit code and end time, and agree on the
 * exit code (rank 0's, or worse on any rank). Returns that exit code. */
int run_end(struct run_out *ro, const struct world *w, int exit_code);

#endif
