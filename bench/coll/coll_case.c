/* coll_case.c — one collective case timed and checked across the ranks (coll_int.h), and one
 * all-reduce on its own (coll_allreduce_once: the order stage's). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll_backend.h"
#include "coll_int.h"
#include "coll_report.h"
#include "core/log.h"
#include "core/mpi_util.h"
#include "core/watchdog.h"

/* ---------------------------------------------------------------- one case */

int coll_failed(const struct coll_backend *be, const char *what)
{
	LOG_ERROR("%s: %s failed (rows written so far are kept)", be->name, what);
	return FP_ERUNTIME;
}

/* the watchdog's step: this case's step, bounded by --timeout */
static void arm(const struct coll_run *run, const struct coll_backend *be, const struct coll_case *c, const char *step)
{
	char what[160];

	snprintf(what, sizeof what, "%s %s %s count %llu: %s", be->name, c->op->name, c->dtype->name,
		 (unsigned long long)c->count, step);
	watchdog_arm(run->o->wait_s, what);
}

static int time_case(struct coll_run *run, const struct coll_backend *be, void *ctx,
		     const struct coll_case *c, double *t_s)
{
	coll_run_fn op = be->run[c->op->id];
	double s;

	arm(run, be, c, "warm-up");
	if (be->fill(ctx, c, ++run->seed))
		return FP_ERUNTIME;
	for (long i = 0; i < run->o->warmup; i++)
		if (op(ctx, c))
			return FP_ERUNTIME;
	if (be->sync && be->sync(ctx))
		return FP_ERUNTIME;
	arm(run, be, c, "the barrier before timing");
	CHECK_MPI(MPI_Barrier(run->env->comm));
	if (run->o->test_stall_rank >= 0 && run->w && run->o->test_stall_rank == run->w->rank) { /* a hung node (tests) */
		fprintf(stderr, "fabprobe coll: --test-stall: rank %d stops here\n", run->w->rank);
		for (;;)
			pause();
	}
	arm(run, be, c, "timed");
	if (be->timer_start(ctx))
		return FP_ERUNTIME;
	for (long i = 0; i < run->o->iters; i++)
		if (op(ctx, c))
			return FP_ERUNTIME;
	if (be->timer_stop(ctx, &s))
		return FP_ERUNTIME;
	*t_s = s / (double)run->o->iters;
	return 0;
}

/* A separate, untimed run on fresh inputs, checked against coll_math.h. */
static int check_case(struct coll_run *run, const struct coll_backend *be, void *ctx,
		      const struct coll_case *c, struct coll_check *chk)
{
	uint32_t seed = ++run->seed;
	struct coll_layout l;

	if (be->fill(ctx, c, seed) || be->run[c->op->id](ctx, c) || (be->sync && be->sync(ctx)))
		return FP_ERUNTIME;
	coll_layout_get(c, be->quirks, &l);
	if (run->o->test_corrupt_rank == c->rank && l.out_elems > 0 && be->corrupt(ctx, c, l.out_elems / 2))
		return FP_ERUNTIME;
	return be->check(ctx, c, seed, chk);
}

/* rank 0: the row from every rank's result */
static void row_merge(struct coll_run *run, const struct coll_case *c, struct coll_row *row)
{
	const struct coll_rank_res *all = run->all;
	int n = c->nranks;

	row->status = COLL_OK;
	row->time_us = row->time_us_max = 0;
	for (int r = 0; r < n; r++) {
		row->time_us += all[r].t_s * 1e6 / n;
		row->time_us_max = fmax(row->time_us_max, all[r].t_s * 1e6);
	}
	coll_bandwidth(c->op, row->size_B, row->time_us, n, &row->algbw, &row->busbw);
	if (!run->o->check)
		return;
	row->wrong = 0;
	for (int r = 0; r < n; r++)
		row->wrong += all[r].chk.wrong;
	if (row->wrong)
		row->status = COLL_WRONG;
}

/* Every rank: measure (or not) the case; rank 0 gets the merged row. prime: the first size
 * of a sweep, measured once untimed first (the first use of an op reads 1.5-2x slow).
 * Returns 0, or FP_ERUNTIME on a rank whose backend failed (see coll_stage). */
