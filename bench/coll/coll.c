/* coll.c — the collective engine and its stage (coll_stage; the subcommand is bench/cmd/coll.c).
 *
 * For each backend, op, datatype and reduction, each size of the sweep is measured out of
 * place then in place, the same way for every op and backend:
 *   fill inputs (untimed) → warm-up iterations → wait for the device → MPI_Barrier →
 *   timer → iters back-to-back operations → timer (device work included)
 * then, if checking, a separate run on fresh inputs (a new seed) is checked element by element.
 * Each rank's mean time per op, wrong count and first wrong element are gathered to rank 0,
 * which writes one collectives.csv row per mode (flushed) and one terminal line per size.
 * Nothing is allocated or checked inside the timed loop.
 *
 * Errors come back as FP_E* codes (core/log.h). What only rank 0 does (its files) is agreed
 * with a broadcast, so every rank stops at the same point; a backend call that fails returns
 * on its own rank at once, while the others may be waiting in that collective (coll.h). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll_backend.h"
#include "coll_int.h"
#include "coll_report.h"
#include "core/csv.h"
#include "core/escape.h"
#include "core/watchdog.h"
#include "core/mpi_util.h"
#include "core/results.h"
#include "core/run.h"
#include "core/world.h"
#include "p2p/transport.h"

extern char **environ;

/* Rank 0's verdict on what only it did (a file written), given to every rank of comm: 0 or rc. */
static int agree_root(int rc, MPI_Comm comm)
{
	CHECK_MPI(MPI_Bcast(&rc, 1, MPI_INT, 0, comm));
	return rc;
}

/* ---------------------------------------------------------------- a sweep */

/* rank 0: the two rows of one size into collectives.csv and the table; adds their busbw */
static int size_write(struct coll_run *run, const struct coll_row *rows, double *bw, int *nbw)
{
	struct results_teebuf tee;
	FILE *t = results_tee_open(run->tee, &tee); /* the same rows for the run's own model */

	if (t)
		coll_csv_header(t);
	for (int ip = 0; ip < 2; ip++) {
		coll_csv_row(run->csv, &rows[ip]);
		if (t)
			coll_csv_row(t, &rows[ip]);
		if (!isnan(rows[ip].busbw)) {
			*bw += rows[ip].busbw;
			(*nbw)++;
		}
	}
	results_tee_done(run->tee, &tee, "collectives.csv");
	if (csv_flush(run->csv, "collectives.csv"))
		return FP_ERUNTIME;
	coll_table_line(stdout, &rows[0], &rows[1]);
	fflush(stdout);
	return 0;
}

/* rank 0: the largest size so far of a sweep, for the line-rate verdict */
static void last_size_note(struct coll_run *run, const struct coll_row *rows)
{
	run->last_size = rows[0].size_B;
	run->last_busbw = fmax(rows[0].busbw, rows[1].busbw); /* the better mode: NAN-safe */
}

/* One size, out of place then in place. */
static int sweep_size(struct coll_run *run, const struct coll_backend *be, void *ctx,
		      struct coll_case *c, uint64_t size_B, int prime, double *bw, int *nbw)
{
	struct coll_case cases[2] = { *c, *c };
	struct coll_row rows[2];
	int rc = 0;

	for (int ip = 0; ip < 2; ip++) {
		cases[ip].in_place = ip;
		rows[ip] = (struct coll_row){ .run_id = run->run_id, .backend = be->name, .c = &cases[ip],
					      .size_B = size_B, .nnodes = run->w->nnodes,
					      .path = run->path, .line_rate_Gbps = run->rate,
					      .carried_by = run->carried[0] ? run->carried : NULL };
		if ((rc = coll_case_run(run, be, ctx, &cases[ip], prime, &rows[ip])))
			return rc;
		if (c->rank == 0 && rows[ip].wrong > 0)
			run->sweep_wrong += rows[ip].wrong;
		if (c->rank == 0 && rows[ip].status == COLL_WRONG) {
			coll_wrong_report(&rows[ip], run->all);
			run->wrong_rows++;
		}
	}
	if (c->rank == 0) {
		rc = size_write(run, rows, bw, nbw);
		last_size_note(run, rows);
	}
	return agree_root(rc, run->env->comm);
}

