/* p2p.c — the all-pairs point-to-point engine.
 *
 * Every endpoint walks the same schedule (sched.c). A step starts with a barrier, then each
 * endpoint with a partner in that step measures its pair through the transport, then the
 * endpoints' records are gathered to rank 0, which merges the two views of each direction,
 * appends the rows to p2p.csv and flushes, and fills the path's matrices (handed to the caller,
 * which writes them in the order it chooses). Waiting ranks sleep-poll (mpi_wait_sleepy). Each
 * pair has an absolute deadline; a pair that misses it is recorded as a timeout and the run
 * goes on. Nothing here ends the job: failures are agreed at each step and returned. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/csv.h"
#include "core/interrupt.h"
#include "core/mpi_util.h"
#include "core/natsort.h"
#include "core/results.h"
#include "core/run.h"
#include "core/stats.h"
#include "core/world.h"
#include "fabric/p2p_csv.h"
#include "p2p.h"
#include "sched.h"

struct p2p_run {
	const struct p2p_opts *o;
	struct world *w;
	struct run_out *out;     /* the results directory */
	FILE *csv;               /* rank 0: p2p.csv, rows streamed as each step ends */
	double timeout;          /* seconds per pair */
	int nrec;                /* records per endpoint per step: 2 directions x sizes */
	struct p2p_rec *mine;    /* nrec */
	struct p2p_rec *all;     /* nep x nrec, rank 0 */
	double *samples;         /* lat_iters */
	int stall_pending;       /* test-only stall not yet done */
	int failed;              /* directions that failed, all paths */
	struct p2p_result *res;  /* rank 0: every path's matrices, or NULL */
	const char *csv_name;    /* "p2p.csv", or the retests' file */
	int retest;              /* measuring chosen pairs again: rows only, no summary */
};

/* ---------------------------------------------------------------- estimates */

double p2p_pair_estimate(const struct p2p_opts *o, double lat_us, double GBps)
{
	double t = 0;

	for (int i = 0; i < o->nsizes; i++) {
		const struct p2p_size *z = &o->sizes[i];
		double wire = (double)z->bytes / (GBps * 1e9);

		if (z->lat)
			t += (double)(o->lat_iters + o->lat_warmup) * 2 * (lat_us * 1e-6 + wire);
		if (z->bw)
			t += (double)(o->bw_iters + o->bw_warmup) * ((double)o->window * wire + 2 * lat_us * 1e-6);
	}
	return 2 * t; /* both directions */
}

double p2p_default_timeout(const struct p2p_opts *o)
{
	double t = 10 + 3 * p2p_pair_estimate(o, 100, 0.125);

	return t < P2P_DEADLINE_MAX ? t : P2P_DEADLINE_MAX;
}

/* ---------------------------------------------------------------- measuring one pair */

static int lat_measure(const struct transport_ops *tr, struct tr_conn *c, int initiator, size_t size,
		       const struct p2p_opts *o, double deadline, double *samples, struct p2p_rec *rec)
{
	struct stats st;
	double t = 0;
	int rc;

	for (long i = -o->lat_warmup; i < o->lat_iters; i++) {
		if (!initiator) {
			if ((rc = tr->echo(c, size, deadline)))
				return rc;
			continue;
		}
		if (i == 0)
			t = clock_now();
		if ((rc = tr->roundtrip(c, size, deadline)))
			return rc;
		if (i >= 0) {
			double now = clock_now();

			samples[i] = (now - t) * 0.5e6; /* half round trip, µs */
			t = now;
		}
	}
	if (initiator) {
		stats_compute(samples, (int)o->lat_iters, &st);
		rec->lat_iters = o->lat_iters;
		rec->lat_min = st.min;
		rec->lat_avg = st.avg;
		rec->lat_p50 = st.p50;
		rec->lat_p99 = st.p99;
	}
	return 0;
}

