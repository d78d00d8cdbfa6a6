/* p2p_pair.c — one pair measured through its transport (p2p_int.h): latency round trips, the
 * bandwidth warm-up and its windows, each side's records; the best of the latency passes; the
 * endpoints of one machine placed on the cores they share. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/cpuprobe.h"
#include "core/interrupt.h"
#include "core/mpi_util.h"
#include "core/run.h"
#include "core/stats.h"
#include "core/world.h"
#include "p2p_int.h"
#include "window.h"

/* ---------------------------------------------------------------- sharing a machine */

/* The n-th of this rank's allowed cores (run->cpus), or -1. */
static int pin_cpu(const struct p2p_run *run, int n)
{
	for (int c = 0, k = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &run->cpus) && k++ == n)
			return c;
	return -1;
}

/* This process onto the n-th of its allowed cores; n < 0: back onto all of them. Best effort:
 * unpinned, it still measures. */
void p2p_pin_to(const struct p2p_run *run, int n)
{
	cpu_set_t one;
	int c = pin_cpu(run, n);

	if (n < 0 || c < 0) {
		sched_setaffinity(0, sizeof run->cpus, &run->cpus);
		return;
	}
	CPU_ZERO(&one);
	CPU_SET(c, &one);
	sched_setaffinity(0, sizeof one, &one);
}

/* When the endpoints that share this machine (the same kernel boot id) outnumber its cores —
 * the emulated cluster, where every "node" runs on the same cores, or one node oversubscribed
 * — the endpoints are placed: the two sides of the slot-th measured pair together on one core
 * (slot modulo the cores; modulo all but the last where endpoints of the machine wait in that
 * step), every endpoint that waits on the last core (--placement shared forces it, none
 * leaves the kernel to place them; waiting then still yields). Together
 * on one core, a message costs the same whichever cores the host gives this machine's vCPUs at
 * the moment; on two cores, every message paid the cache-line transfer between them, which on
 * a shared host moves between ~0.1 and ~0.4 µs a round trip in spells of seconds (read as a
 * bimodal latency that follows no switch). Sharing a core, the sides must never spin while
 * they wait (tr_env.shared_core, mpi_wait_yield). Elsewhere (one endpoint per machine) nothing
 * is pinned. Collective over epcomm. */
void p2p_pin_init(struct p2p_run *run)
{
	int over = 0;

	run->machine_eps = mpi_machine_ranks(run->w->epcomm, &over);
	run->pin = 0;
	if (sched_getaffinity(0, sizeof run->cpus, &run->cpus) == 0 && CPU_COUNT(&run->cpus) >= 2)
		run->pin = run->o->placement == P2P_PLACE_SHARED || (over && run->o->placement == P2P_PLACE_AUTO);
	mpi_wait_yield(run->pin || over);
	if (run->pin)
		p2p_pin_to(run, CPU_COUNT(&run->cpus) - 1);
}

/* Rank 0, on a machine the endpoints share: the cross-core round trip (core/cpuprobe.h)
 * between the measuring core and the waiting one, before the first pass and after the last,
 * into meta.json, so that a spell of the host is visible beside the figures it touched. */
void p2p_pin_probe(struct p2p_run *run, int after)
{
	struct run_out *ro = run->out;
	int a = pin_cpu(run, 0), b = pin_cpu(run, CPU_COUNT(&run->cpus) - 1);
	double ns;

	if (!run->pin || run->w->rank != 0 || !ro)
		return;
	ns = cpuprobe_round_trip_ns(a, b);
	if (!ro->probe.taken)
		ro->probe.before_ns = ro->probe.after_ns = NAN;
	ro->probe.taken = 1;
	ro->probe.cpu[0] = a;
	ro->probe.cpu[1] = b;
	if (after)
		ro->probe.after_ns = ns;
	else if (isnan(ro->probe.before_ns))
		ro->probe.before_ns = ns;
}

/* ---------------------------------------------------------------- measuring one pair */

