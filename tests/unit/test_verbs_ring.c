/* The verbs ring's slot protocol (bench/p2p/verbs_ring.c) driven by a simulated wire: n
 * endpoints in a ring, each with its staging slots, receive slots, flag and credit bytes. A
 * write is placed at a random later moment: a data write may pass any earlier write of its
 * direction (PCIe relaxed ordering allows it), a flag or credit write (strictly ordered) only
 * once every earlier write of its direction was placed. A data write reads its staging slot
 * when it is placed, as a NIC may read late: a slot reused too early corrupts what arrives.
 * Every step's bytes must arrive exactly; several segments must be in flight each way; and
 * two broken variants of the protocol (a slot reused before its credit came back, a flag not
 * ordered after its data) must be caught by the same checks.
 * The bandwidth windows' pipelining (verbs_win_ack_due) runs on the same wire: a window's
 * messages (relaxed), its end flag and the acknowledgement (strict). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "p2p/verbs_ring.h"
#include "p2p/verbs_wire.h"

#define S VERBS_RING_SLOTS
#define EPS_MAX 4
#define SEG 64
#define WRITES_MAX 4096

#define WINS 40 /* windows of one run */

enum { W_DATA, W_FLAG, W_CREDIT, W_WDATA, W_WFLAG, W_WACK };

struct wr {
	int kind, from, to, slot;
	size_t n;
	uint8_t marker;
	int placed;
};

struct ep {
	int me;
	uint8_t staging[S][SEG], slots[S][SEG], flag[S], credit[S];
	unsigned long sent, recvd;     /* to the right neighbour, from the left */
	unsigned long credited;        /* credits placed back here */
	uint8_t wflag[VERBS_WIN_SLOTS], wack[VERBS_WIN_SLOTS]; /* the windows' end flags and acks */
	int wdata[WINS];               /* messages of window w placed here */
};

static struct sim {
	int n;
	struct ep ep[EPS_MAX];
	struct wr w[WRITES_MAX];
	int nw;
	int broken_credit, broken_flag;  /* the variants the checks must catch */
	int in_flight_max;               /* segments posted, not yet credited, on one direction */
	int overwritten;                 /* a window flag or ack placed over one not yet seen */
} sim;

static int right(int e) { return (e + 1) % sim.n; }
static int left(int e) { return (e + sim.n - 1) % sim.n; }

static void post(int kind, int from, int to, int slot, size_t n, uint8_t marker)
{
	CHECK(sim.nw < WRITES_MAX);
	if (sim.nw < WRITES_MAX)
		sim.w[sim.nw++] = (struct wr){ kind, from, to, slot, n, marker, 0 };
}

/* may w be placed now (oldest: each direction's earliest write not yet placed): relaxed data
 * any time; strict writes after every earlier one of their direction (from → to) */
static int placeable(int i, int oldest[EPS_MAX][EPS_MAX])
{
	int k = sim.w[i].kind;

	return k == W_DATA || k == W_WDATA || ((k == W_FLAG || k == W_WFLAG) && sim.broken_flag) ||
	       oldest[sim.w[i].from][sim.w[i].to] == i;
}

static void place(int i)
{
	struct wr *w = &sim.w[i];
	struct ep *src = &sim.ep[w->from], *dst = &sim.ep[w->to];

	w->placed = 1;
	if (w->kind == W_DATA)
		memcpy(dst->slots[w->slot], src->staging[w->slot], w->n); /* read late, as a NIC may */
	else if (w->kind == W_FLAG)
		dst->flag[w->slot] = w->marker;
	else if (w->kind == W_WDATA)
		dst->wdata[w->slot]++;
	else if (w->kind == W_WFLAG || w->kind == W_WACK) {
		uint8_t *b = w->kind == W_WFLAG ? &dst->wflag[w->slot] : &dst->wack[w->slot];

		sim.overwritten += *b != 0;
		*b = w->marker;
	} else {
		dst->credit[w->slot] = w->marker;
		dst->credited++;
	}
}

/* place one random placeable write; 0 when none is pending */
static int deliver_one(void)
{
	int cand[WRITES_MAX], nc = 0, oldest[EPS_MAX][EPS_MAX];

	for (int a = 0; a < EPS_MAX; a++)
		for (int b = 0; b < EPS_MAX; b++)
			oldest[a][b] = -1;
	for (int i = sim.nw - 1; i >= 0; i--)
		if (!sim.w[i].placed)
			oldest[sim.w[i].from][sim.w[i].to] = i;
	for (int i = 0; i < sim.nw; i++)
		if (!sim.w[i].placed && placeable(i, oldest))
			cand[nc++] = i;
	if (!nc)
		return 0;
	place(cand[rand() % nc]);
	return 1;
}

