/* bisect.c — isolating a group that fails under load (bisect.h). */
#include "bisect.h"

#include <math.h>

void bisect_init(struct bisect *b, int k, double iso, double agg, double frac)
{
	*b = (struct bisect){ .k = k, .iso = iso, .agg = agg, .frac = frac, .lo = 0, .hi = k,
			      .verdict = k > 0 ? BISECT_RUNNING : BISECT_UNDECIDED };
}

double bisect_threshold(const struct bisect *b, int x)
{
	double cap = b->iso > 0 ? b->iso : NAN;

	if (b->agg > 0 && x > 0 && (isnan(cap) || b->agg / x < cap))
		cap = b->agg / x;
	return b->frac * cap;
}

/* S's halves: [lo, lo + m) and [hi - m, hi), of one size; an odd S's middle member, lo + m,
 * in neither (held against a single of its own later) */
static int half(const struct bisect *b)
{
	return (b->hi - b->lo) / 2;
}

int bisect_next(const struct bisect *b, int *lo, int *hi)
{
	int m = half(b);

	if (b->verdict != BISECT_RUNNING || b->nsteps >= BISECT_STEPS_MAX)
		return 0;
	switch (b->phase) {
	case 0: *lo = b->lo, *hi = b->hi; break;
	case 1: *lo = b->lo, *hi = b->lo + m; break;
	case 2: *lo = b->hi - m, *hi = b->hi; break;
	case 3: *lo = b->lo + m, *hi = b->lo + m + 1; break;
	default: *lo = b->lo, *hi = b->lo + 1; break;
	}
	return 1;
}

/* S explains the failure */
static void decide(struct bisect *b)
{
	b->verdict = b->lo == 0 && b->hi == b->k ? BISECT_UPLINK : b->hi - b->lo == 1 ? BISECT_NODE : BISECT_NODES;
}

/* the last two bursts (of one size) against each other: 1 the first under BISECT_SPLIT x the
 * second, 2 the second under it x the first, 0 alike */
static int against(struct bisect *b)
{
	struct bisect_step *x = &b->step[b->nsteps - 2], *y = &b->step[b->nsteps - 1];

	x->thr = BISECT_SPLIT * y->GBps;
	y->thr = BISECT_SPLIT * x->GBps;
	x->fail = x->GBps < x->thr;
	y->fail = y->GBps < y->thr;
	return x->fail ? 1 : y->fail ? 2 : 0;
}

void bisect_feed(struct bisect *b, double GBps)
{
	struct bisect_step *s;
	int lo, hi, m = half(b), odd = (b->hi - b->lo) % 2, low;

	if (!bisect_next(b, &lo, &hi))
		return;
	s = &b->step[b->nsteps++];
	*s = (struct bisect_step){ .lo = lo, .hi = hi, .GBps = GBps, .thr = NAN };
	if (isnan(GBps)) {
		b->verdict = BISECT_UNDECIDED;
	} else if (b->phase == 0) {
		s->thr = bisect_threshold(b, hi - lo);
		s->fail = GBps < s->thr; /* a NAN threshold: nothing fails */
		if (!s->fail)
			b->verdict = BISECT_CLEARED;
		else if (b->k < 2)
			decide(b);
		else
			b->phase = 1;
	} else if (b->phase == 1 || b->phase == 3) {
		b->phase++;
	} else if (b->phase == 2) {
		/* the halves against each other: the one under BISECT_SPLIT x the other holds the cause */
		double thr = bisect_threshold(b, m);

		if ((low = against(b))) {
			if (low == 1)
				b->hi = b->lo + m;
			else
				b->lo = b->hi - m;
			b->phase = 1;
			if (b->hi - b->lo == 1)
				decide(b);
		} else if (odd && !(b->step[b->nsteps - 2].GBps < thr) && !(GBps < thr)) {
			b->phase = 3; /* alike, and well without the middle member: it, alone, next */
		} else {
			decide(b);
		}
	} else {
		/* the middle member alone against a member of the first half alone */
		if (against(b) == 1)
			b->lo += m, b->hi = b->lo + 1;
		decide(b);
	}
	if (b->verdict == BISECT_RUNNING && b->nsteps >= BISECT_STEPS_MAX)
		b->verdict = BISECT_UNDECIDED;
}

const char *bisect_verdict_name(int v)
{
	static const char *const name[] = { "running", "cleared", "uplink", "node", "nodes", "undecided" };

	return v >= 0 && v <= BISECT_UNDECIDED ? name[v] : "?";
}