/* rank 0: the heading of a sweep */
static void sweep_heading(const struct coll_run *run, const struct coll_backend *be, const struct coll_case *c,
			  const char *why)
{
	printf("#\n# %s%s%s %s %s%s%s:", be->name, be->per_path ? " over " : "", be->per_path ? run->path : "",
	       c->op->name, c->dtype->name, c->redop >= 0 ? " " : "", c->redop >= 0 ? coll_redop_names[c->redop] : "");
	if (why) {
		printf(" skipped: %s\n", why);
		return;
	}
	printf(" %d ranks on %d node%s", c->nranks, run->w->nnodes, run->w->nnodes == 1 ? "" : "s");
	if (!isnan(run->rate))
		printf(", line rate %.1f Gbit/s (the slowest port)", run->rate);
	putchar('\n');
	coll_table_header(stdout);
}

/* rank 0: an all-reduce of a path with a known line rate, at its largest size, below
 * --min-pct: said, and counted for the verdict (1); else 0. A ring whose transport says its
 * exchange is capped below line rate (transport_ops.exchange_capped: verbs) is said, not
 * judged: the pairs and NCCL's figures judge that port. */
static int line_rate_judge(struct coll_run *run, const struct coll_backend *be, const struct coll_case *c)
{
	double pct = coll_pct_line_rate(run->last_busbw, run->rate);
	const struct transport_ops *t = be->per_path && run->path ? transport_find(run->path) : NULL;

	if (run->o->min_pct > 0 && c->op->id == COLL_ALLREDUCE && run->last_size && t && t->exchange_capped) {
		printf("coll %s over %s: all-reduce busbw %.3f GB/s not judged against --min-pct: %s\n", be->name,
		       run->path, run->last_busbw, t->exchange_capped);
		return 0;
	}

	if (run->sum && run->o->min_pct > 0 && c->op->id == COLL_ALLREDUCE && run->last_size) {
		if (isnan(pct)) /* nothing to judge against: said by the verdict, never a pass */
			run->sum->nunrated++;
		else
			run->sum->nrated++;
	}
	if (run->o->min_pct <= 0 || c->op->id != COLL_ALLREDUCE || !run->last_size || !(pct < run->o->min_pct))
		return 0; /* (an unknown rate gives NAN: never below) */
	printf("coll %s over %s: all-reduce busbw %.3f GB/s at %llu B is %.1f %% of the %.1f Gbit/s line rate, "
	       "below --min-pct %g\n", be->name, run->path, run->last_busbw, (unsigned long long)run->last_size, pct,
	       run->rate, run->o->min_pct);
	if (run->sum) {
		size_t k = strlen(run->sum->low);

		snprintf(run->sum->low + k, sizeof run->sum->low - k, "%s%s %.0f%%", k ? ", " : "", run->path, pct);
		run->sum->nlow++;
	}
	return 1;
}

/* rank 0: a sweep's largest size into the summary, with the line-rate verdict on it */
static void sweep_note(struct coll_run *run, const struct coll_backend *be, const struct coll_case *c)
{
	int low = line_rate_judge(run, be, c);
	struct coll_sweep_sum *x;

	if (!run->sum || !run->last_size || run->sum->nsweeps >= COLL_SUMMARY_SWEEPS)
		return;
	x = &run->sum->sweep[run->sum->nsweeps++];
	snprintf(x->backend, sizeof x->backend, "%s", be->name);
	snprintf(x->path, sizeof x->path, "%s", run->path);
	snprintf(x->op, sizeof x->op, "%s", c->op->name);
	snprintf(x->dtype, sizeof x->dtype, "%s", c->dtype->name);
	snprintf(x->redop, sizeof x->redop, "%s", c->redop >= 0 ? coll_redop_names[c->redop] : "");
	x->size_B = run->last_size;
	x->busbw_GBps = run->last_busbw;
	x->line_rate_Gbps = run->rate;
	x->wrong = run->sweep_wrong;
	x->below_min_pct = low;
}

static int sweep_run(struct coll_run *run, const struct coll_backend *be, void *ctx, int op_id,
		     int dtype_id, int redop)
{
	const struct coll_op *op = &coll_ops[op_id];
	const struct coll_env *env = run->env;
	struct coll_case c = { .op = op, .dtype = &coll_dtypes[dtype_id], .redop = redop,
			       .root = op->rooted ? (int)run->o->root : -1, .count = 1,
			       .rank = env->rank, .nranks = env->nranks };
	const char *why = be->unsupported(&c);
	uint64_t prev = 0;
	double bw = 0;
	int nbw = 0, first = 1, rc = 0, n = env->nranks;

	if (!why && !be->run[op_id])
		why = "not one of this backend's collectives";
	if (env->rank == 0)
		sweep_heading(run, be, &c, why);
	run->last_size = 0;
	run->sweep_wrong = 0;
	for (int i = 0; !why && rc == 0 && i < run->o->nsizes; i++) {
		c.count = coll_count_for(op, run->o->sizes[i], c.dtype->size, n);
		if (c.count == 0 || coll_size_of(op, c.count, c.dtype->size, n) == prev)
			continue; /* less than one element per block, or the same size again */
		prev = coll_size_of(op, c.count, c.dtype->size, n);
		rc = sweep_size(run, be, ctx, &c, prev, first, &bw, &nbw);
		first = 0;
	}
	if (env->rank == 0 && !why && rc == 0) {
		printf("# Avg bus bandwidth    : %g\n", nbw ? bw / nbw : 0.0);
		sweep_note(run, be, &c);
	}
	return rc;
}