static int lat_measure(struct p2p_run *run, const struct transport_ops *tr, struct tr_conn *c, int initiator,
		       size_t size, double deadline, struct p2p_rec *rec)
{
	const struct p2p_opts *o = run->o;
	uint64_t *tick = run->ticks;
	double *samples = run->samples;
	struct stats st;
	int rc;

	for (long i = -o->lat_warmup; i < 0; i++)
		if ((rc = initiator ? tr->roundtrip(c, size, deadline) : tr->echo(c, size, deadline)))
			return rc;
	if (!initiator) {
		for (long i = 0; i < o->lat_iters; i++)
			if ((rc = tr->echo(c, size, deadline)))
				return rc;
		return 0;
	}
	/* the timed loop: one clock read per sample, converted afterwards */
	tick[0] = clock_tick_now(&run->clk);
	for (long i = 0; i < o->lat_iters; i++) {
		if ((rc = tr->roundtrip(c, size, deadline)))
			return rc;
		tick[i + 1] = clock_tick_now(&run->clk);
	}
	for (long i = 0; i < o->lat_iters; i++)
		samples[i] = (double)(tick[i + 1] - tick[i]) * run->clk.sec * 0.5e6; /* half round trip, µs */
	stats_compute(samples, (int)o->lat_iters, &st);
	rec->lat_iters = o->lat_iters;
	rec->lat_min = st.min;
	rec->lat_avg = st.avg;
	rec->lat_p50 = st.p50;
	rec->lat_p99 = st.p99;
	return 0;
}

/* The sender tells the receiver whether another warm-up window follows: the sender times the
 * windows, so it decides. Out of band, on the path's control communicator. */
static int warmup_tell(struct p2p_run *run, struct tr_conn *c, int sender, int *more, double deadline)
{
	MPI_Request req;
	int rc;

	if (sender)
		rc = MPI_RC(MPI_Isend(more, 1, MPI_INT, c->peer, 0, run->ctl, &req));
	else
		rc = MPI_RC(MPI_Irecv(more, 1, MPI_INT, c->peer, 0, run->ctl, &req));
	if (!rc && (rc = mpi_wait_deadline(&req, 1, deadline)) == FP_ETIMEDOUT)
		snprintf(c->why, TR_WHY_MAX, "timed out waiting for the %s's warm-up decision",
			 sender ? "receiver to take" : "sender");
	else if (rc)
		snprintf(c->why, TR_WHY_MAX, "MPI error passing the warm-up decision");
	return rc;
}

/* The sender's windows all acknowledged: a pipelining transport's (stream_end), before
 * anything else passes between the pair; nothing to wait for with the others. */
static int stream_end(const struct transport_ops *tr, struct tr_conn *c, int sender, double deadline)
{
	return sender && tr->stream_end ? tr->stream_end(c, deadline) : 0;
}

/* Warm-up windows until two consecutive ones agree (window.h) or the budget is spent. */
static int bw_warmup(struct p2p_run *run, const struct transport_ops *tr, struct tr_conn *c, int sender,
		     size_t size, double deadline, struct p2p_rec *rec)
{
	const struct p2p_opts *o = run->o;
	double t0 = clock_now(), budget_end = t0 + o->bw_warmup_time;
	int rc, more = 1, k;

	for (k = 0; more; k++) {
		double t = clock_now();

		rc = sender ? tr->stream_send(c, size, (int)o->window, deadline)
			    : tr->stream_recv(c, size, (int)o->window, deadline);
		if (rc || (rc = stream_end(tr, c, sender, deadline)))
			return rc;
		if (sender) {
			double now = clock_now();
			int conv;

			run->wtimes[k] = now - t;
			conv = window_converged(run->wtimes, k + 1, (int)o->bw_warmup, o->bw_tolerance) >= 0;
			more = !conv && now < budget_end && k + 1 < WARMUP_WINDOWS_MAX;
			rec->bw_converged = conv;
		}
		if ((rc = warmup_tell(run, c, sender, &more, deadline)))
			return rc;
	}
	rec->bw_warm = k;
	return 0;
}

