/* coll.c — the collective engine and the `fabprobe coll` subcommand.
 *
 * For each backend, op, datatype and reduction, each size of the sweep is measured out of
 * place then in place, the same way for every op and backend:
 *   fill inputs (untimed) → warm-up iterations → wait for the device → MPI_Barrier →
 *   timer → iters back-to-back operations → timer (device work included)
 * then, if checking, a separate run on fresh inputs (a new seed) is checked element by element.
 * Each rank's mean time per op, wrong count and first wrong element are gathered to rank 0,
 * which writes one collectives.csv row per mode (flushed) and one terminal line per size.
 * Nothing is allocated or checked inside the timed loop. A backend error aborts the job
 * (exit 3): the other ranks would otherwise wait in a collective forever. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll.h"
#include "core/csv.h"
#include "core/mpi_util.h"
#include "core/results.h"
#include "core/run.h"
#include "core/world.h"

extern char **environ;

struct coll_run {
	const struct coll_opts *o;
	const struct world *w;
	const char *run_id, *dir;  /* rank 0 */
	FILE *csv;                 /* collectives.csv, rank 0 */
	uint32_t seed;             /* advanced for every fill: fresh inputs each time */
	int wrong_rows;            /* rows with a wrong element (rank 0) */
};

/* One rank's view of one case; travels to rank 0 as bytes. */
struct coll_rank_res {
	double t_s;                /* mean seconds per op */
	struct coll_check chk;
};

static void fatal(const char *what)
{
	LOG_ERROR("%s failed: aborting the job (rows written so far are kept)", what);
	MPI_Abort(MPI_COMM_WORLD, FP_EXIT_RUNTIME);
}

/* ---------------------------------------------------------------- one case */