/* ---------------------------------------------------------------- backends */

/* Collective: can every rank run the backend? When not, st->why names the first rank that
 * cannot and why. */
static int backend_probe(const struct coll_backend *be, const struct coll_env *env,
			 struct coll_be_status *st)
{
	int first = INT_MAX, mine;

	st->usable = 0;
	if (be->absent) {
		snprintf(st->why, sizeof st->why, "%s", be->absent);
		return 0;
	}
	be->version(st->version, sizeof st->version);
	mine = be->probe(env, st->why, sizeof st->why) ? env->rank : INT_MAX;
	CHECK_MPI(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, env->comm));
	if (first != INT_MAX) {
		char why[sizeof st->why];

		snprintf(why, sizeof why, "rank %d: %.200s", first, st->why);
		CHECK_MPI(MPI_Bcast(why, sizeof why, MPI_CHAR, first, env->comm));
		memcpy(st->why, why, sizeof why);
		return 0;
	}
	st->usable = 1;
	return 0;
}

/* Collective over env's ranks: the backend opened on every rank (0), or cannot run there (1:
 * why, the same everywhere), or failed on some rank (FP_ERUNTIME, said); closed unless 0. */
int coll_backend_open(const struct coll_backend *be, const struct coll_env *env, void **ctx, char *why, size_t len)
{
	int rc = be->open(env, ctx, why, len), worst = 0, skip = rc == 1;

	CHECK_MPI(MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MIN, env->comm));
	CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &skip, 1, MPI_INT, MPI_MAX, env->comm));
	if (worst == 0 && !skip)
		return 0;
	be->close(*ctx); /* NULL where open failed */
	*ctx = NULL;
	return worst < 0 || rc == 0 ? coll_failed(be, "opening (see the errors above)") : 1;
}

/* Every rank, once be is open: what carried its traffic (be->carried) on each rank, agreed: the
 * first rank whose transport is not the path asked for says why to rank 0, which prints it and
 * counts it (a wrong path fails the run as a wrong result does: never a PASS on another
 * fabric). 0, or FP_ERUNTIME. */
static int carried_say(struct coll_run *run, const struct coll_backend *be, void *ctx, const struct coll_env *env)
{
	const char *path = run->path && run->path[0] ? run->path : NULL; /* --path, or the per-path backend's */
	char text[COLL_CARRIED_MAX], why[COLL_CARRIED_MAX];
	int mine = be->carried(ctx, path, text, sizeof text, why, sizeof why), first = mine == 1 ? env->rank : INT_MAX;

	CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, env->comm));
	if (first != INT_MAX && first != 0) {
		if (env->rank == first)
			CHECK_MPI(MPI_Send(why, sizeof why, MPI_CHAR, 0, 0x7ca1, env->comm));
		if (env->rank == 0)
			CHECK_MPI(MPI_Recv(why, sizeof why, MPI_CHAR, first, 0x7ca1, env->comm, MPI_STATUS_IGNORE));
	}
	if (env->rank != 0)
		return 0;
	why[sizeof why - 1] = text[sizeof text - 1] = 0;
	snprintf(run->carried, sizeof run->carried, "%s%.300s", first != INT_MAX ? "WRONG PATH: " : "", text);
	escape_term_line(stdout, "# %s%s%s: carried by %s (rank 0)", be->name, path ? " over " : "", path ? path : "", text);
	if (first != INT_MAX) {
		escape_term_line(stdout, "# %s: WRONG PATH on rank %d: %s", be->name, first, why);
		run->wrong_paths++;
		if (run->sum && !run->sum->wrong_path[0])
			snprintf(run->sum->wrong_path, sizeof run->sum->wrong_path, "%s", why);
	}
	return 0;
}