static int bw_measure(const struct transport_ops *tr, struct tr_conn *c, int sender, size_t size,
		      const struct p2p_opts *o, double deadline, struct p2p_rec *rec)
{
	double t0 = 0;
	int rc, win = (int)o->window;

	for (long i = -o->bw_warmup; i < o->bw_iters; i++) {
		if (i == 0)
			t0 = clock_now();
		rc = sender ? tr->stream_send(c, size, win, deadline) : tr->stream_recv(c, size, win, deadline);
		if (rc)
			return rc;
	}
	if (sender) {
		rec->bw_iters = o->bw_iters;
		rec->bw_GBps = (double)size * (double)win * (double)o->bw_iters / (clock_now() - t0) / 1e9;
	}
	return 0;
}

static void rec_init(struct p2p_rec *r, int src, int dst, int size_idx)
{
	*r = (struct p2p_rec){ .src = src, .dst = dst, .size_idx = size_idx, .status = P2P_OK,
			       .lat_iters = -1, .bw_iters = -1, .lat_min = NAN, .lat_avg = NAN,
			       .lat_p50 = NAN, .lat_p99 = NAN, .bw_GBps = NAN };
}

/* Both directions of the pair (me, peer), every size; fills run->mine. */
static void pair_run(struct p2p_run *run, const struct transport_ops *tr, void *ctx,
		     const struct tr_port *ports, int peer, unsigned seq)
{
	const struct p2p_opts *o = run->o;
	int me = run->w->my_ep, lo = me < peer ? me : peer, hi = me < peer ? peer : me;
	double deadline = clock_now() + run->timeout;
	struct tr_conn *c = NULL;
	int status = P2P_OK;
	char why[TR_WHY_MAX] = "";

	for (int d = 0; d < 2; d++)
		for (int s = 0; s < o->nsizes; s++)
			rec_init(&run->mine[d * o->nsizes + s], d ? hi : lo, d ? lo : hi, s);
	if (run->stall_pending) {
		run->stall_pending = 0;
		clock_sleep_us((long)((run->timeout * 1.5 + 0.5) * 1e6));
	}
	if (!ports[me].usable || !ports[peer].usable) {
		status = P2P_SKIPPED;
		snprintf(why, sizeof why, "%s", ports[me].usable ? ports[peer].why : ports[me].why);
	} else {
		int rc = tr->connect(ctx, peer, seq, deadline, &c, why);

		if (rc)
			status = rc == FP_ETIMEDOUT ? P2P_TIMEOUT : P2P_ERROR;
	}
	for (int d = 0; d < 2; d++) {
		int src = d ? hi : lo;

		for (int s = 0; s < o->nsizes; s++) {
			struct p2p_rec *r = &run->mine[d * o->nsizes + s];
			const struct p2p_size *z = &o->sizes[s];
			int rc = 0;

			if (status != P2P_OK) {
				r->status = status;
				snprintf(r->why, sizeof r->why, "%s", why);
				continue;
			}
			if (z->lat)
				rc = lat_measure(tr, c, src == me, z->bytes, o, deadline, run->samples, r);
			if (!rc && z->bw)
				rc = bw_measure(tr, c, src == me, z->bytes, o, deadline, r);
			if (rc) {
				status = rc == FP_ETIMEDOUT ? P2P_TIMEOUT : P2P_ERROR;
				if (rc == FP_ETIMEDOUT)
					snprintf(why, sizeof why, "%.200s (pair deadline %.1f s)", c->why,
						 run->timeout);
				else
					snprintf(why, sizeof why, "%s", c->why);
				r->status = status;
				snprintf(r->why, sizeof r->why, "%s", why);
				/* the rest of this pair is not run: say why each row is empty */
				snprintf(why, sizeof why, "not run: this pair stopped at %llu B (%s)",
					 (unsigned long long)z->bytes, p2p_status_name(status));
			}
		}
	}
	if (c)
		tr->disconnect(c);
}

/* ---------------------------------------------------------------- one path */

/* Every endpoint says how it stands (0 or a negative FP_E*) and learns the worst, waiting
 * asleep. The deadline is far beyond any pair, so that it fires only when an endpoint is truly
 * hung: then FP_ETIMEDOUT, and the rows written so far are all kept. */
