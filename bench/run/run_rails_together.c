/* run_rails_together.c — `run --rails`: every rail of a node at once. Each node meets two
 * partners, its neighbours in a cycle over the nodes (two nodes: one pair), each direction
 * apart: the sender streams to its partner on each rail alone, then on every rail at once (the
 * better of two tries), the same windows of the same size on each rail, one pair's rails
 * together. A node whose rails fall short together (two NICs behind one PCIe switch uplink, a
 * host that cannot feed them all) moves less at once than the sum of its rails alone, though
 * each rail alone measures as its peers' (fabric/judge/rails.h judges it). On a fabric the
 * pairs of a round run at once (a cycle's edges: two rounds, three when the nodes are odd);
 * where the endpoints share a machine's cores (the emulated cluster) one pair at a time. Each
 * rail's stream runs in a thread of its own, on the cores of its NIC's NUMA node where the
 * endpoint has the machine to itself. Written to rails_together.csv. */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/escape.h"
#include "core/log.h"
#include "core/mpi_util.h"
#include "core/results.h"
#include "fabric/io/p2p_csv.h"
#include "node/nic_place.h"
#include "p2p/transport.h"
#include "run_stage.h"

#define TOG_SECONDS 0.1       /* a rail's timed stream lasts about this long at its rate alone */
#define TOG_WINDOWS_MIN 3
#define TOG_WINDOWS_MAX 100000
#define TOG_TRIES 2           /* every rail at once: the better of this many */
#define TOG_DEADLINE_S 60.0   /* one direction of a pair, at most */
#define TOG_TAG 0x7a12

struct tog_rail {
	const struct transport_ops *tr;
	void *ctx;
	struct tr_conn *conn;
	struct nic_place pl;
	long k;                  /* windows of a timed stream, from the warm-up window */
	/* a stream in a thread of its own */
	pthread_t th;
	pthread_barrier_t *bar;
	int sender, rc;
	double deadline, t0, t1;
	const struct tog *t;
};

struct tog {
	struct world *w;
	int nr, window, over;
	size_t size;
	struct tog_rail rl[RAILS_MAX];
};

static int stream(const struct tog *t, struct tog_rail *r, int sender, long windows, double deadline)
{
	int rc = 0;

	for (long i = 0; rc == 0 && i < windows; i++)
		rc = sender ? r->tr->stream_send(r->conn, t->size, t->window, deadline)
			    : r->tr->stream_recv(r->conn, t->size, t->window, deadline);
	return rc;
}

static void *stream_thread(void *arg)
{
	struct tog_rail *r = arg;

	if (!r->t->over && (r->pl.status == PLACE_NIC_NODE || r->pl.status == PLACE_OFF_NODE))
		pthread_setaffinity_np(pthread_self(), sizeof r->pl.use, &r->pl.use);
	pthread_barrier_wait(r->bar);
	r->t0 = clock_now();
	r->rc = stream(r->t, r, r->sender, r->k, r->deadline);
	r->t1 = clock_now();
	return NULL;
}

/* every rail at once, a thread each: the bytes over the time from the first start to the last
 * end (GB/s), NAN when a stream failed */
static double at_once(struct tog *t, int sender, double deadline)
{
	pthread_barrier_t bar;
	double t0 = INFINITY, t1 = 0, bytes = 0;
	int rc = 0, started = 0;

	if (pthread_barrier_init(&bar, NULL, (unsigned)t->nr + 1))
		return NAN;
	for (int i = 0; i < t->nr; i++) {
		struct tog_rail *r = &t->rl[i];

		r->bar = &bar, r->sender = sender, r->deadline = deadline, r->t = t;
		if (pthread_create(&r->th, NULL, stream_thread, r))
			break;
		started++;
	}
	if (started < t->nr) { /* never reached: the barrier counts every thread */
		LOG_ERROR("rails together: no thread for every rail");
		MPI_Abort(MPI_COMM_WORLD, FP_ERUNTIME);
	}
	pthread_barrier_wait(&bar);
	for (int i = 0; i < t->nr; i++) {
		struct tog_rail *r = &t->rl[i];

		pthread_join(r->th, NULL);
		rc |= r->rc;
		t0 = fmin(t0, r->t0);
		t1 = fmax(t1, r->t1);
		bytes += (double)r->k * (double)t->size * t->window;
	}
	pthread_barrier_destroy(&bar);
	return rc || !(t1 > t0) ? NAN : bytes / (t1 - t0) / 1e9;
}

/* both sides' word after a step (the sender's: a figure, or 0 failed): 1 when both went on */
static int agree(long mine, int peer, long *theirs)
{
	MPI_Sendrecv(&mine, 1, MPI_LONG, peer, TOG_TAG, theirs, 1, MPI_LONG, peer, TOG_TAG, MPI_COMM_WORLD,
		     MPI_STATUS_IGNORE);
	return mine > 0 && *theirs > 0;
}

