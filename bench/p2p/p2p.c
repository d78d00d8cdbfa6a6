/* p2p.c — the all-pairs point-to-point engine.
 *
 * Every endpoint walks the same schedule (sched.c). A step starts with a barrier, then each
 * endpoint with a partner in that step measures its pair through the transport, then the
 * endpoints' records are gathered to rank 0, which merges the two views of each direction,
 * appends the rows to p2p.csv and flushes, and fills the path's matrices (handed to the caller,
 * which writes them in the order it chooses). Waiting ranks sleep-poll (mpi_wait_sleepy). Each
 * pair has an absolute deadline; a pair that misses it is recorded as a timeout and the run
 * goes on. Nothing here ends the job: failures are agreed at each step and returned.
 *
 * The same loop measures a plan (p2p_plan_main): chosen pairs, one per step, so that each is
 * measured alone: the confirmation pass. */
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/cpuprobe.h"
#include "core/csv.h"
#include "core/interrupt.h"
#include "core/mpi_util.h"
#include "core/natsort.h"
#include "core/results.h"
#include "core/run.h"
#include "core/stats.h"
#include "core/world.h"
#include "fabric/io/p2p_csv.h"
#include "p2p.h"
#include "fabric/plan/sched.h"
#include "node/nic_place.h"
#include "p2p_int.h"
#include "window.h"

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

/* rank 0: the merged records of step s as rows onto f; fill (once): into the matrices too */
static void step_rows(struct p2p_run *run, const struct p2p_path_out *po, struct p2p_matrices *m,
		      const struct sched *sc, int s, FILE *f, int fill)
{
	const struct p2p_opts *o = run->o;

	for (int k = sc->step_first[s]; k < sc->step_first[s + 1]; k++) {
		const struct sched_pair *p = &sc->pair[k];

		for (int d = 0; d < run->ndirs; d++) {
			int src = d ? p->b : p->a, dst = d ? p->a : p->b;

			for (int z = 0; z < o->nsizes; z++) {
				int i = d * o->nsizes + z;
				struct p2p_rec r;

				p2p_rec_merge(&run->all[src * run->nrec + i], &run->all[dst * run->nrec + i],
					      po->labels[src], po->labels[dst], &r);
				p2p_csv_row(f, po, &r);
				if (!fill)
					continue;
				p2p_matrices_add(m, o, &r);
				if (z == o->nsizes - 1 && r.status != P2P_OK)
					run->failed++;
				if (z == o->nsizes - 1 && run->step_rec)
					run->step_rec[run->nstep_rec++] = r;
			}
		}
	}
}

/* rank 0: merge the gathered records of step s, write them out, fill the matrices. With the
 * run's tee the rows are formatted once, into its text, which the file then takes (and the
 * file gets them directly should that text be lost). */
static int step_write(struct p2p_run *run, const struct p2p_path_out *po, struct p2p_matrices *m,
		      const struct sched *sc, int s)
{
	struct results_teebuf tee;
	FILE *t = results_tee_open(&run->out->tee, &tee); /* the same rows for the run's own model */
	long head = 0;

	if (t) {
		p2p_csv_header(t);
		head = ftell(t);
	}
	run->nstep_rec = 0;
	step_rows(run, po, m, sc, s, t ? t : run->csv, 1);
	if (t && fflush(t) == 0 && !ferror(t) && head >= 0 && (size_t)head <= tee.len)
		fwrite(tee.text + head, 1, tee.len - (size_t)head, run->csv);
	else if (t)
		step_rows(run, po, m, sc, s, run->csv, 0);
	results_tee_done(&run->out->tee, &tee, run->csv_name);
	return csv_flush(run->csv, run->csv_name);
}