static int agree(struct p2p_run *run, int rc, const char *where)
{
	MPI_Request req;
	double limit = 3 * run->timeout + 30;
	int wrc;

	if (rc == 0 && interrupt_pending())
		rc = FP_EINTR; /* SIGINT/SIGTERM: every endpoint stops here, the rows so far are whole */
	wrc = MPI_RC(MPI_Iallreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, run->w->epcomm, &req));

	if (wrc == 0 && (wrc = mpi_wait_sleepy(&req, clock_now() + limit)) == FP_ETIMEDOUT)
		LOG_ERROR("%s: other endpoints did not arrive within %.0f s: an endpoint is hung "
			  "(rows measured so far are in p2p.csv)", where, limit);
	return wrc ? wrc : rc;
}

static void progress_print(struct p2p_run *run, const char *path, int step, int nsteps, int pairs_done,
			   int npairs, double t0)
{
	double el = clock_now() - t0;

	fprintf(stderr, "\r  %s: step %d/%d  pairs %d/%d  failed %d  elapsed %.1f s  left ~%.0f s   ",
		path, step, nsteps, pairs_done, npairs, run->failed, el,
		step ? el / step * (nsteps - step) : 0.0);
	if (step == nsteps)
		fputc('\n', stderr);
	fflush(stderr);
}

/* rank 0: merge the gathered records of step s, write them out, fill the matrices */
static int step_write(struct p2p_run *run, const struct p2p_path_out *po, struct p2p_matrices *m,
		      const struct sched *sc, int s)
{
	const struct p2p_opts *o = run->o;

	for (int k = sc->step_first[s]; k < sc->step_first[s + 1]; k++) {
		const struct sched_pair *p = &sc->pair[k];

		for (int d = 0; d < 2; d++) {
			int src = d ? p->b : p->a, dst = d ? p->a : p->b;

			for (int z = 0; z < o->nsizes; z++) {
				int i = d * o->nsizes + z;
				struct p2p_rec r;

				p2p_rec_merge(&run->all[src * run->nrec + i], &run->all[dst * run->nrec + i],
					      po->labels[src], po->labels[dst], &r);
				p2p_csv_row(run->csv, po, &r);
				p2p_matrices_add(m, o, &r);
				if (z == o->nsizes - 1 && r.status != P2P_OK)
					run->failed++;
			}
		}
	}
	return csv_flush(run->csv, run->csv_name);
}

/* rank 0: the estimate on the terminal */
static void path_announce(struct p2p_run *run, const char *path, const struct tr_port *ports,
			  const struct sched *sc)
{
	struct world *w = run->w;
	double est = p2p_pair_estimate(run->o, 20, 1.25);
	int e = 0;

	printf("p2p %s: %d endpoints on %d node%s, %d pairs in %d steps (both directions each)\n"
	       "  estimate ~%.0f s at 20 us and 1.25 GB/s (10 Gbit/s); pair deadline %.1f s\n",
	       path, w->nep, w->nnodes, w->nnodes == 1 ? "" : "s", sc->npairs, sc->nsteps,
	       est * sc->nsteps, run->timeout); /* pairs of a step run side by side */
	/* a path that no endpoint has (a typo, a driver not loaded): say so once, up front; its
	 * rows are all skipped and the run exits 1, as asked-for measurements are missing */
	while (e < w->nep && !ports[e].usable)
		e++;
	if (e == w->nep)
		printf("  %s is usable on no endpoint, every pair is skipped: %s\n", path, ports[0].why);
	fflush(stdout);
}

/* A schedule of the given pairs, one a step. */
static int sched_of(int n, const struct sched_pair *only, int nonly, struct sched *sc)
{
	*sc = (struct sched){ .n = n, .nsteps = nonly, .npairs = nonly,
			      .pair = malloc(sizeof *sc->pair * (size_t)(nonly + 1)),
			      .step_first = malloc(sizeof *sc->step_first * (size_t)(nonly + 1)) };
	if (!sc->pair || !sc->step_first)
		return FP_ERUNTIME;
	for (int i = 0; i <= nonly; i++) {
		if (i < nonly)
			sc->pair[i] = only[i];
		sc->step_first[i] = i;
	}
	return 0;
}

