/* coll_int.h — private to the collectives engine (coll.c: sweeps, backends, the stage;
 * coll_case.c: one case timed and checked, and one all-reduce on its own). */
#ifndef FP_COLL_INT_H
#define FP_COLL_INT_H

#include <stdint.h>
#include <stdio.h>

#include "coll.h"
#include "coll_backend.h"
#include "core/results.h"
#include "coll_report.h"
#include "core/world.h"

struct coll_run {
	const struct coll_opts *o;
	const struct world *w;
	const struct coll_env *env; /* the backend's ranks (a per-path one: one per node) */
	const char *path;          /* the rows' path: --path, or the per-path backend's */
	double rate;               /* the path's bottleneck (Gbit/s), NAN when unknown */
	struct coll_summary *sum;  /* rank 0: what the verdict needs, or NULL */
	uint64_t last_size;        /* rank 0: a sweep's largest size so far, and its better busbw */
	double last_busbw;
	long long sweep_wrong;     /* rank 0: wrong elements in the sweep's rows so far */
	const char *run_id, *dir;  /* rank 0 */
	const struct results_tee *tee; /* rank 0: the run's tee takes the rows too */
	FILE *csv;                 /* collectives.csv, rank 0 */
	uint32_t seed;             /* advanced for every fill: fresh inputs each time */
	int wrong_rows;            /* rows with a wrong element (rank 0) */
	int wrong_paths;           /* backends whose traffic another path carried (rank 0) */
	char carried[COLL_CARRIED_MAX]; /* rank 0: what carries the open backend's traffic ("" none said) */
	struct coll_rank_res *all; /* rank 0: every rank's result of one case */
};

/* One rank's view of one case; travels to rank 0 as bytes. */
struct coll_rank_res {
	double t_s;                /* mean seconds per op */
	struct coll_check chk;
};

/* be's what failed on this rank: said; FP_ERUNTIME. */
int coll_failed(const struct coll_backend *be, const char *what);
/* Every rank: measure (or not) the case; rank 0 gets the merged row. prime: the first size of a
 * sweep, measured once untimed first (the first use of an op reads 1.5-2x slow). Returns 0, or
 * FP_ERUNTIME on a rank whose backend failed (see coll_stage). */
int coll_case_run(struct coll_run *run, const struct coll_backend *be, void *ctx, const struct coll_case *c,
		  int prime, struct coll_row *row);
/* rank 0: name the first wrong element of a row */
void coll_wrong_report(const struct coll_row *row, const struct coll_rank_res *all);
/* Collective over env's ranks: the backend opened on every rank (0), or cannot run there (1:
 * why, the same everywhere), or failed on some rank (FP_ERUNTIME, said); closed unless 0. */
int coll_backend_open(const struct coll_backend *be, const struct coll_env *env, void **ctx, char *why, size_t len);

#endif