/* rank 0: the estimate on the terminal */
static void path_announce(struct p2p_run *run, const char *path, const struct tr_port *ports,
			  const struct sched *sc, const char *what)
{
	struct world *w = run->w;
	double est = p2p_pair_estimate(run->o, 20, 1.25);
	int e = 0;

	if (what && sc->nsteps == sc->npairs)
		printf("%s %d pair%s of %s, one at a time: estimate ~%.0f s; pair deadline %.1f s\n", what,
		       sc->npairs, sc->npairs == 1 ? "" : "s", path, run->est_s > 0 ? run->est_s : est * sc->npairs,
		       run->timeout);
	else if (what)
		printf("%s %d pair%s of %s in %d steps (a step's pairs at once): estimate ~%.0f s; pair deadline %.1f s\n",
		       what, sc->npairs, sc->npairs == 1 ? "" : "s", path, sc->nsteps,
		       run->est_s > 0 ? run->est_s : est * sc->nsteps, run->timeout);
	else
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

/* An earlier latency pass over the steps of sc, in another order than the last pass's (pass p
 * of the earlier ones: reversed and rotated by (p + 1)/passes of the steps, so that no step
 * is measured twice in a row, and the path's first step, cold, is not the first again): each
 * endpoint keeps its pairs' figures; nothing is gathered or written. */
static int lat_pass(struct p2p_run *run, const struct transport_ops *tr, void *ctx,
		    const struct tr_port *ports, const struct sched *sc, int p)
{
	struct world *w = run->w;
	int rc = 0, n = sc->nsteps;

	run->lat_only = 1;
	for (int i = 0; i < n && rc == 0; i++) {
		int s = (int)(((long)n - 1 - i + (long)(p + 1) * n / run->o->lat_passes) % n);

		if ((rc = agree(run, rc, "latency pass step")))
			break;
		for (int k = sc->step_first[s]; k < sc->step_first[s + 1]; k++) {
			const struct sched_pair *q = &sc->pair[k];
			int peer = q->a == w->my_ep ? q->b : q->a;

			if (q->a != w->my_ep && q->b != w->my_ep)
				continue;
			/* a sequence number of its own per pass: a message left over from a pair that
			 * timed out never matches the same pair's next pass */
			p2p_pair_run(run, tr, ctx, ports, q->a, q->b,
				 (unsigned)((size_t)k + (size_t)(p + 1) * (size_t)sc->npairs), k - sc->step_first[s],
				 sc->step_first[s + 1] - sc->step_first[s]);
			p2p_lat_keep_best(run, peer);
		}
	}
	run->lat_only = 0;
	return rc;
}

/* An adaptive plan, every endpoint, after the last step so far: rank 0 asks the plan for one
 * more step (checked: endpoints in range, none twice) and sends it; appended to sc. Returns rc,
 * or the first failure (rank 0's plan, anyone's memory): said at the next agreement. */
static int path_adapt(struct p2p_run *run, struct sched *sc, int rc)
{
	struct world *w = run->w;
	MPI_Request req;
	int n = 0, max = w->nep / 2 + 1, wrc;

	if (w->rank == 0 && rc == 0) {
		unsigned char *seen = calloc((size_t)w->nep, 1);

		n = seen ? run->plan->adapt(run->plan->adapt_ctx, run->path_i, run->step_rec, run->nstep_rec, run->next, max)
			 : FP_ERUNTIME;
		for (int k = 0; seen && k < n; k++) {
			const struct sched_pair *p = &run->next[k];

			if (n > max || p->a < 0 || p->b < 0 || p->a >= w->nep || p->b >= w->nep || p->a == p->b ||
			    seen[p->a] || seen[p->b]) {
				LOG_ERROR("internal: the adaptive plan's next step is not disjoint pairs of endpoints");
				n = FP_ERUNTIME;
				break;
			}
			seen[p->a] = seen[p->b] = 1;
		}
		free(seen);
	}
	if ((wrc = MPI_RC(MPI_Ibcast(&n, 1, MPI_INT, 0, w->epcomm, &req))) ||
	    (wrc = mpi_wait_sleepy(&req, clock_now() + 3 * run->timeout + 30)))
		return wrc;
	if (n <= 0)
		return rc ? rc : n;
	if ((wrc = MPI_RC(MPI_Ibcast(run->next, n * (int)sizeof *run->next, MPI_BYTE, 0, w->epcomm, &req))) ||
	    (wrc = mpi_wait_sleepy(&req, clock_now() + 3 * run->timeout + 30)))
		return wrc;
	if (sched_append(sc, run->next, n)) {
		LOG_ERROR("out of memory for the adaptive plan's next step");
		return rc ? rc : FP_ERUNTIME;
	}
	return rc;
}

/* Every step: agree that all is well (rank 0 reports its last write), measure this step's
 * pairs, wait until every endpoint is done, gather the records to rank 0, which writes them;
 * an adaptive plan may then add a step. */
static int path_steps(struct p2p_run *run, const struct transport_ops *tr, void *ctx,
		      const struct tr_port *ports, struct sched *sc, const struct p2p_path_out *po,
		      struct p2p_matrices *m)
{
	struct world *w = run->w;
	double t0 = clock_now();
	int rc = 0;

	if (run->best) {
		for (size_t i = 0; i < (size_t)w->nep * (size_t)run->nrec; i++)
			run->best[i] = (struct lat_best){ 0 };
		for (int p = 0; p + 1 < run->o->lat_passes && rc == 0; p++)
			rc = lat_pass(run, tr, ctx, ports, sc, p);
	}
	run->sync_s = run->write_s = 0;
	for (int s = 0; s < sc->nsteps; s++) {
		MPI_Request req;
		double ta = clock_now(), tb;

		if ((rc = agree(run, rc, "step start")))
			return rc;
		run->sync_s += clock_now() - ta;
		for (int i = 0; i < run->nrec; i++)
			p2p_rec_init(&run->mine[i], -1, -1, 0);
		for (int k = sc->step_first[s]; k < sc->step_first[s + 1]; k++) {
			const struct sched_pair *p = &sc->pair[k];
			int peer = p->a == w->my_ep ? p->b : p->a;

			if (p->a != w->my_ep && p->b != w->my_ep)
				continue;
			p2p_pair_run(run, tr, ctx, ports, p->a, p->b, (unsigned)k, k - sc->step_first[s],
				     sc->step_first[s + 1] - sc->step_first[s]);
			if (run->best)
				p2p_lat_keep_best(run, peer);
		}
		/* Nobody is measuring once the barrier ends, so the records reach rank 0 then: gathered
		 * as each endpoint finished, they arrived while rank 0 still timed its own pair (seven
		 * records of 1.4 KiB a step on 8 nodes, each served by its progress engine inside the
		 * timed loop), a tail on rank 0's pairs only. The barrier's own messages are empty,
		 * at most one a round to each endpoint, alike for all. */
		if ((rc = p2p_step_post(run)) || (rc = mpi_wait_sleepy(&run->step_req, clock_now() + 3 * run->timeout + 30)))
			return rc; /* a rank is hung: the caller ends the job */
		run->step_posted = 0;
		tb = clock_now();
		if ((rc = MPI_RC(MPI_Igather(run->mine, run->nrec * (int)sizeof *run->mine, MPI_BYTE, run->all,
					     run->nrec * (int)sizeof *run->mine, MPI_BYTE, 0, w->epcomm, &req))))
			return rc;
		if ((rc = mpi_wait_sleepy(&req, clock_now() + 3 * run->timeout + 30)))
			return rc; /* a rank is hung: the caller ends the job */
		run->sync_s += clock_now() - tb;
		if (w->rank == 0) {
			tb = clock_now();
			rc = step_write(run, po, m, sc, s); /* logged; said at the next step */
			run->write_s += clock_now() - tb;
			if (run->out->progress)
				p2p_progress_print(run, po->path, s + 1, sc->nsteps, sc->step_first[s + 1], sc->npairs, t0);
		}
		if (run->plan && run->plan->adapt && s + 1 == sc->nsteps)
			rc = path_adapt(run, sc, rc);
	}
	return agree(run, rc, "path end");
}

/* Measure the pairs of schedule sc on one path. what: NULL for all pairs, else the plan's word
 * for the terminal. */
static int path_run(struct p2p_run *run, const char *path, struct sched *sc, const char *what)
{
	const struct transport_ops *tr = transport_find(path);
	const char *arg = strchr(path, ':') ? strchr(path, ':') + 1 : NULL;
	struct world *w = run->w;
	struct tr_env env = { .comm = w->epcomm, .ep = w->my_ep, .nep = w->nep, .host = w->host,
			      .single_node = w->single_node, .max_window = (int)run->o->window,
			      .fault = run->o->test_fault_rank == w->rank ? run->o->test_fault : TR_FAULT_NONE,
			      .shared_core = run->pin, .qos = &run->o->qos };
	struct tr_port port = { .rate_gbps = NAN }, *ports = calloc((size_t)w->nep, sizeof *ports);
	struct p2p_path_out po = { .run_id = run->out->run_id, .path = path, .nep = w->nep, .opts = run->o };
	struct p2p_matrices m = { 0 };
	struct nic_place pl;
	void *ctx = NULL;
	int rc = 0;

	run->ctl = MPI_COMM_NULL;
	p2p_place(run, path, &pl);
	for (int i = 0; i < run->o->nsizes; i++)
		if (run->o->sizes[i].bytes > env.max_size)
			env.max_size = run->o->sizes[i].bytes;
	if (!ports) {
		LOG_ERROR("out of memory for %d endpoints", w->nep);
		rc = FP_ERUNTIME;
	}
	if (w->rank == 0 && rc == 0)
		rc = matrix_init(&m, path, w->nep);
	if ((rc = agree(run, rc, "path start")))
		goto out;
	if ((rc = MPI_RC(MPI_Comm_dup(w->epcomm, &run->ctl))))
		goto out;
	MPI_Comm_set_errhandler(run->ctl, MPI_ERRORS_RETURN);
	if (tr->open(&env, arg, &ctx, &port)) {
		/* this endpoint cannot use the path: its pairs are skipped, the others go on */
		port.usable = 0;
		snprintf(port.why, sizeof port.why, "%.60s could not open path %.60s (see its log)", w->host, path);
	}
	p2p_place_port(&pl, &port);
	if ((rc = MPI_RC(MPI_Allgather(&port, sizeof port, MPI_BYTE, ports, sizeof port, MPI_BYTE, w->epcomm))))
		goto out;
	po.labels = w->labels;
	po.ports = ports;
	if (w->rank == 0) {
		path_announce(run, path, ports, sc, what);
		if (!what)
			p2p_place_write(run, path, ports);
		p2p_path_rate(&m, ports, w->nep);
	}
	rc = path_steps(run, tr, ctx, ports, sc, &po, &m);
	if (w->rank == 0 && rc == 0 && sc->nsteps > 0)
		p2p_engine_report(run, sc->nsteps);
	if (w->rank == 0 && rc == 0) {
		if (!what)
			path_summary(run, &m, w->labels);
		if (run->res) { /* the result owns them now */
			run->res->path[run->res->npaths++] = m;
			memset(&m, 0, sizeof m);
		}
	}
out:
	matrix_free(&m);
	tr->close(ctx);
	p2p_unplace(run, &pl);
	if (run->ctl != MPI_COMM_NULL)
		MPI_Comm_free(&run->ctl);
	free(ports);
	return rc;
}

/* ---------------------------------------------------------------- the subcommand */

/* Buffers and p2p.csv (or the plan's file), every rank agreeing that all is ready. */
static int run_start(struct p2p_run *run)
{
	const struct p2p_opts *o = run->o;
	struct world *w = run->w;
	long nw = o->bw_iters > WARMUP_WINDOWS_MAX ? o->bw_iters : WARMUP_WINDOWS_MAX;
	int rc = 0;

	if (run->res)
		run->res->npaths = 0;
	run->timeout = o->pair_timeout > 0 ? o->pair_timeout : p2p_default_timeout(o);
	run->stall_pending = o->test_stall_rank == w->rank;
	p2p_pin_init(run);
	p2p_pin_probe(run, 0);
	if (run->pin && w->rank == 0 && !strcmp(run->csv_name, "p2p.csv"))
		printf("p2p: %d endpoints share a machine of %d cores: the two sides of a pair measure together on "
		       "one core, the pairs spread over the cores, waiting endpoints on the last (--placement)\n",
		       run->machine_eps, CPU_COUNT(&run->cpus));
	run->mine = calloc((size_t)run->nrec, sizeof *run->mine);
	/* earlier latency passes: not with a test hook, which must act on the pass that is written */
	if (o->lat_passes > 1 && o->nlat > 0 && o->test_stall_rank < 0 && o->test_fault_rank < 0 &&
	    !(run->best = calloc((size_t)w->nep * (size_t)run->nrec, sizeof *run->best)))
		LOG_WARN("out of memory for the latency passes' figures: one latency pass");
	run->samples = calloc((size_t)o->lat_iters, sizeof *run->samples);
	run->ticks = calloc((size_t)o->lat_iters + 1, sizeof *run->ticks);
	clock_tick_init(&run->clk);
	run->wtimes = calloc((size_t)nw, sizeof *run->wtimes);
	if (w->rank == 0)
		run->all = calloc((size_t)w->nep * (size_t)run->nrec, sizeof *run->all);
	if (!run->mine || !run->samples || !run->ticks || !run->wtimes || (w->rank == 0 && !run->all)) {
		LOG_ERROR("out of memory");
		rc = FP_ERUNTIME;
	}
	if (rc == 0 && w->rank == 0) {
		int fresh = 1;

		if (run->plan && run->plan->append)
			run->csv = results_append(run->out->dir, run->csv_name, &fresh);
		else
			run->csv = results_open(run->out->dir, run->csv_name);
		if (run->csv && fresh)
			p2p_csv_header(run->csv);
		else if (!run->csv)
			rc = FP_ERUNTIME;
	}
	return agree(run, rc, "start");
}

static int run_finish(struct p2p_run *run, int rc)
{
	if (run->pin) {
		p2p_pin_probe(run, 1);
		p2p_pin_to(run, -1);
		mpi_wait_yield(0);
	}
	if (run->csv && results_close(run->csv, run->out->dir, run->csv_name) && rc == 0)
		rc = FP_ERUNTIME;
	free(run->mine);
	free(run->best);
	free(run->samples);
	free(run->ticks);
	free(run->wtimes);
	free(run->all);
	free(run->next);
	free(run->step_rec);
	if (rc == 0 && run->failed)
		rc = 1;
	return rc;
}

int p2p_main(const struct p2p_opts *o, struct world *w, struct run_out *out, struct p2p_result *res)
{
	struct p2p_run run = { .o = o, .w = w, .out = out, .nrec = 2 * o->nsizes, .res = res,
			       .csv_name = "p2p.csv", .ndirs = 2 };
	int rc = run_start(&run);

	p2p_meta_qos(&run, o->paths, o->npaths);
	for (int i = 0; rc == 0 && i < o->npaths; i++) {
		struct sched sc = { 0 };

		rc = sched_create(w->nep, (int)o->concurrency, &sc);
		if (rc)
			LOG_ERROR("out of memory for the schedule of %d endpoints", w->nep);
		rc = agree(&run, rc, "schedule");
		if (rc == 0)
			rc = path_run(&run, o->paths[i], &sc, NULL);
		sched_destroy(&sc);
	}
	return run_finish(&run, rc);
}

int p2p_plan_main(const struct p2p_opts *o, const struct p2p_plan *plan, struct world *w,
		  struct run_out *out, struct p2p_result *res)
{
	struct p2p_run run = { .o = o, .w = w, .out = out, .nrec = 2 * o->nsizes, .res = res,
			       .csv_name = plan->csv, .plan = plan, .ndirs = plan->directed ? 1 : 2 };
	int rc = run_start(&run);

	if (rc == 0 && plan->adapt &&
	    (!(run.next = calloc((size_t)w->nep / 2 + 2, sizeof *run.next)) ||
	     (w->rank == 0 && !(run.step_rec = calloc((size_t)w->nep + 2, sizeof *run.step_rec))))) {
		LOG_ERROR("out of memory");
		rc = FP_ERUNTIME;
	}
	rc = agree(&run, rc, "plan start");
	p2p_meta_qos(&run, plan->path, plan->npaths);
	for (int i = 0; rc == 0 && i < plan->npaths; i++) {
		struct sched sc = { 0 };

		if (plan->npairs[i] == 0)
			continue;
		run.est_s = plan->est_s[i];
		run.path_i = i;
		rc = plan->step_first[i] ? sched_from_steps(plan->pair[i], plan->step_first[i], plan->nsteps[i], &sc)
					 : sched_from_pairs(plan->pair[i], plan->npairs[i], &sc);
		if (rc)
			LOG_ERROR("out of memory for a plan of %d pairs", plan->npairs[i]);
		rc = agree(&run, rc, "plan");
		if (rc == 0)
			rc = path_run(&run, plan->path[i], &sc, plan->what);
		sched_destroy(&sc);
	}
	return run_finish(&run, rc);
}