/* rank 0: the path's summary, endpoints in natural name order */
static void path_summary(const struct p2p_run *run, const struct p2p_matrices *m, const char *const *labels)
{
	int *order = malloc(sizeof *order * (size_t)m->n);

	if (!order)
		return; /* the summary is for the eye; the files are complete */
	p2p_order_natural(m->n, labels, order);
	p2p_summary_print(stdout, m, run->o, labels, order);
	fflush(stdout);
	free(order);
}

/* Every step: agree that all is well (rank 0 reports its last write), measure this step's
 * pairs, gather the records to rank 0, which writes them. */
static int path_steps(struct p2p_run *run, const struct transport_ops *tr, void *ctx,
		      const struct tr_port *ports, const struct sched *sc, const struct p2p_path_out *po,
		      struct p2p_matrices *m)
{
	struct world *w = run->w;
	double t0 = clock_now();
	int rc = 0;

	for (int s = 0; s < sc->nsteps; s++) {
		MPI_Request req;

		if ((rc = agree(run, rc, "step start")))
			return rc;
		for (int i = 0; i < run->nrec; i++)
			rec_init(&run->mine[i], -1, -1, 0);
		for (int k = sc->step_first[s]; k < sc->step_first[s + 1]; k++) {
			const struct sched_pair *p = &sc->pair[k];

			if (p->a == w->my_ep || p->b == w->my_ep)
				pair_run(run, tr, ctx, ports, p->a == w->my_ep ? p->b : p->a, (unsigned)k);
		}
		if ((rc = MPI_RC(MPI_Igather(run->mine, run->nrec * (int)sizeof *run->mine, MPI_BYTE, run->all,
					     run->nrec * (int)sizeof *run->mine, MPI_BYTE, 0, w->epcomm, &req))))
			return rc;
		if ((rc = mpi_wait_sleepy(&req, clock_now() + 3 * run->timeout + 30)))
			return rc; /* a rank is hung: the caller ends the job */
		if (w->rank == 0) {
			rc = step_write(run, po, m, sc, s); /* logged; said at the next step */
			if (run->out->progress)
				progress_print(run, po->path, s + 1, sc->nsteps, sc->step_first[s + 1], sc->npairs, t0);
		}
	}
	return agree(run, rc, "path end");
}

/* Every pair of the path (only NULL), or the pairs in only, one at a time. */
static int path_run(struct p2p_run *run, const char *path, const struct sched_pair *only, int nonly)
{
	const struct transport_ops *tr = transport_find(path);
	const char *arg = strchr(path, ':') ? strchr(path, ':') + 1 : NULL;
	struct world *w = run->w;
	struct tr_env env = { .comm = w->epcomm, .ep = w->my_ep, .nep = w->nep, .host = w->host,
			      .single_node = w->single_node, .max_window = (int)run->o->window,
			      .fault = run->o->test_fault_rank == w->rank ? run->o->test_fault : TR_FAULT_NONE };
	struct tr_port port = { .rate_gbps = NAN }, *ports = calloc((size_t)w->nep, sizeof *ports);
	struct p2p_path_out po = { .run_id = run->out->run_id, .path = path, .nep = w->nep, .opts = run->o };
	struct p2p_matrices m = { 0 };
	struct sched sc = { 0 };
	void *ctx = NULL;
	int rc = 0;

	for (int i = 0; i < run->o->nsizes; i++)
		if (run->o->sizes[i].bytes > env.max_size)
			env.max_size = run->o->sizes[i].bytes;
	if (!ports || (only ? sched_of(w->nep, only, nonly, &sc) : sched_create(w->nep, (int)run->o->concurrency, &sc))) {
		LOG_ERROR("out of memory for %d endpoints", w->nep);
		rc = FP_ERUNTIME;
	}
	if (w->rank == 0 && rc == 0)
		rc = p2p_matrices_init(&m, path, w->nep);
	if ((rc = agree(run, rc, "path start")))
		goto out;
	if (tr->open(&env, arg, &ctx, &port)) {
		/* this endpoint cannot use the path: its pairs are skipped, the others go on */
		port.usable = 0;
		snprintf(port.why, sizeof port.why, "%.60s could not open path %.60s (see its log)", w->host, path);
	}
	if ((rc = MPI_RC(MPI_Allgather(&port, sizeof port, MPI_BYTE, ports, sizeof port, MPI_BYTE, w->epcomm))))
		goto out;
	po.labels = w->labels;
	po.ports = ports;
	if (w->rank == 0 && !run->retest)
		path_announce(run, path, ports, &sc);
	else if (w->rank == 0)
		printf("p2p %s: measuring %d pair%s again, one at a time\n", path, nonly, nonly == 1 ? "" : "s");
	rc = path_steps(run, tr, ctx, ports, &sc, &po, &m);
	if (w->rank == 0 && rc == 0 && !run->retest) {
		path_summary(run, &m, w->labels);
		if (run->res) { /* the result owns them now */
			run->res->path[run->res->npaths++] = m;
			memset(&m, 0, sizeof m);
		}
	}
out:
	p2p_matrices_free(&m);
	tr->close(ctx);
	sched_destroy(&sc);
	free(ports);
	return rc;
}