static int time_case(struct coll_run *run, const struct coll_backend *be, void *ctx,
		     const struct coll_case *c, double *t_s)
{
	coll_run_fn op = be->run[c->op->id];
	double s;

	if (be->fill(ctx, c, ++run->seed))
		return FP_ERUNTIME;
	for (long i = 0; i < run->o->warmup; i++)
		if (op(ctx, c))
			return FP_ERUNTIME;
	if (be->sync && be->sync(ctx))
		return FP_ERUNTIME;
	CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
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

/* Every rank: measure (or not) the case; rank 0 gets the merged row. prime: the first size
 * of a sweep, measured once untimed first (the first use of an op reads 1.5-2x slow). */
static void case_run(struct coll_run *run, const struct coll_backend *be, void *ctx,
		     const struct coll_case *c, int prime, struct coll_row *row,
		     struct coll_rank_res *all)
{
	struct coll_rank_res mine = { .t_s = NAN, .chk = { .wrong = -1, .first = -1 } };
	int n = c->nranks;

	row->status = COLL_UNSUPPORTED;
	row->time_us = row->time_us_max = row->algbw = row->busbw = NAN;
	row->wrong = -1;
	if (be->unsupported(c) || !be->run[c->op->id])
		return; /* the same answer on every rank: nobody measures */
	if (prime && time_case(run, be, ctx, c, &mine.t_s))
		fatal("warming up");
	if (time_case(run, be, ctx, c, &mine.t_s))
		fatal("timing");
	if (run->o->check && check_case(run, be, ctx, c, &mine.chk))
		fatal("checking");
	if (MPI_Gather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE, 0, MPI_COMM_WORLD))
		fatal("MPI_Gather");
	if (c->rank != 0)
		return;
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

/* rank 0: name the first wrong element of a row */
static void wrong_report(const struct coll_row *row, const struct coll_rank_res *all)
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

/* ---------------------------------------------------------------- a sweep */

static double sweep_size(struct coll_run *run, const struct coll_backend *be, void *ctx,
			 struct coll_case *c, uint64_t size_B, int prime, struct coll_rank_res *all,
			 int *nbw)
{
	struct coll_case cases[2] = { *c, *c };
	struct coll_row rows[2];
	double bw = 0;

	for (int ip = 0; ip < 2; ip++) {
		cases[ip].in_place = ip;
		rows[ip] = (struct coll_row){ .run_id = run->run_id, .backend = be->name, .c = &cases[ip],
					      .size_B = size_B, .nnodes = run->w->nnodes };
		case_run(run, be, ctx, &cases[ip], prime, &rows[ip], all);
		if (c->rank == 0 && rows[ip].status == COLL_WRONG) {
			wrong_report(&rows[ip], all);
			run->wrong_rows++;
		}
	}
	if (c->rank != 0)
		return 0;
	for (int ip = 0; ip < 2; ip++) {
		coll_csv_row(run->csv, &rows[ip]);
		if (!isnan(rows[ip].busbw)) {
			bw += rows[ip].busbw;
			(*nbw)++;
		}
	}
	if (csv_flush(run->csv, "collectives.csv"))
		fatal("writing collectives.csv");
	coll_table_line(stdout, &rows[0], &rows[1]);
	fflush(stdout);
	return bw;
}

static void sweep_run(struct coll_run *run, const struct coll_backend *be, void *ctx, int op_id,
		      int dtype_id, int redop)
{
	const struct coll_op *op = &coll_ops[op_id];
	const struct world *w = run->w;
	struct coll_case c = { .op = op, .dtype = &coll_dtypes[dtype_id], .redop = redop,
			       .root = op->rooted ? (int)run->o->root : -1, .count = 1,
			       .rank = w->rank, .nranks = w->size };
	struct coll_rank_res *all = calloc((size_t)w->size, sizeof *all);
	const char *why = be->unsupported(&c);
	uint64_t prev = 0;
	double bw = 0;
	int nbw = 0, first = 1;

	if (!all)
		fatal("allocating the gather buffer");
	if (w->rank == 0) {
		printf("#\n# %s %s %s%s%s:", be->name, op->name, c.dtype->name, redop >= 0 ? " " : "",
		       redop >= 0 ? coll_redop_names[redop] : "");
		if (why)
			printf(" skipped: %s\n", why);
		else {
			printf(" %d ranks on %d node%s\n", w->size, w->nnodes, w->nnodes == 1 ? "" : "s");
			coll_table_header(stdout);
		}
	}
	for (int i = 0; !why && i < run->o->nsizes; i++) {
		c.count = coll_count_for(op, run->o->sizes[i], c.dtype->size, w->size);
		if (c.count == 0 || coll_size_of(op, c.count, c.dtype->size, w->size) == prev)
			continue; /* less than one element per block, or the same size again */
		prev = coll_size_of(op, c.count, c.dtype->size, w->size);
		bw += sweep_size(run, be, ctx, &c, prev, first, all, &nbw);
		first = 0;
	}
	if (w->rank == 0 && !why)
		printf("# Avg bus bandwidth    : %g\n", nbw ? bw / nbw : 0.0);
	free(all);
}

/* ---------------------------------------------------------------- backends */

/* Collective: can every rank run the backend? When not, st->why names the first rank that
 * cannot and why. */
static void backend_probe(const struct coll_backend *be, const struct coll_env *env,
			  struct coll_be_status *st)
{
	int first = INT_MAX, mine;

	st->usable = 0;
	if (be->absent) {
		snprintf(st->why, sizeof st->why, "%s", be->absent);
		return;
	}
	be->version(st->version, sizeof st->version);
	mine = be->probe(env, st->why, sizeof st->why) ? env->rank : INT_MAX;
	if (MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, env->comm))
		fatal("MPI_Allreduce");
	if (first != INT_MAX) {
		char why[sizeof st->why];

		snprintf(why, sizeof why, "rank %d: %s", first, st->why);
		if (MPI_Bcast(why, sizeof why, MPI_CHAR, first, env->comm))
			fatal("MPI_Bcast");
		memcpy(st->why, why, sizeof why);
		return;
	}
	st->usable = 1;
}

static void backend_run(struct coll_run *run, const struct coll_backend *be, const struct coll_env *env)
{
	const struct coll_opts *o = run->o;
	void *ctx = NULL;
	int rc = be->open(env, &ctx), worst = 0;

	if (MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MIN, env->comm) || worst)
		fatal(worst ? "opening the backend (see the errors above)" : "MPI_Allreduce");
	for (int i = 0; i < o->nops; i++)
		for (int d = 0; d < o->ndtypes; d++) {
			if (!coll_ops[o->ops[i]].reduces) {
				sweep_run(run, be, ctx, o->ops[i], o->dtypes[d], COLL_NOREDOP);
				continue;
			}
			for (int k = 0; k < o->nredops; k++)
				sweep_run(run, be, ctx, o->ops[i], o->dtypes[d], o->redops[k]);
		}
	be->close(ctx);
}