/* One direction of a pair, both sides (peer: the other's world rank): each rail alone, then
 * every rail at once. The sender's figures into out: the sum alone, the slowest alone, at once
 * (GB/s; NAN unmeasured). 1 when every step went, on both sides. */
static int direction(struct tog *t, int sender, int peer, double *out)
{
	double deadline = clock_now() + TOG_DEADLINE_S, bytes = (double)t->size * t->window, sum = 0, lo = INFINITY;
	long word, theirs;

	for (int i = 0; i < t->nr; i++) {
		struct tog_rail *r = &t->rl[i];
		double t0 = clock_now();
		int rc = stream(t, r, sender, 1, deadline); /* warm-up: the window's time sets the count */
		double dt = clock_now() - t0;

		word = rc ? 0 : sender ? (long)fmin(TOG_WINDOWS_MAX, fmax(TOG_WINDOWS_MIN, ceil(TOG_SECONDS / dt))) : 1;
		if (!agree(word, peer, &theirs))
			return 0;
		r->k = sender ? word : theirs;
		t0 = clock_now();
		rc = stream(t, r, sender, r->k, deadline);
		dt = clock_now() - t0;
		if (!agree(rc ? 0 : 1, peer, &theirs))
			return 0;
		sum += (double)r->k * bytes / dt / 1e9;
		lo = fmin(lo, (double)r->k * bytes / dt / 1e9);
	}
	for (int k = 0; k < TOG_TRIES; k++) {
		double g = at_once(t, sender, deadline);

		if (!agree(isnan(g) ? 0 : 1, peer, &theirs))
			return 0;
		if (sender && !(out[2] >= g))
			out[2] = g;
	}
	if (sender)
		out[0] = sum, out[1] = lo;
	return 1;
}

/* pair (a, b), both sides: every rail connected, each direction; res: 2 directions × 3 */
static void pair_test(struct tog *t, int a, int b, unsigned seq, double *res)
{
	struct world *w = t->w;
	int peer = w->my_ep == a ? b : a, ok = 1;
	double deadline = clock_now() + TOG_DEADLINE_S;
	long theirs;
	char why[TR_WHY_MAX];

	for (int i = 0; i < t->nr; i++) {
		struct tog_rail *r = &t->rl[i];

		r->conn = NULL; /* every rail tried on both sides, failed or not: they stay in step */
		if (r->tr->connect(r->ctx, peer, seq, deadline, &r->conn, why)) {
			escape_term_line(stderr, "fabprobe: rails together: %s to %s: %s", w->labels[w->my_ep], w->labels[peer],
					 why);
			ok = 0;
		}
	}
	if (agree(ok, w->ep_rank[peer], &theirs))
		for (int d = 0; d < 2 && direction(t, w->my_ep == (d ? b : a), w->ep_rank[peer], res + 3 * d); d++)
			; /* a direction that failed leaves the connections unfit for the other */
	for (int i = 0; i < t->nr; i++)
		t->rl[i].tr->disconnect(t->rl[i].conn);
}

/* every endpoint: each rail's transport opened (collective over epcomm, rail by rail); 1 when
 * this endpoint's every rail is usable, 0 when not, -1 when one failed to open */
static int rails_open(struct tog *t, const struct run_opts *c)
{
	struct world *w = t->w;
	cpu_set_t allowed;
	int usable = 1;

	sched_getaffinity(0, sizeof allowed, &allowed);
	for (int i = 0; i < t->nr; i++) {
		struct tog_rail *r = &t->rl[i];
		const char *arg = strchr(c->rails[i], ':') + 1;
		struct tr_env env = { .comm = w->epcomm, .ep = w->my_ep, .nep = w->nep, .host = w->host,
				      .max_size = t->size, .max_window = t->window, .shared_core = t->over,
				      .qos = &c->p2p.qos };
		struct tr_port port = { .rate_gbps = NAN };

		r->tr = transport_find(c->rails[i]);
		nic_place_find(NULL, c->rails[i], &allowed, &r->pl);
		if (r->tr->open(&env, arg, &r->ctx, &port))
			return -1;
		usable = usable && port.usable;
	}
	return usable;
}

static void rails_close(struct tog *t)
{
	for (int i = 0; i < t->nr; i++)
		if (t->rl[i].tr)
			t->rl[i].tr->close(t->rl[i].ctx);
}

/* the index past the leaf of u[at] (u sorted by leaf; no leaves known: the end) */
static int leaf_end(const int *unit, const int *u, int m, int at)
{
	int e = at + 1;

	while (unit && e < m && unit[u[e]] == unit[u[at]])
		e++;
	return unit ? e : m;
}