/* ---------------------------------------------------------------- the io of endpoint e */

static void io_stage(void *c, int slot, const uint8_t *src, size_t n) { memcpy(((struct ep *)c)->staging[slot], src, n); }
static int io_post_data(void *c, int slot, size_t n)
{
	struct ep *e = c;

	post(W_DATA, e->me, right(e->me), slot, n, 0);
	return 0;
}
static int io_post_flag(void *c, int slot, uint8_t m)
{
	struct ep *e = c;

	post(W_FLAG, e->me, right(e->me), slot, 1, m);
	return 0;
}
static uint8_t io_flag(void *c, int slot) { return ((struct ep *)c)->flag[slot]; }
static void io_take(void *c, int slot, uint8_t *dst, size_t n)
{
	struct ep *e = c;

	memcpy(dst, e->slots[slot], n);
	e->flag[slot] = 0;
}
static int io_post_credit(void *c, int slot, uint8_t m)
{
	struct ep *e = c;

	post(W_CREDIT, e->me, left(e->me), slot, 1, m);
	return 0;
}
static uint8_t io_credit(void *c, int slot)
{
	struct ep *e = c;

	/* broken: as if the credit were always back */
	return sim.broken_credit && e->sent >= S ? verbs_marker(e->sent - S) : e->credit[slot];
}

/* segments endpoint e posted (its sent counter advances as it posts) whose credit has not
 * been placed back yet */
static int in_flight(int e)
{
	return (int)(sim.ep[e].sent - sim.ep[e].credited);
}

/* One ring step of len bytes each way on every endpoint, random data; the writes are placed
 * in random order as the rules allow, the endpoints progress in random turns. 1 when every
 * endpoint finished and received its left neighbour's bytes exactly; 0 when one did not
 * finish (a deadlock) or received other bytes. */
static int ring_step(size_t len)
{
	static uint8_t src[EPS_MAX][16 * SEG], dst[EPS_MAX][16 * SEG];
	struct vring r[EPS_MAX];
	struct vring_io io[EPS_MAX];
	int done[EPS_MAX] = { 0 }, all = 0, spins = 0, exact;

	for (int e = 0; e < sim.n; e++) {
		for (size_t k = 0; k < len; k++)
			src[e][k] = (uint8_t)rand();
		memset(dst[e], 0, len);
		io[e] = (struct vring_io){ &sim.ep[e], io_stage, io_post_data, io_post_flag, io_flag,
					   io_take, io_post_credit, io_credit };
		vring_start(&r[e], SEG, src[e], len, dst[e], len, &sim.ep[e].sent, &sim.ep[e].recvd);
	}
	while (all < sim.n && spins++ < 100000) {
		int e = rand() % sim.n;

		if (rand() % 3 == 0 || !deliver_one()) {
			int rc = done[e] ? 1 : vring_progress(&r[e], &io[e]);

			CHECK(rc >= 0);
			if (rc == 1 && !done[e])
				done[e] = 1, all++;
		}
		for (int k = 0; k < sim.n; k++)
			if (in_flight(k) > sim.in_flight_max)
				sim.in_flight_max = in_flight(k);
	}
	exact = all == sim.n; /* no deadlock */
	while (deliver_one())
		;
	for (int e = 0; e < sim.n; e++)
		exact &= !memcmp(dst[e], src[left(e)], len);
	/* the writes of this step are all placed: keep the list short */
	sim.nw = 0;
	return exact;
}

static void sim_reset(int n)
{
	memset(&sim, 0, sizeof sim);
	sim.n = n;
	for (int e = 0; e < n; e++)
		sim.ep[e].me = e;
}

/* steps of many lengths (none, under a segment, several, not a multiple of the segment),
 * rings of 2 (one connection each way) to 4 endpoints */
static void test_ring_exact(void)
{
	static const size_t lens[] = { 0, 1, SEG - 1, SEG, SEG + 1, 3 * SEG, 7 * SEG + 13, 16 * SEG };

	srand(1);
	for (int n = 2; n <= EPS_MAX; n++) {
		sim_reset(n);
		for (int rep = 0; rep < 6; rep++)
			for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
				CHECK(ring_step(lens[i]));
		CHECK(sim.in_flight_max >= 2); /* several segments in flight each way */
		CHECK(sim.in_flight_max <= S); /* never more than the slots */
	}
}