/* Every op, datatype and reduction of the options through one backend (over env's ranks). */
static int backend_run(struct coll_run *run, const struct coll_backend *be, const struct coll_env *env)
{
	const struct coll_opts *o = run->o;
	void *ctx = NULL;
	char why[320] = "";
	int rc = coll_backend_open(be, env, &ctx, why, sizeof why);

	if (rc < 0)
		return rc;
	if (rc == 1) {
		if (env->rank == 0)
			printf("#\n# %s over %s: skipped: %s\n", be->name, env->path, why);
		return 0;
	}
	run->env = env;
	run->rate = be->line_rate ? be->line_rate(ctx) : NAN;
	run->carried[0] = 0;
	if (be->carried && (rc = carried_say(run, be, ctx, env)))
		goto out;
	for (int i = 0; rc == 0 && i < o->nops; i++)
		for (int d = 0; rc == 0 && d < o->ndtypes; d++) {
			if (!coll_ops[o->ops[i]].reduces) {
				rc = sweep_run(run, be, ctx, o->ops[i], o->dtypes[d], COLL_NOREDOP);
				continue;
			}
			for (int k = 0; rc == 0 && k < o->nredops; k++)
				rc = sweep_run(run, be, ctx, o->ops[i], o->dtypes[d], o->redops[k]);
		}
out:
	be->close(ctx);
	return rc;
}

/* A per-path backend over each path of the sweep (--path, or run's paths; mpi when none), on
 * one rank per node: the others wait asleep. */
static int backend_run_paths(struct coll_run *run, const struct coll_backend *be, struct coll_env env)
{
	const struct world *w = run->w;
	char port[COLL_PATH_PORTS_MAX][COLL_PATH_MAX];
	const char *one[COLL_PATH_PORTS_MAX];
	/* --path's ports, each in turn (one rail at a time), unless run gave the ring its paths */
	int np = run->o->nring_paths ? run->o->nring_paths
				     : coll_path_ports(run->o->path ? run->o->path : "mpi", port, COLL_PATH_PORTS_MAX);
	const char *const *paths = run->o->nring_paths ? run->o->ring_paths : one;
	int rc = 0;

	for (int i = 0; !run->o->nring_paths && i < np; i++)
		one[i] = port[i];

	env.comm = w->epcomm;
	env.rank = w->my_ep;
	env.nranks = w->nep;
	env.single_node = w->single_node;
	for (int i = 0; w->my_ep >= 0 && rc == 0 && i < np; i++) {
		env.path = run->path = paths[i];
		rc = backend_run(run, be, &env);
	}
	run->path = run->o->path ? run->o->path : "";
	/* the endpoints' failure is every rank's: one that failed alone ends the job (coll.h) */
	if (rc == 0 && mpi_barrier_sleepy(MPI_COMM_WORLD))
		rc = FP_ERUNTIME;
	return rc;
}

/* rank 0: coll_meta.json, written before measuring so that a crash keeps it */
static int meta_write(struct coll_run *run, const struct coll_be_status *st, int nst)
{
	struct results_file out;
	struct coll_opts o = *run->o;

	coll_path_readback(&o.env); /* what the MPI library says it took of --path's settings */
	if (results_tmp_open(&out, run->dir, "coll_meta.json"))
		return FP_ERUNTIME;
	if (coll_meta_write(out.f, &o, st, nst, run->w->size, run->w->nnodes, environ)) {
		results_tmp_abort(&out);
		return FP_ERUNTIME;
	}
	return results_tmp_commit(&out) ? FP_ERUNTIME : 0;
}

/* Which backends run: every one of the registry that is selected, in this build, and usable
 * on every rank. Rank 0 says why the others are skipped, writes coll_meta.json and the
 * heading. Returns the number of backends in st, or FP_E*. */
static int backends_probe(struct coll_run *run, const struct coll_env *env, struct coll_be_status *st,
			  int max)
{
	const struct world *w = run->w;
	int nst = 0, rc = 0;

	for (; coll_backends[nst] && nst < max; nst++) {
		const struct coll_backend *be = coll_backends[nst];

		st[nst].name = be->name;
		st[nst].selected = !run->o->backend || !strcmp(be->name, run->o->backend);
		if (st[nst].selected && (rc = backend_probe(be, env, &st[nst])))
			return rc;
		if (w->rank == 0 && st[nst].selected && !st[nst].usable)
			printf("coll %s: skipped: %s\n", be->name, st[nst].why);
	}
	if (w->rank == 0) {
		rc = meta_write(run, st, nst);
		printf("# fabprobe coll: %d ranks on %d node%s, iters %ld, warm-up %ld, check %s\n",
		       w->size, w->nnodes, w->nnodes == 1 ? "" : "s", run->o->iters, run->o->warmup,
		       run->o->check ? "on" : "off");
		fflush(stdout);
	}
	if ((rc = agree_root(rc, MPI_COMM_WORLD)))
		LOG_ERROR("writing coll_meta.json failed");
	return rc ? rc : nst;
}