/* rank 0: a cycle over the usable endpoints of each leaf of the first rail's map (a scalable
 * unit: its pairs stay under their rails' leaves), a leaf of fewer than 3 joined to the next
 * one's (two nodes in all: one pair), as (a, b, round) triples; the count. unit: each
 * endpoint's leaf, NULL none known (one cycle). */
static int plan(const int *usable, const int *unit, int nep, int *p)
{
	int m = 0, np = 0, *u = malloc(sizeof *u * ((size_t)nep + 1));

	if (!u)
		return -1;
	for (int e = 0; e < nep; e++)
		if (usable[e] == 1)
			u[m++] = e;
	for (int i = 1; unit && i < m; i++) /* by leaf, endpoint order within (insertion: stable) */
		for (int j = i; j > 0 && unit[u[j - 1]] > unit[u[j]]; j--) {
			int x = u[j];

			u[j] = u[j - 1], u[j - 1] = x;
		}
	for (int lo = 0, hi; lo < m; lo = hi) {
		hi = leaf_end(unit, u, m, lo);
		while (hi < m && hi - lo < 3)
			hi = leaf_end(unit, u, m, hi);
		if (m - hi < 3) /* too few left for a cycle of their own */
			hi = m;
		int c = hi - lo;

		for (int i = 0; c >= 2 && i < (c == 2 ? 1 : c); i++, np++) {
			p[3 * np] = u[lo + i];
			p[3 * np + 1] = u[lo + (i + 1) % c];
			p[3 * np + 2] = c % 2 && i == c - 1 ? 2 : i % 2; /* a cycle's edges in two colours, three when odd */
		}
	}
	free(u);
	return np;
}

/* rank 0: the tests into st (the sender's figures, res: per pair 2 × 3) and rails_together.csv */
static void tog_keep(struct run_state *st, const struct world *w, struct run_out *ro, const int *p, int np,
		     const double *res)
{
	FILE *f = NULL;
	int fresh = 0;

	free(st->tog);
	st->ntog = 0;
	if (!(st->tog = calloc(2 * (size_t)np + 1, sizeof *st->tog)))
		return;
	for (int k = 0; k < 2 * np; k++) {
		const double *x = res + 3 * k;
		int a = p[3 * (k / 2)], b = p[3 * (k / 2) + 1], from = k % 2 ? b : a, to = k % 2 ? a : b;
		double alone = x[0] >= 0 ? x[0] : NAN, together = x[2] >= 0 ? x[2] : NAN;

		st->tog[st->ntog++] = (struct rails_together_test){ from, to, alone, together };
		if (!f && !(f = results_append(ro->dir, "rails_together.csv", &fresh)))
			continue;
		if (fresh)
			csv_header(f, rail_together_cols, RAIL_TOG_NCOLS);
		fresh = 0;
		csv_row(f, rail_together_cols, RAIL_TOG_NCOLS, &(struct rail_together_row){
			.from_host = w->labels[from], .to_host = w->labels[to], .rails = st->c->nrails,
			.alone_Gbps = 8 * alone, .alone_min_Gbps = x[1] >= 0 ? 8 * x[1] : NAN, .together_Gbps = 8 * together,
			.pct_of_alone = 100 * together / alone });
	}
	if (f && results_close(f, ro->dir, "rails_together.csv"))
		LOG_WARN("rails_together.csv could not be written whole");
}

/* rank 0: each endpoint's leaf in the first rail's map (its lowest certain tier), or NULL */
static const int *units(const struct run_state *st, int nep)
{
	for (int i = 0; i < st->mp.npaths; i++) {
		const struct infer_result *r = run_maps_map(&st->mp, i);
		int t;

		if (r && r->n == nep && !strcmp(st->mp.p[i].m->path, st->c->rails[0]) && (t = rails_leaf_tier(r)) >= 0)
			return r->group + (size_t)t * (size_t)nep;
	}
	return NULL;
}

/* the largest bandwidth size of the run */
static size_t bw_size(const struct p2p_opts *o)
{
	size_t s = 0;

	for (int i = 0; i < o->nsizes; i++)
		if (o->sizes[i].bw && o->sizes[i].bytes > s)
			s = o->sizes[i].bytes;
	return s;
}

/* Every rank: rank 0's plan over the endpoints that opened every rail (mine: this endpoint's
 * word, rails_open's), shared as (a, b, round) triples in *out; the count (0: none), and
 * *open_rc set on rank 0 when a rail's transport did not open somewhere. */
