/* run.h — one run's results directory and its metadata, shared by every subcommand that
 * measures. Only rank 0 holds open files; the calls below are collective over
 * MPI_COMM_WORLD so that every rank agrees on success and on the exit code. */
#ifndef FP_RUN_H
#define FP_RUN_H

#include <stdio.h>
#include <time.h>

#include "jw.h"
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
	char *meta_head, *meta_tail; /* rank 0: meta.json around its status lines */
	struct jw meta_extra;  /* rank 0: the stages' own members of meta.json (a members
				* fragment of the one JSON writer: jw_kobject(&ro->meta_extra, …)) */
	struct {               /* rank 0: p2p's cross-core probe (core/cpuprobe.h), when taken */
		int taken, cpu[2];
		double before_ns, after_ns; /* before the first pass, after the last; NAN unknown */
	} probe;
	struct {               /* rank 0: the p2p engine's own work in its steps, every path */
		int endpoints;
		long steps;
		double sync_s;     /* agreeing at each step's start, gathering the records to rank 0 */
		double write_s;    /* rank 0 merging the records and writing their rows */
	} engine;
	void (*after)(const char *dir); /* set by the body: rank 0 calls it once meta.json is final */
	/* rank 0, set by `run` when its judges will read the run: each writer of a results file
	 * hands the same text to this tee (core/results.h), so that the run's own model is made
	 * without reading its directory back (fabric/io/rundir.h). fn NULL: no tee. */
	struct results_tee tee;
};



/* Create the directory (rank 0) and write meta.json with status "running". Returns 0, or
 * the same FP_EUSAGE / FP_ERUNTIME on every rank after rank 0 printed why. */
int run_begin(struct run_out *ro, const struct world *w, const struct results_where *where,
	      const char *command, int argc, char **argv, int progress);
/* From here on SIGINT and SIGTERM end the run as "interrupted" (core/interrupt.h): rank 0's
 * handler rewrites meta.json at once; the engines stop at their next step boundary. */
void run_interrupts(struct run_out *ro, const struct world *w);
/* Rewrite meta.json with the exit code and end time, and agree on the exit code (rank 0's, or
 * worse on any rank; 128 + the signal when any rank was interrupted, status "interrupted").
 * Returns that exit code. */
int run_end(struct run_out *ro, const struct world *w, int exit_code);
/* Rank 0 alone, when the job cannot end together (a rank hung): meta.json says "error" (or
 * "interrupted" after a signal). */
void run_meta_abort(struct run_out *ro, const struct world *w, int exit_code);

#endif