/* This endpoint is done with the step's measurements: its part of the step's barrier, once. */
int p2p_step_post(struct p2p_run *run)
{
	if (run->step_posted)
		return 0;
	run->step_posted = 1;
	return MPI_RC(MPI_Ibarrier(run->w->epcomm, &run->step_req));
}

/* A directed plan's stream, timed: it goes on streaming, untimed, until every endpoint of the
 * step is done (the step's barrier), so that a stream whose timed windows end first still
 * loads the uplinks the others are timed across (warm-ups converge after different numbers of
 * windows: without it the last streams of a step ran half alone and read above their share).
 * The sender decides and tells the receiver before each window; it stops two windows short of
 * the pair's deadline. What fails here fails no figure: they are taken. */
static void bw_hold(struct p2p_run *run, const struct transport_ops *tr, struct tr_conn *c, int sender,
		    size_t size, double deadline)
{
	int more = 1, done = 0, win = (int)run->o->window;
	double last = 0;

	if (p2p_step_post(run))
		return;
	for (;;) {
		double t = clock_now();

		if (sender && MPI_Test(&run->step_req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
			done = 1;
		if (sender)
			more = !done && t + 2 * last < deadline;
		if (stream_end(tr, c, sender, deadline))
			return;
		if (warmup_tell(run, c, sender, &more, deadline) || !more)
			return;
		if (sender ? tr->stream_send(c, size, win, deadline) : tr->stream_recv(c, size, win, deadline))
			return;
		last = clock_now() - t;
	}
}

/* hold: a directed plan's last size (bw_hold) */
static int bw_measure(struct p2p_run *run, const struct transport_ops *tr, struct tr_conn *c, int sender,
		      size_t size, double deadline, int hold, struct p2p_rec *rec)
{
	const struct p2p_opts *o = run->o;
	int rc, win = (int)o->window;
	double t0, prev;
	struct window_figures wf;

	if (o->bw_warmup > 0 && (rc = bw_warmup(run, tr, c, sender, size, deadline, rec)))
		return rc;
	/* A window's time runs from one acknowledgement to the next. A pipelining transport's
	 * stream_send returns at the previous window's (none for the first), and stream_end
	 * brings the last one's. */
	t0 = prev = clock_now();
	for (long i = 0, k = 0, lag = tr->stream_end != NULL; i < o->bw_iters + lag; i++) {
		if (i < o->bw_iters)
			rc = sender ? tr->stream_send(c, size, win, deadline)
				    : tr->stream_recv(c, size, win, deadline);
		else
			rc = stream_end(tr, c, sender, deadline);
		if (rc)
			return rc;
		if (sender && i >= lag) {
			double now = clock_now();

			run->wtimes[k++] = now - prev;
			prev = now;
		}
	}
	if (sender) {
		window_figures(run->wtimes, (int)o->bw_iters, (double)size * win, prev - t0, &wf);
		rec->bw_iters = o->bw_iters;
		rec->bw_GBps = wf.median;
		rec->bw_total = wf.total;
		rec->bw_min = wf.min;
		rec->bw_max = wf.max;
	}
	if (hold)
		bw_hold(run, tr, c, sender, size, deadline);
	return 0;
}

void p2p_rec_init(struct p2p_rec *r, int src, int dst, int size_idx)
{
	*r = (struct p2p_rec){ .src = src, .dst = dst, .size_idx = size_idx, .status = P2P_OK,
			       .lat_iters = -1, .bw_iters = -1, .lat_min = NAN, .lat_avg = NAN,
			       .lat_p50 = NAN, .lat_p99 = NAN, .lat_min_hi = NAN, .bw_GBps = NAN, .bw_total = NAN,
			       .bw_min = NAN, .bw_max = NAN, .bw_warm = -1, .bw_converged = -1 };
}

/* Keep, per direction and latency size, the figures of the pass with the lowest minimum, and
 * the highest minimum of all passes: into run->best after an earlier pass, from it into
 * run->mine after the last one. Only the side that timed the ping-pongs holds figures; the
 * other's stay NAN, on both passes alike. */
void p2p_lat_keep_best(struct p2p_run *run, int peer)
{
	for (int i = 0; i < run->nrec; i++) {
		struct p2p_rec *r = &run->mine[i];
		struct lat_best *b = &run->best[(size_t)peer * (size_t)run->nrec + (size_t)i];
		int have = b->iters > 0 && !isnan(b->min);

		if (r->status != P2P_OK || isnan(r->lat_min)) {
			continue;
		} else if (run->lat_only) {
			double hi = have && b->hi > r->lat_min ? b->hi : r->lat_min;

			if (!have || r->lat_min < b->min)
				*b = (struct lat_best){ r->lat_iters, r->lat_min, r->lat_avg, r->lat_p50, r->lat_p99, hi };
			b->hi = hi;
		} else if (have) {
			r->lat_min_hi = b->hi > r->lat_min ? b->hi : r->lat_min;
			if (b->min < r->lat_min) {
				r->lat_iters = b->iters;
				r->lat_min = b->min;
				r->lat_avg = b->avg;
				r->lat_p50 = b->p50;
				r->lat_p99 = b->p99;
			}
		}
	}
}

/* The pair (a, b), me one of them, every size: both directions, a to b first, or a to b alone
 * (run->ndirs 1); fills run->mine (the slots of a direction not measured: src -1). */
void p2p_pair_run(struct p2p_run *run, const struct transport_ops *tr, void *ctx,
		     const struct tr_port *ports, int a, int b, unsigned seq, int slot, int nslots)
{
	const struct p2p_opts *o = run->o;
	int me = run->w->my_ep, peer = me == a ? b : a, lo = a, hi = b;
	double deadline = clock_now() + run->timeout;
	struct tr_conn *c = NULL;
	int status = P2P_OK;
	char why[TR_WHY_MAX] = "";

	for (int d = 0; d < 2; d++)
		for (int s = 0; s < o->nsizes; s++)
			p2p_rec_init(&run->mine[d * o->nsizes + s], d >= run->ndirs ? -1 : d ? hi : lo, d ? lo : hi, s);
	if (run->stall_pending) {
		run->stall_pending = 0;
		clock_sleep_us((long)((run->timeout * 1.5 + 0.5) * 1e6));
	}
	if (run->pin) {
		/* a core for the endpoints that wait only when some do (a plan's step, a step of
		 * fewer pairs than the machine's endpoints make): a full step's pairs take all */
		int cores = CPU_COUNT(&run->cpus), waiting = run->machine_eps > 2 * nslots;

		p2p_pin_to(run, slot % (waiting ? cores - 1 : cores));
	}
	if (!ports[me].usable || !ports[peer].usable) {
		status = P2P_SKIPPED;
		snprintf(why, sizeof why, "%s", ports[me].usable ? ports[peer].why : ports[me].why);
	} else {
		int rc = tr->connect(ctx, peer, seq, deadline, &c, why);

		if (rc)
			status = rc == FP_ETIMEDOUT ? P2P_TIMEOUT : P2P_ERROR;
	}
	int last_bw = -1;

	for (int s = 0; s < o->nsizes; s++)
		last_bw = o->sizes[s].bw ? s : last_bw;
	for (int d = 0; d < run->ndirs; d++) {
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
				rc = lat_measure(run, tr, c, src == me, z->bytes, deadline, r);
			if (!rc && z->bw && !run->lat_only)
				rc = bw_measure(run, tr, c, src == me, z->bytes, deadline,
						run->plan && run->plan->directed && s == last_bw, r);
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
	if (run->pin)
		p2p_pin_to(run, CPU_COUNT(&run->cpus) - 1);
}

/* rank 0: a path's progress on stderr, after each step */
void p2p_progress_print(struct p2p_run *run, const char *path, int step, int nsteps, int pairs_done,
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