/* the same checks catch a protocol that reuses a slot before its credit came back, and a flag
 * that is allowed to pass its data */
static void test_ring_catches_breakage(void)
{
	int bad = 0;

	srand(2);
	sim_reset(3);
	sim.broken_credit = 1;
	for (int rep = 0; rep < 20; rep++)
		bad += !ring_step(16 * SEG);
	CHECK(bad > 0);
	bad = 0;
	sim_reset(3);
	sim.broken_flag = 1;
	for (int rep = 0; rep < 20; rep++)
		bad += !ring_step(16 * SEG);
	CHECK(bad > 0);
}

/* ---------------------------------------------------------------- bandwidth windows */

static long ack_due_broken(unsigned long w) /* one window more in flight than the slots */
{
	return w >= VERBS_WIN_SLOTS ? (long)(w - VERBS_WIN_SLOTS) : -1;
}

/* WINS windows of `msgs` messages from endpoint 0 to 1, as io_verbs.c posts and waits for
 * them, with ack_due saying which acknowledgement the sender waits for after posting a
 * window. 1 when every window was acknowledged, no flag or ack was written over one not yet
 * seen, and the receiver never saw an end flag before its window's messages; *deep: the most
 * windows posted and not yet acknowledged. */
static int windows_run(long (*ack_due)(unsigned long), int msgs, int *deep)
{
	struct ep *tx = &sim.ep[0], *rx = &sim.ep[1];
	unsigned long w = 0, acked = 0, r = 0;
	long due = -1;
	int early = 0, spins = 0;

	*deep = 0;
	while (acked < WINS && spins++ < 200000) {
		int turn = rand() % 3;

		if (turn == 0 && deliver_one())
			continue;
		if (turn == 1 && (long)acked > due && w < WINS) { /* the sender posts window w */
			for (int i = 0; i < msgs; i++)
				post(W_WDATA, 0, 1, (int)w, 64, 0);
			post(W_WFLAG, 0, 1, (int)(w % VERBS_WIN_SLOTS), 1, verbs_marker(w));
			due = ack_due(w++);
		} else if (turn == 1 && (long)acked <= due + (w == WINS) * WINS &&
			   tx->wack[acked % VERBS_WIN_SLOTS] == verbs_marker(acked)) {
			tx->wack[acked++ % VERBS_WIN_SLOTS] = 0; /* waiting for acks: due's, or all at the end */
		} else if (turn == 2 && r < w && rx->wflag[r % VERBS_WIN_SLOTS] == verbs_marker(r)) {
			early += rx->wdata[r] != msgs;
			rx->wflag[r % VERBS_WIN_SLOTS] = 0;
			post(W_WACK, 1, 0, (int)(r % VERBS_WIN_SLOTS), 1, verbs_marker(r));
			r++;
		}
		if ((int)(w - acked) > *deep)
			*deep = (int)(w - acked);
	}
	sim.nw = 0;
	return acked == WINS && !sim.overwritten && !early;
}

static void test_windows_pipelined(void)
{
	int deep, bad = 0;

	srand(3);
	for (int msgs = 1; msgs <= 8; msgs *= 2) {
		sim_reset(2);
		CHECK(windows_run(verbs_win_ack_due, msgs, &deep));
		CHECK_EQ(deep, VERBS_WIN_SLOTS); /* the next window goes before the last one's ack */
	}
	CHECK(VERBS_WIN_SLOTS >= 2);
	/* the same checks catch a sender one window deeper than the slots, and an end flag that
	 * may pass its window's messages */
	for (int rep = 0; rep < 10; rep++) {
		sim_reset(2);
		bad += !windows_run(ack_due_broken, 4, &deep);
	}
	CHECK(bad > 0);
	bad = 0;
	for (int rep = 0; rep < 10; rep++) {
		sim_reset(2);
		sim.broken_flag = 1;
		bad += !windows_run(verbs_win_ack_due, 4, &deep);
	}
	CHECK(bad > 0);
}

int main(void)
{
	RUN(test_ring_exact);
	RUN(test_ring_catches_breakage);
	RUN(test_windows_pipelined);
	CHECK_EXIT();
}
