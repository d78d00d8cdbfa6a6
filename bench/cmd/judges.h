/* judge.h — judging a run after it is measured: against a baseline run (--baseline DIR),
 * against expectations (--expect FILE, --accept), against the declared cabling (--declared
 * FILE). Shared by `run` (where suspected regressions and failures are measured again before
 * they count), `topo` and `compare` (offline). Command layer: prints, writes files. */
#ifndef FP_CMD_JUDGES_H
#define FP_CMD_JUDGES_H

#include <stdio.h>

#include "fabric/compare.h"
#include "fabric/compare_out.h"
#include "fabric/declared.h"
#include "fabric/expect.h"
#include "fabric/rundir.h"

#define JUDGES_VERDICT_MAX 256

struct judges_opts {
	const char *baseline;   /* --baseline DIR (run only) */
	const char *expect;     /* --expect FILE */
	const char *declared;   /* --declared FILE */
	int accept;             /* --accept (or --expect) */
	double tolerance_pct;   /* --tolerance PCT (0: from the noise) */
	long retests;           /* --retests N (run only): confirmation rounds */
	struct exp_set rules;   /* --expect's rules and the defaults, read once */
	struct decl decl;       /* --declared, read once (a pipe can be read only once) */
};

/* The judging options, as getopt_long entries: every one (run), or the offline three (topo).
 * Their values stand above CMD_EXT_OPT (cmd.h), so that `run` adds them to p2p's. */
enum { JUDGES_OPT_EXPECT = 0x3000, JUDGES_OPT_ACCEPT, JUDGES_OPT_DECLARED, JUDGES_OPT_BASELINE, JUDGES_OPT_TOLERANCE,
       JUDGES_OPT_RETESTS, JUDGES_OPT_END };
#define JUDGES_LONG_OPTIONS                                                                    \
	{ "expect", required_argument, NULL, JUDGES_OPT_EXPECT },                             \
	{ "accept", no_argument, NULL, JUDGES_OPT_ACCEPT },                                   \
	{ "declared", required_argument, NULL, JUDGES_OPT_DECLARED }
#define JUDGES_LONG_OPTIONS_RUN                                                                \
	JUDGES_LONG_OPTIONS, { "baseline", required_argument, NULL, JUDGES_OPT_BASELINE },     \
	{ "tolerance", required_argument, NULL, JUDGES_OPT_TOLERANCE },                       \
	{ "retests", required_argument, NULL, JUDGES_OPT_RETESTS }

void judges_opts_init(struct judges_opts *jo);
/* One judging option (opt: JUDGES_OPT_*). 0, or FP_EUSAGE with err (OPTS_ERR_MAX). */
int judges_opt(struct judges_opts *jo, int opt, const char *arg, char *err);
/* After parsing: the options agree, and the files are read (once: a pipe cannot be read
 * twice), before anything is measured. 0, or FP_EUSAGE with err naming file, line and key. */
int judges_opts_finish(struct judges_opts *jo, char *err);
void judges_usage(FILE *f, int with_baseline);
int judges_wanted(const struct judges_opts *jo);
void judges_opts_free(struct judges_opts *jo);

/* Compare cur (from cur_dir) with the run in base_dir into out (compare.csv,
 * compare_topology.csv) and print the summary. Returns 0, 1 when anything is worse or gone,
 * FP_EUSAGE (a bad baseline, said on stderr) or FP_ERUNTIME. */
int judges_compare(const char *base_dir, const char *cur_dir, const struct rundir *cur, const char *out,
		  const struct cmp_opts *co, char *verdict, size_t vlen);

/* Offline (topo): judge the run loaded in cur by --expect/--accept and --declared, writing
 * into out. Returns 0, 1 for a failure, or FP_E*. verdict: one line for the summary. */
int judges_run(const struct judges_opts *jo, const struct rundir *cur, const char *out, char *verdict, size_t vlen);

/* Shared with judges_stage.c: the comparison and the acceptance into the files given (NULL:
 * none); writing one judge's files into out, its summary on stdout and a clause in verdict. */
struct acc_report;
int judges_cmp(const struct rundir *base, const struct rundir *cur, const struct cmp_opts *co, FILE *csv, FILE *map,
	      struct cmp_report *rep, struct cmp_skip *sk);
int judges_acc(const struct rundir *cur, const struct exp_set *s, FILE *csv, struct acc_report *rep);
int judges_write_compare(const char *base_dir, const struct rundir *base, const char *cur_dir, const struct rundir *cur,
			const char *out, const struct cmp_opts *co, char *verdict, size_t vlen);
int judges_write_accept(const struct rundir *cur, const struct exp_set *s, const char *out, char *verdict, size_t vlen);
int judges_write_declared(const char *file, const struct decl *d, const struct rundir *cur, const char *out,
			 char *verdict, size_t vlen);

struct world;
struct run_out;
struct p2p_opts;
struct p2p_result;
/* `run`'s latency map, drawn again (rank 0) once retests replaced suspect figures. */
struct judges_remap {
	int (*fn)(void *arg, struct world *w, struct run_out *ro, const struct p2p_result *res);
	void *arg;
};
/* `run`: collective over every rank. Rank 0 judges the results directory; candidate
 * regressions and acceptance failures are measured again (up to jo->retests rounds, a pair
 * counting only if every measurement agrees; then the latency map is drawn again through
 * remap from the best figure of each pair, as a stall during one pair could have misplaced a
 * node) before the files are written. skip (rank 0's
 * word): an earlier stage failed, judge nothing. Returns 0, 1 or FP_E* on rank 0; 0 elsewhere. */
int judges_stage(struct world *w, struct run_out *ro, const struct judges_opts *jo, const struct p2p_opts *o,
		const struct judges_remap *remap, int skip, char *verdict, size_t vlen);

#endif