/* ---------------------------------------------------------------- the subcommand */

int p2p_main(const struct p2p_opts *o, struct world *w, struct run_out *out, struct p2p_result *res)
{
	struct p2p_run run = { .o = o, .w = w, .out = out, .nrec = 2 * o->nsizes, .res = res, .csv_name = "p2p.csv" };
	int rc = 0;

	if (res)
		res->npaths = 0;
	run.timeout = o->pair_timeout > 0 ? o->pair_timeout : p2p_default_timeout(o);
	run.stall_pending = o->test_stall_rank == w->rank;
	run.mine = calloc((size_t)run.nrec, sizeof *run.mine);
	run.samples = calloc((size_t)o->lat_iters, sizeof *run.samples);
	if (w->rank == 0)
		run.all = calloc((size_t)w->nep * (size_t)run.nrec, sizeof *run.all);
	if (!run.mine || !run.samples || (w->rank == 0 && !run.all)) {
		LOG_ERROR("out of memory");
		rc = FP_ERUNTIME;
	}
	if (rc == 0 && w->rank == 0) {
		if ((run.csv = results_open(out->dir, "p2p.csv")))
			p2p_csv_header(run.csv);
		else
			rc = FP_ERUNTIME;
	}
	rc = agree(&run, rc, "start");
	for (int i = 0; rc == 0 && i < o->npaths; i++)
		rc = path_run(&run, o->paths[i], NULL, 0);
	if (run.csv && results_close(run.csv, out->dir, "p2p.csv") && rc == 0)
		rc = FP_ERUNTIME;
	free(run.mine);
	free(run.samples);
	free(run.all);
	if (rc == 0 && run.failed)
		rc = 1;
	return rc;
}

int p2p_retest(const struct p2p_opts *o, struct world *w, struct run_out *out, FILE *csv, const char *path,
	       const struct sched_pair *pairs, int npairs)
{
	struct p2p_run run = { .o = o, .w = w, .out = out, .nrec = 2 * o->nsizes, .csv = csv,
			       .csv_name = "p2p_retest.csv", .retest = 1 };
	int rc = 0;

	if (w->my_ep < 0 || npairs == 0)
		return 0;
	run.timeout = o->pair_timeout > 0 ? o->pair_timeout : p2p_default_timeout(o);
	run.mine = calloc((size_t)run.nrec, sizeof *run.mine);
	run.samples = calloc((size_t)o->lat_iters, sizeof *run.samples);
	if (w->rank == 0)
		run.all = calloc((size_t)w->nep * (size_t)run.nrec, sizeof *run.all);
	if (!run.mine || !run.samples || (w->rank == 0 && !run.all)) {
		LOG_ERROR("out of memory");
		rc = FP_ERUNTIME;
	}
	rc = agree(&run, rc, "retest start");
	if (rc == 0)
		rc = path_run(&run, path, pairs, npairs);
	free(run.mine);
	free(run.samples);
	free(run.all);
	return rc;
}