static int plan_share(struct tog *t, const struct run_state *st, int mine, int **out, int *open_rc)
{
	struct world *w = t->w;
	int np = 0, *p = NULL, *usable = NULL;

	if (w->rank == 0 && (!(usable = malloc(sizeof *usable * (size_t)w->nep)) ||
			     !(p = malloc(sizeof *p * 3 * ((size_t)w->nep + 1)))))
		MPI_Abort(MPI_COMM_WORLD, FP_ERUNTIME);
	if (w->my_ep >= 0)
		MPI_Gather(&mine, 1, MPI_INT, usable, 1, MPI_INT, 0, w->epcomm);
	if (w->rank == 0) {
		for (int e = 0; e < w->nep; e++)
			*open_rc |= usable[e] < 0;
		np = *open_rc ? 0 : plan(usable, units(st, w->nep), w->nep, p);
	}
	free(usable);
	int head[2] = { np, t->over };

	MPI_Bcast(head, 2, MPI_INT, 0, MPI_COMM_WORLD);
	np = head[0], t->over = head[1];
	if (np > 0 && w->rank && !(p = malloc(sizeof *p * 3 * (size_t)np)))
		MPI_Abort(MPI_COMM_WORLD, FP_ERUNTIME);
	if (np > 0)
		MPI_Bcast(p, 3 * np, MPI_INT, 0, MPI_COMM_WORLD);
	*out = p;
	return np;
}

/* Every rank: the plan's rounds (a round's pairs at once, or one pair at a time where the
 * endpoints share a machine); the senders' figures to rank 0's got (np × 6) */
static void rounds(struct tog *t, const int *p, int np, double *got)
{
	struct world *w = t->w;
	double *res = malloc(sizeof *res * 6 * (size_t)np);

	if (!res)
		MPI_Abort(MPI_COMM_WORLD, FP_ERUNTIME);
	for (int k = 0; k < 6 * np; k++)
		res[k] = -1;
	for (int round = 0; round < 3; round++) {
		for (int k = 0; k < np; k++) {
			if (p[3 * k + 2] != round)
				continue;
			if (w->my_ep == p[3 * k] || w->my_ep == p[3 * k + 1])
				pair_test(t, p[3 * k], p[3 * k + 1], (unsigned)k, res + 6 * k);
			if (t->over) /* one pair at a time: the others wait asleep */
				mpi_barrier_sleepy(MPI_COMM_WORLD);
		}
		if (!t->over) /* a round's pairs at once, the rounds apart */
			mpi_barrier_sleepy(MPI_COMM_WORLD);
	}
	MPI_Reduce(res, got, 6 * np, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	free(res);
}

/* Every rank: the rails opened, rank 0's plan, its rounds, the figures and the congestion
 * counters to rank 0, which keeps them and says the pass. */
static int run_rails_together_step(struct world *w, struct run_out *ro, struct run_state *st)
{
	const struct run_opts *c = st->c;
	struct tog t = { .w = w, .nr = c->nrails, .window = (int)c->p2p.window, .size = bw_size(&c->p2p) };
	struct run_quiet q = { 0 };
	int np, *p = NULL, mine = 0, open_rc = 0;
	double t0 = clock_now(), *got = NULL;

	if (w->single_node || w->nep < 2 || !t.size)
		return 0;
	for (int i = 0; i < c->nrails; i++)
		if (!transport_find(c->rails[i]) || !strchr(c->rails[i], ':') || !strcmp(c->rails[i], "mpi"))
			return 0; /* the rails are ports: tcp:, verbs: */
	if (w->my_ep >= 0) {
		mpi_machine_ranks(w->epcomm, &t.over);
		mine = rails_open(&t, c);
		run_quiet_before(c, w, &q);
	}
	if ((np = plan_share(&t, st, mine, &p, &open_rc)) > 0) {
		if (w->rank == 0 && !(got = malloc(sizeof *got * 6 * (size_t)np)))
			MPI_Abort(MPI_COMM_WORLD, FP_ERUNTIME);
		rounds(&t, p, np, got);
	}
	if (w->my_ep >= 0) {
		rails_close(&t);
		run_quiet_after(st, w, &q, np > 0);
	}
	if (w->rank == 0 && np > 0) {
		tog_keep(st, w, ro, p, np, got);
		printf("rails: every rail at once, %d pair%s each way, %s, in %.1f s (rails_together.csv)\n", np,
		       np == 1 ? "" : "s", t.over ? "one pair at a time (the endpoints share this machine's cores)"
						 : "a round's pairs at once", clock_now() - t0);
	} else if (w->rank == 0 && open_rc) {
		printf("rails: every rail at once: not measured (a rail's transport did not open)\n");
	}
	free(p);
	free(got);
	return 0;
}

static int run_rails_together_on(const struct run_opts *c)
{
	return c->nrails > 0 && c->together_min > 0;
}

const struct run_stage run_stage_rails_together = { .name = "rails-together", .on = run_rails_together_on,
						     .step = run_rails_together_step };
