/* checks.h — judging a run after it is measured: against a baseline run (--baseline DIR),
 * against expectations (--expect FILE, --accept), against the declared cabling (--declared
 * FILE). Shared by `run` (where suspected regressions and failures are measured again before
 * they count), `topo` and `compare` (offline). Command layer: prints, writes files. */
#ifndef FP_RUN_CHECKS_H
#define FP_RUN_CHECKS_H

#include <stdio.h>

#include "core/opts.h"
#include "fabric/judge/compare.h"
#include "fabric/judge/compare_out.h"
#include "fabric/judge/declared.h"
#include "fabric/judge/expect.h"
#include "fabric/judge/verdict.h"
#include "fabric/io/rundir.h"

struct checks_opts {
	const char *baseline;   /* --baseline DIR (run only) */
	const char *expect;     /* --expect FILE */
	const char *declared;   /* --declared FILE */
	int accept;             /* --accept (or --expect) */
	int allow_unjudged;     /* --allow-unjudged: a file rule nothing judged does not fail */
	double tolerance_pct;   /* --tolerance PCT (0: from the noise) */
	long retests;           /* --retests N (run only): confirmation rounds */
	struct exp_set rules;   /* --expect's rules and the defaults, read once */
	struct decl decl;       /* --declared, read once (a pipe can be read only once) */
	struct rundir *base;    /* run: --baseline, read once before anything is measured */
};

/* The judging options as a group of a command's parser (core/opts.h) over jo, from jo's
 * defaults: every one (run: with_baseline), or the offline three (topo). Its finish is
 * checks_opts_finish. */
struct opts_group checks_opts_group(struct checks_opts *jo, int with_baseline);
/* After parsing: the options agree, and the files are read (once: a pipe cannot be read
 * twice), before anything is measured. 0, or FP_EUSAGE with err naming file, line and key. */
int checks_opts_finish(struct checks_opts *jo, char *err);
void checks_usage(FILE *f, int with_baseline);
int checks_wanted(const struct checks_opts *jo);
void checks_opts_free(struct checks_opts *jo);

/* Offline (topo): judge the run loaded in cur by --expect/--accept and --declared, writing
 * into out. Returns 0, 1 for a failure, or FP_E*; each judge's clause into v. */
int checks_run(const struct checks_opts *jo, const struct rundir *cur, const char *out, struct verdict *v);

/* Shared with checks_stage.c: the comparison and the acceptance into the files given (NULL:
 * none); writing one judge's files into out, its summary on stdout and its clause into v. */
struct acc_report;
int checks_cmp(const struct rundir *base, const struct rundir *cur, const struct cmp_opts *co, FILE *csv, FILE *map,
	      struct cmp_report *rep, struct cmp_skip *sk);
int checks_acc(const struct rundir *cur, const struct exp_set *s, FILE *csv, struct acc_report *rep);
/* Compare cur (from cur_dir) with base (from base_dir) into out (compare.csv,
 * compare_topology.csv), print the summary and add the baseline's clause to v. Returns 0, 1
 * when anything is worse or gone, or FP_ERUNTIME. */
int checks_write_compare(const char *base_dir, const struct rundir *base, const char *cur_dir, const struct rundir *cur,
			const char *out, const struct cmp_opts *co, struct verdict *v);
/* The acceptance: failed rules fail it, and so do rules of the file that nothing in the run
 * could judge, unless allow_unjudged. */
int checks_write_accept(const struct rundir *cur, const struct exp_set *s, int allow_unjudged, const char *out,
			struct verdict *v);
int checks_write_declared(const char *file, const struct decl *d, const struct rundir *cur, const char *out,
			 struct verdict *v);

struct world;
struct run_out;
struct p2p_opts;

/* The pairs the judges may name in one run, at most: beyond that a change is plainly not noise */
#define CHECKS_SUSPECTED_MAX 64

/* `run`, rank 0, before anything is measured: --baseline read whole into jo->base, as the
 * judges will take it, so that one they would refuse (a host twice in nodes.csv, a malformed
 * p2p.csv) ends the job at once with exit 2. 0, FP_EUSAGE (said) or FP_ERUNTIME. */
int checks_base_load(struct checks_opts *jo);

/* `run`, rank 0, before the confirmation pass: the pairs the judges suspect in the run's own
 * model so far (cur: the first figures, nodes.csv's), each pair's tier from the first map (n
 * hosts, ntiers, labels[k * n + i] as topology.csv will hold them, set into cur): worse than the
 * baseline, or failing a rule. Into t as (path index into o->paths, endpoint a, endpoint b),
 * a < b; returns their count (at most CHECKS_SUSPECTED_MAX), FP_EUSAGE (the model does not
 * hold: said) or FP_ERUNTIME. The confirmation pass measures them with its own candidates, once. */
int checks_suspected(const struct checks_opts *jo, const struct p2p_opts *o, const struct world *w,
		     struct rundir *cur, int ntiers, const char *const *labels, int *t);
/* `run`'s last stage, collective over every rank: rank 0 judges the run's own model cur, whose
 * figures the confirmation pass measured again where anything was suspected (a pair counts on
 * its best figure), and writes the judges' files into the results directory. skip (rank 0's
 * word): an earlier stage failed, judge nothing. Returns 0, 1 or FP_E* on rank 0; 0 elsewhere. */
int checks_stage(struct world *w, struct run_out *ro, const struct checks_opts *jo, int skip, struct rundir *cur,
		 struct verdict *v);

#endif