/* Every selected backend in registry order; returns 0, 1 when a result was wrong or a path
 * below --min-pct, or FP_E*. */
static int coll_sweeps(struct coll_run *run)
{
	const struct world *w = run->w;
	struct coll_env env = { .comm = MPI_COMM_WORLD, .rank = w->rank, .nranks = w->size,
				.max_bytes = run->o->maxbytes, .host = w->host, .single_node = w->nnodes == 1,
				.wait_s = run->o->wait_s, .shared_gpu = (int)run->o->shared_gpu };
	struct coll_be_status st[COLL_BACKENDS_MAX] = { 0 };
	int nst = backends_probe(run, &env, st, COLL_BACKENDS_MAX), rc = 0, over = 0;

	if (nst < 0)
		return nst;
	for (int i = 0; run->o->backend && i < nst; i++)
		if (st[i].selected && !st[i].usable) { /* asked for by name: not a silent pass */
			if (w->rank == 0)
				LOG_ERROR("--backend %s was asked for and cannot run here: %s", st[i].name, st[i].why);
			return FP_ERUNTIME;
		}
	mpi_machine_ranks(MPI_COMM_WORLD, &over);
	env.shared_core = over;
	run->env = &env;
	run->path = run->o->path ? run->o->path : "";
	run->rate = NAN;
	for (int i = 0; rc == 0 && i < nst; i++)
		if (st[i].usable) {
			if (w->rank == 0)
				printf("#\n# backend %s: %s\n", st[i].name, st[i].version);
			rc = coll_backends[i]->per_path ? backend_run_paths(run, coll_backends[i], env)
							: backend_run(run, coll_backends[i], &env);
			run->env = &env;
			run->rate = NAN;
		}
	if (rc)
		return rc;
	if (w->rank == 0 && run->sum) {
		run->sum->wrong_rows = run->wrong_rows;
		run->sum->wrong_paths = run->wrong_paths;
	}
	return w->rank == 0 && (run->wrong_rows > 0 || run->wrong_paths > 0 || (run->sum && run->sum->nlow > 0));
}

/* The sweeps under every rank's watchdog (core/watchdog.h), each step bounded by --timeout. */
static int coll_main(struct coll_run *run)
{
	int rc;

	if (run->o->wait_s > 0)
		watchdog_start(MPI_COMM_WORLD, run->w->hosts[0], sizeof run->w->hosts[0]);
	rc = coll_sweeps(run);
	watchdog_stop();
	return rc;
}

/* ---------------------------------------------------------------- the subcommand */

/* Options that depend on the number of ranks: the same verdict on every rank. */
static int opts_check_ranks(const struct coll_opts *o, const struct world *w)
{
	const char *bad = o->root >= w->size ? "-r/--root" :
			  o->test_corrupt_rank >= w->size ? "--test-corrupt" :
			  o->test_stall_rank >= w->size ? "--test-stall" : NULL;

	if (bad && w->rank == 0)
		fprintf(stderr, "fabprobe coll: %s: rank %ld does not exist (%d ranks)\n", bad,
			bad[1] == 'r' ? o->root : !strcmp(bad, "--test-corrupt") ? o->test_corrupt_rank : o->test_stall_rank,
			w->size);
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
	struct coll_summary sum;

	return coll_stage_sum(w, ro, arg, &sum);
}

int coll_stage_sum(struct world *w, struct run_out *ro, const struct coll_opts *o, struct coll_summary *sum)
{
	struct coll_run run = { .o = o, .w = w, .run_id = ro->run_id, .dir = ro->dir, .tee = &ro->tee, .sum = sum };
	int rc = 0;

	*sum = (struct coll_summary){ 0 };
	if (w->rank == 0) {
		if (!(run.all = calloc((size_t)w->size, sizeof *run.all))) {
			LOG_ERROR("out of memory for the results of %d ranks", w->size);
			rc = FP_ERUNTIME;
		} else if (!(run.csv = results_open(ro->dir, "collectives.csv"))) {
			rc = FP_ERUNTIME; /* said by results_open */
		} else {
			coll_csv_header(run.csv);
		}
	}
	if ((rc = agree_root(rc, MPI_COMM_WORLD)) == 0)
		rc = coll_main(&run);
	if (run.csv && results_close(run.csv, ro->dir, "collectives.csv") && rc == 0)
		rc = FP_ERUNTIME;
	free(run.all);
	return rc;
}