int coll_case_run(struct coll_run *run, const struct coll_backend *be, void *ctx,
		    const struct coll_case *c, int prime, struct coll_row *row)
{
	struct coll_rank_res mine = { .t_s = NAN, .chk = { .wrong = -1, .first = -1 } };

	row->status = COLL_UNSUPPORTED;
	row->time_us = row->time_us_max = row->algbw = row->busbw = NAN;
	row->wrong = -1;
	if (be->unsupported(c) || !be->run[c->op->id])
		return 0; /* the same answer on every rank: nobody measures */
	if (prime && time_case(run, be, ctx, c, &mine.t_s))
		return coll_failed(be, "warming up");
	if (time_case(run, be, ctx, c, &mine.t_s))
		return coll_failed(be, "timing");
	arm(run, be, c, "checking");
	if (run->o->check && check_case(run, be, ctx, c, &mine.chk))
		return coll_failed(be, "checking");
	arm(run, be, c, "gathering the results to rank 0");
	CHECK_MPI(MPI_Gather(&mine, sizeof mine, MPI_BYTE, run->all, sizeof mine, MPI_BYTE, 0,
			     run->env->comm));
	watchdog_disarm();
	if (c->rank == 0)
		row_merge(run, c, row);
	return 0;
}

/* rank 0: name the first wrong element of a row */
void coll_wrong_report(const struct coll_row *row, const struct coll_rank_res *all)
{
	const struct coll_case *c = row->c;
	int r = 0;

	while (r < c->nranks - 1 && all[r].chk.wrong == 0)
		r++;
	fprintf(stderr, "fabprobe coll: WRONG RESULT: %s %s %s%s%s, %llu B (count %llu), %s: %lld wrong "
		"element(s) over %d ranks; first on rank %d at result index %lld: got %.17g, expected %.17g\n",
		row->backend, c->op->name, c->dtype->name, c->redop >= 0 ? " " : "",
		c->redop >= 0 ? coll_redop_names[c->redop] : "", (unsigned long long)row->size_B,
		(unsigned long long)c->count, c->in_place ? "in place" : "out of place",
		(long long)row->wrong, c->nranks, r, (long long)all[r].chk.first, all[r].chk.got,
		all[r].chk.want);
}

/* ---------------------------------------------------------------- one all-reduce */

int coll_allreduce_once(const char *backend, MPI_Comm comm, const char *path, const char *host, uint64_t bytes,
			long warmup, long iters, int check, double *t_s, long long *wrong, char *why, size_t len)
{
	const struct coll_backend *be = coll_backend_find(backend);
	struct coll_opts o;
	struct coll_env env = { .comm = comm, .max_bytes = bytes, .path = path, .host = host };
	struct coll_run run = { .o = &o, .env = &env };
	struct coll_check chk = { .wrong = 0 };
	void *ctx = NULL;
	double t = NAN;
	long long bad;
	int rc;

	if (!be || be->absent) {
		snprintf(why, len, "no backend %s in this build", backend);
		return 1;
	}
	coll_opts_default(&o);
	env.wait_s = o.wait_s;
	o.warmup = warmup;
	o.iters = iters;
	CHECK_MPI(MPI_Comm_rank(comm, &env.rank));
	CHECK_MPI(MPI_Comm_size(comm, &env.nranks));
	mpi_machine_ranks(comm, &env.shared_core);
	struct coll_case c = { .op = &coll_ops[COLL_ALLREDUCE], .dtype = &coll_dtypes[COLL_FLOAT], .redop = COLL_SUM,
			       .root = -1, .count = bytes / sizeof(float), .rank = env.rank, .nranks = env.nranks };

	if ((rc = coll_backend_open(be, &env, &ctx, why, len)))
		return rc;
	rc = time_case(&run, be, ctx, &c, &t) || (check && check_case(&run, be, ctx, &c, &chk)) ? coll_failed(be, "one all-reduce")
											       : 0;
	be->close(ctx);
	if (rc)
		return rc;
	bad = chk.wrong;
	CHECK_MPI(MPI_Allreduce(&t, t_s, 1, MPI_DOUBLE, MPI_MAX, comm));
	CHECK_MPI(MPI_Allreduce(&bad, wrong, 1, MPI_LONG_LONG, MPI_SUM, comm));
	return 0;
}

