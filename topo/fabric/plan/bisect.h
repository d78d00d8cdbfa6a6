/* bisect.h — a group that fails under load, isolated without N² (docs/measurement.md, "The
 * loaded pass"). Pure: the caller measures.
 *
 * A group whose streams across its uplink ran slow in the loaded pass is measured again in
 * bursts: a set X of its k members (a range of them, in tree order), each streaming at once to
 * a node known good under load. A burst fails when its median stream falls below
 * frac x min(iso, agg / |X|): iso, one stream's figure alone at that tier; agg, what a healthy
 * group's uplink carried at once in the loaded pass. A healthy uplink shared by fewer streams
 * gives each more, so a healthy subset never fails it.
 *
 *   1. the whole group: passes -> cleared (the slow streams were its partner's doing);
 *   2. the failing set S in two halves of one size, each measured alone, then set against
 *      each other (an odd S's middle member is in neither):
 *        one under BISECT_SPLIT x the other -> S is that half (one node: that node); go on;
 *        alike, S odd, both halves passing the threshold (well without the middle member)
 *                                   -> that member alone against a first-half member alone:
 *                                      under BISECT_SPLIT x it -> that member;
 *        otherwise                  -> S explains it: the whole group -> its uplink (every
 *                                      member shares it), a part -> those nodes together.
 * The halves are held against each other, not against the threshold, and are of one size: an
 * uplink that limits both gives each stream the same share, however near the threshold, and
 * never reads as one of its nodes.
 *
 * At most 1 + 4 ceil(log2 k) bursts, each of at least BISECT_DIRS_MIN directions (a small burst
 * repeated), so that one slow reading does not steer it. Two faulty members in different
 * halves read as the whole group: the bisection finds one cause. */
#ifndef FP_BISECT_H
#define FP_BISECT_H

#define BISECT_DIRS_MIN 8
#define BISECT_SPLIT 0.5 /* a half holds the cause when its streams run under half the other's */

enum bisect_verdict {
	BISECT_RUNNING,
	BISECT_CLEARED,   /* the group passes against known-good nodes */
	BISECT_UPLINK,    /* the group's uplink */
	BISECT_NODE,      /* one member: lo */
	BISECT_NODES,     /* members [lo, hi) together */
	BISECT_UNDECIDED  /* a burst had no figure (its streams failed) */
};

#define BISECT_STEPS_MAX 128

struct bisect_step {
	int lo, hi;       /* the members measured */
	double GBps, thr; /* their median stream; what it was held against: the threshold (the
			   * whole group), BISECT_SPLIT x the other half's (a half, a single) */
	int fail;
};

struct bisect {
	int k;
	double iso, agg, frac;
	int lo, hi;       /* the failing set (the answer, once decided) */
	int phase;        /* the next burst: 0 the whole group, 1 S's first half, 2 its second,
			   * 3 an odd S's middle member, 4 a first-half member */
	int verdict;
	int nsteps;
	struct bisect_step step[BISECT_STEPS_MAX];
};

/* k >= 1 members; iso and agg in GB/s (NAN or <= 0: not known, that bound left out); frac in
 * (0, 1]. */
void bisect_init(struct bisect *b, int k, double iso, double agg, double frac);
/* The threshold for a burst of x streams (NAN when neither bound is known: nothing fails). */
double bisect_threshold(const struct bisect *b, int x);
/* The next burst, members [*lo, *hi): 1; or 0 once decided (b->verdict). */
int bisect_next(const struct bisect *b, int *lo, int *hi);
/* The burst bisect_next asked for, measured: its median stream (NAN: no figure). */
void bisect_feed(struct bisect *b, double GBps);
/* "cleared", "uplink", "node", "nodes", "undecided", "running" */
const char *bisect_verdict_name(int v);

#endif