/* rank 0: coll_meta.json, written before measuring so that a crash keeps it */
static void meta_write(struct coll_run *run, const struct coll_be_status *st, int nst)
{
	FILE *f = results_tmp_open(run->dir, "coll_meta.json");

	if (!f)
		fatal("writing coll_meta.json");
	coll_meta_write(f, run->o, st, nst, run->w->size, run->w->nnodes, environ);
	if (results_tmp_commit(f, run->dir, "coll_meta.json"))
		fatal("writing coll_meta.json");
}

/* Every selected backend in registry order; returns 0, or 1 when a result was wrong. */
static int coll_main(struct coll_run *run)
{
	const struct world *w = run->w;
	struct coll_env env = { .comm = MPI_COMM_WORLD, .rank = w->rank, .nranks = w->size,
				.max_bytes = run->o->maxbytes };
	struct coll_be_status st[8] = { 0 };
	int nst = 0, wrong = 0;

	for (int i = 0; coll_backends[i] && nst < 8; i++, nst++) {
		const struct coll_backend *be = coll_backends[i];

		st[nst].name = be->name;
		st[nst].selected = !strcmp(be->name, "mpi") ? run->o->backends & COLL_BE_MPI
							    : run->o->backends & COLL_BE_NCCL;
		if (st[nst].selected)
			backend_probe(be, &env, &st[nst]);
		if (w->rank == 0 && st[nst].selected && !st[nst].usable)
			printf("coll %s: skipped: %s\n", be->name, st[nst].why);
	}
	if (w->rank == 0) {
		meta_write(run, st, nst);
		printf("# fabprobe coll: %d ranks on %d node%s, iters %ld, warm-up %ld, check %s\n",
		       w->size, w->nnodes, w->nnodes == 1 ? "" : "s", run->o->iters, run->o->warmup,
		       run->o->check ? "on" : "off");
		fflush(stdout);
	}
	for (int i = 0; i < nst; i++)
		if (st[i].usable) {
			if (w->rank == 0)
				printf("#\n# backend %s: %s\n", st[i].name, st[i].version);
			backend_run(run, coll_backends[i], &env);
		}
	if (w->rank == 0)
		wrong = run->wrong_rows > 0;
	return wrong;
}

/* ---------------------------------------------------------------- the subcommand */

/* Options that depend on the number of ranks: the same verdict on every rank. */
static int opts_check_ranks(const struct coll_opts *o, const struct world *w)
{
	const char *bad = o->root >= w->size ? "-r/--root" :
			  o->test_corrupt_rank >= w->size ? "--test-corrupt" : NULL;

	if (bad && w->rank == 0)
		fprintf(stderr, "fabprobe coll: %s: rank %ld does not exist (%d ranks)\n", bad,
			bad[1] == 'r' ? o->root : o->test_corrupt_rank, w->size);
	if (bad) /* nobody exits before rank 0 has printed: the launcher would kill it */
		MPI_Barrier(MPI_COMM_WORLD);
	return bad ? FP_EUSAGE : 0;
}

int coll_check(struct world *w, void *arg)
{
	return opts_check_ranks(arg, w);
}

int coll_stage(struct world *w, struct run_out *ro, void *arg)
{
	struct coll_run run = { .o = arg, .w = w, .run_id = ro->run_id, .dir = ro->dir };
	int rc;

	if (w->rank == 0) {
		if (!(run.csv = results_open(ro->dir, "collectives.csv")))
			fatal("creating collectives.csv");
		coll_csv_header(run.csv);
	}
	rc = coll_main(&run) ? 1 : 0;
	if (run.csv && results_close(run.csv, ro->dir, "collectives.csv") && rc == 0)
		rc = FP_ERUNTIME;
	return rc;
}

