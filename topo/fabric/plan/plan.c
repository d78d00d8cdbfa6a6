/* plan.c — see plan.h. */
#include "plan.h"
#include "plan_int.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

void plan_opts_default(struct plan_opts *o)
{
	*o = (struct plan_opts){ .peers = 1, .groups = 16, .uplink_streams = 1 };
}

void plan_free(struct plan *p)
{
	sched_destroy(&p->s);
}

/* ---------------------------------------------------------------- the groups */

void plan_tiers_free(struct tier_groups *tg, int ntiers)
{
	for (int t = 0; tg && t < ntiers; t++) {
		free(tg[t].first);
		free(tg[t].mem);
		free(tg[t].parent);
	}
	free(tg);
}

/* Group numbers are taken as they come (0 .. max); a negative one is refused. */
struct tier_groups *plan_tiers_make(const int *group, int ntiers, int n)
{
	struct tier_groups *tg = calloc((size_t)ntiers, sizeof *tg);

	for (int t = 0; tg && t < ntiers; t++) {
		const int *g = group + (size_t)t * (size_t)n;
		int ng = 0;

		for (int i = 0; i < n; i++) {
			if (g[i] < 0 || g[i] >= n) {
				plan_tiers_free(tg, ntiers);
				return NULL;
			}
			ng = g[i] + 1 > ng ? g[i] + 1 : ng;
		}
		tg[t].ng = ng;
		tg[t].first = calloc((size_t)ng + 1, sizeof *tg[t].first);
		tg[t].mem = malloc(sizeof *tg[t].mem * ((size_t)n + 1));
		tg[t].parent = malloc(sizeof *tg[t].parent * ((size_t)ng + 1));
		if (!tg[t].first || !tg[t].mem || !tg[t].parent) {
			plan_tiers_free(tg, ntiers);
			return NULL;
		}
		for (int i = 0; i < n; i++)
			tg[t].first[g[i] + 1]++;
		for (int k = 0; k < ng; k++)
			tg[t].first[k + 1] += tg[t].first[k];
		int *at = malloc(sizeof *at * ((size_t)ng + 1));
		if (!at) {
			plan_tiers_free(tg, ntiers);
			return NULL;
		}
		memcpy(at, tg[t].first, sizeof *at * (size_t)ng);
		for (int i = 0; i < n; i++) {
			tg[t].mem[at[g[i]]++] = i;
			tg[t].parent[g[i]] = t + 1 < ntiers ? group[(size_t)(t + 1) * (size_t)n + (size_t)i] : -1;
		}
		free(at);
	}
	return tg;
}

/* ---------------------------------------------------------------- the pairs */

struct ppair {
	int a, b, step;
};

struct pvec {
	struct ppair *p;
	size_t n, cap;
	int oom;
};

static void pvec_add(struct pvec *v, int a, int b, int step)
{
	if (v->oom)
		return;
	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 1024;
		struct ppair *q = cap > (size_t)INT_MAX ? NULL : realloc(v->p, sizeof *q * cap);

		if (!q) {
			v->oom = 1;
			return;
		}
		v->p = q;
		v->cap = cap;
	}
	v->p[v->n++] = (struct ppair){ a < b ? a : b, a < b ? b : a, step };
}

/* Every pair inside each leaf: round r of every leaf in step r. Returns the steps used. */
static int intra_pairs(const struct tier_groups *leaf, struct pvec *v)
{
	int steps = 0, most = 0;
	struct sched_pair *buf;

	for (int g = 0; g < leaf->ng; g++) {
		int s = leaf->first[g + 1] - leaf->first[g];

		most = s > most ? s : most;
	}
	if (!(buf = malloc(sizeof *buf * ((size_t)most / 2 + 1))))
		return v->oom = 1, 0;
	for (int g = 0; g < leaf->ng; g++) {
		const int *m = leaf->mem + leaf->first[g];
		int s = leaf->first[g + 1] - leaf->first[g], rounds = sched_rounds(s);

		for (int r = 0; r < rounds; r++) {
			int k = sched_round(s, r, buf);

			for (int i = 0; i < k; i++)
				pvec_add(v, m[buf[i].a], m[buf[i].b], r);
		}
		steps = rounds > steps ? rounds : steps;
	}
	free(buf);
	return steps;
}

static int ppair_cmp(const void *x, const void *y)
{
	const struct ppair *a = x, *b = y;

	return a->a != b->a ? (a->a > b->a) - (a->a < b->a) : (a->b > b->b) - (a->b < b->b);
}

/* The pairs across leaves, tier by tier: in each group G of tier t with S > 1 children (groups of
 * tier t - 1), node i of child p meets m = min(groups, S - 1) of its siblings, those at
 * p + 1 + (i x m + j) mod (S - 1), j < m (so the nodes of a child together meet every sibling
 * when m x its size >= S - 1), against `peers` nodes of each, taken in turn from the sibling's
 * members so that they share the load. A pair made twice (from both ends) is kept once. */
static void cross_pairs(const struct tier_groups *tg, int ntiers, const struct plan_opts *o, struct pvec *v)
{
	for (int t = 1; t < ntiers && !v->oom; t++) {
		const struct tier_groups *c = &tg[t - 1];
		int ng = c->ng, np = tg[t].ng;
		int *kf = calloc((size_t)np + 2, sizeof *kf), *kid = malloc(sizeof *kid * ((size_t)ng + 1));
		int *use = calloc((size_t)ng + 1, sizeof *use), *at = calloc((size_t)np + 1, sizeof *at);
		size_t from = v->n;

		if (!kf || !kid || !use || !at) {
			v->oom = 1;
		} else {
			/* each group's children (non-empty groups of t - 1), in order */
			for (int g = 0; g < ng; g++)
				kf[c->parent[g] + 1] += c->first[g + 1] > c->first[g];
			for (int G = 0; G < np; G++)
				kf[G + 1] += kf[G];
			memcpy(at, kf, sizeof *at * (size_t)np);
			for (int g = 0; g < ng; g++)
				if (c->first[g + 1] > c->first[g])
					kid[at[c->parent[g]]++] = g;
		}
		for (int G = 0; G < np && !v->oom; G++) {
			int S = kf[G + 1] - kf[G], m = o->groups < S - 1 ? o->groups : S - 1;

			for (int p = 0; p < S; p++) {
				int g = kid[kf[G] + p], sg = c->first[g + 1] - c->first[g];

				for (int i = 0; i < sg; i++)
					for (int j = 0; j < m; j++) {
						int h = kid[kf[G] + (p + 1 + (int)(((long)i * m + j) % (S - 1))) % S];
						int sh = c->first[h + 1] - c->first[h], k = o->peers < sh ? o->peers : sh;

						for (int x = 0; x < k; x++)
							pvec_add(v, c->mem[c->first[g] + i],
								 c->mem[c->first[h] + (use[h] + x) % sh], -1);
						use[h] = (use[h] + k) % sh;
					}
			}
		}
		if (!v->oom && v->n > from) { /* once each */
			size_t w = from;

			qsort(v->p + from, v->n - from, sizeof *v->p, ppair_cmp);
			for (size_t k = from; k < v->n; k++)
				if (k == from || ppair_cmp(&v->p[k], &v->p[w - 1]))
					v->p[w++] = v->p[k];
			v->n = w;
		}
		free(kf);
		free(kid);
		free(use);
		free(at);
	}
}

/* ---------------------------------------------------------------- the steps across leaves */

struct slots {
	int n, nleaf, cap, steps, words, room;
	uint64_t *busy;          /* room x words: the nodes of each step */
	unsigned short *load;    /* room x nleaf: each leaf's uplink streams in each step */
	int *node_from, *leaf_from; /* the first step that may still take the node, the leaf */
};

static int slots_grow(struct slots *s)
{
	int room = s->room ? 2 * s->room : 64;
	uint64_t *b = realloc(s->busy, sizeof *b * (size_t)room * (size_t)s->words);
	unsigned short *l;

	if (!b)
		return -1;
	s->busy = b;
	if (!(l = realloc(s->load, sizeof *l * (size_t)room * (size_t)s->nleaf)))
		return -1;
	s->load = l;
	memset(s->busy + (size_t)s->room * s->words, 0, sizeof *b * (size_t)(room - s->room) * (size_t)s->words);
	memset(s->load + (size_t)s->room * s->nleaf, 0, sizeof *l * (size_t)(room - s->room) * (size_t)s->nleaf);
	s->room = room;
	return 0;
}

static int node_busy(const struct slots *s, int step, int i)
{
	return step < s->steps && (s->busy[(size_t)step * s->words + (size_t)i / 64] >> (i % 64) & 1);
}

static int leaf_full(const struct slots *s, int step, int l)
{
	return step < s->steps && s->load[(size_t)step * s->nleaf + (size_t)l] >= s->cap;
}

static int max4(int a, int b, int c, int d)
{
	int x = a > b ? a : b, y = c > d ? c : d;

	return x > y ? x : y;
}

/* The first step that takes pair (a, b) of leaves la != lb, opened when none does; -1 when out
 * of memory. */
static int slot_place(struct slots *s, int a, int b, int la, int lb)
{
	int st = max4(s->node_from[a], s->node_from[b], s->leaf_from[la], s->leaf_from[lb]);

	while (node_busy(s, st, a) || node_busy(s, st, b) || leaf_full(s, st, la) || leaf_full(s, st, lb))
		st++;
	if (st >= s->steps) {
		if (st >= s->room && slots_grow(s))
			return -1;
		s->steps = st + 1;
	}
	s->busy[(size_t)st * s->words + (size_t)a / 64] |= 1ULL << (a % 64);
	s->busy[(size_t)st * s->words + (size_t)b / 64] |= 1ULL << (b % 64);
	s->load[(size_t)st * s->nleaf + (size_t)la]++;
	s->load[(size_t)st * s->nleaf + (size_t)lb]++;
	while (node_busy(s, s->node_from[a], a))
		s->node_from[a]++;
	while (node_busy(s, s->node_from[b], b))
		s->node_from[b]++;
	while (leaf_full(s, s->leaf_from[la], la))
		s->leaf_from[la]++;
	while (leaf_full(s, s->leaf_from[lb], lb))
		s->leaf_from[lb]++;
	return st;
}

/* v's pairs from `from` on in an order of their own (a fixed seed: the same plan every time).
 * First-fit in the order made would fill a leaf's uplink with its first sibling's pairs and
 * leave the others for later steps: on 1,024 nodes in leaves of 32, 1,471 steps across leaves
 * against 1,204 shuffled, where no plan can do with fewer than 1,200 (the busiest leaf's
 * streams over the cap). */
static void shuffle(struct pvec *v, size_t from)
{
	unsigned long long r = 0x9e3779b97f4a7c15ULL;

	for (size_t k = v->n; k > from + 1; k--) {
		r ^= r << 13;
		r ^= r >> 7;
		r ^= r << 17;
		size_t j = from + (size_t)(r % (k - from));
		struct ppair t = v->p[k - 1];

		v->p[k - 1] = v->p[j];
		v->p[j] = t;
	}
}

/* The fewest steps any plan of v's pairs from `from` on can have: the busiest leaf's streams
 * over the cap, or the busiest node's pairs. -1 when out of memory. */
static int steps_bound(const struct pvec *v, size_t from, const int *leaf, int nleaf, int n, int cap)
{
	long long *ld = calloc((size_t)nleaf + 1, sizeof *ld), most = 0;
	int *dg = calloc((size_t)n + 1, sizeof *dg);

	for (size_t k = from; ld && dg && k < v->n; k++) {
		ld[leaf[v->p[k].a]]++;
		ld[leaf[v->p[k].b]]++;
		dg[v->p[k].a]++;
		dg[v->p[k].b]++;
	}
	for (int l = 0; ld && dg && l < nleaf; l++)
		most = (ld[l] + cap - 1) / cap > most ? (ld[l] + cap - 1) / cap : most;
	for (int i = 0; ld && dg && i < n; i++)
		most = dg[i] > most ? dg[i] : most;
	if (!ld || !dg)
		most = -1;
	free(ld);
	free(dg);
	return (int)most;
}

/* Steps for v's pairs from `from` on (pairs inside a leaf already have theirs). Returns the
 * steps across leaves, or -1 when out of memory. */
static int cross_steps(struct pvec *v, size_t from, const int *leaf, int nleaf, int n, int cap, int base)
{
	struct slots s = { .n = n, .nleaf = nleaf, .cap = cap > 65535 ? 65535 : cap, .words = (n + 63) / 64 };
	int rc = 0;

	s.node_from = calloc((size_t)n + 1, sizeof *s.node_from);
	s.leaf_from = calloc((size_t)nleaf + 1, sizeof *s.leaf_from);
	if (!s.node_from || !s.leaf_from)
		rc = -1;
	for (size_t k = from; rc == 0 && k < v->n; k++) {
		struct ppair *q = &v->p[k];
		int st = slot_place(&s, q->a, q->b, leaf[q->a], leaf[q->b]);

		if (st < 0)
			rc = -1;
		q->step = base + st;
	}
	free(s.busy);
	free(s.load);
	free(s.node_from);
	free(s.leaf_from);
	return rc ? -1 : s.steps;
}

/* ---------------------------------------------------------------- the plan */

/* Every pair by its tier, from the group sizes: those of tier t are the pairs inside its groups
 * less those inside the groups of t - 1. */
static void count_all(const struct tier_groups *tg, int ntiers, long long *all)
{
	long long below = 0;

	for (int t = 0; t < ntiers; t++) {
		long long in = 0;

		for (int g = 0; g < tg[t].ng; g++) {
			long long s = tg[t].first[g + 1] - tg[t].first[g];

			in += s * (s - 1) / 2;
		}
		all[t] = in - below;
		below = in;
	}
}

int plan_bandwidth(const int *group, int ntiers, int n, const struct plan_opts *o, struct plan *p)
{
	struct tier_groups *tg;
	struct pvec v = { 0 };
	int cross, rc = 0;

	memset(p, 0, sizeof *p);
	p->n = n;
	p->ntiers = ntiers;
	if (n < 1 || ntiers < 1 || ntiers > INFER_TIERS_MAX || o->peers < 1 || o->groups < 1 || o->uplink_streams < 1)
		return FP_ERUNTIME;
	if (!(tg = plan_tiers_make(group, ntiers, n)))
		return FP_ERUNTIME;
	count_all(tg, ntiers, p->all_pairs);
	p->intra_steps = intra_pairs(&tg[0], &v);
	size_t nintra = v.n;
	cross_pairs(tg, ntiers, o, &v);
	shuffle(&v, nintra);
	p->cross_bound = v.oom ? -1 : steps_bound(&v, nintra, group, tg[0].ng, n, o->uplink_streams);
	cross = v.oom || p->cross_bound < 0 ? -1 : cross_steps(&v, nintra, group, tg[0].ng, n, o->uplink_streams, p->intra_steps);
	if (cross < 0 || v.n > (size_t)INT_MAX / 2) {
		rc = FP_ERUNTIME;
		goto out;
	}
	/* into the schedule, by step (a counting sort: the order inside a step is the order made) */
	int nsteps = p->intra_steps + cross;
	p->s.n = n;
	p->s.npairs = (int)v.n;
	p->s.nsteps = nsteps;
	p->s.pair = malloc(sizeof *p->s.pair * (v.n + 1));
	p->s.step_first = calloc((size_t)nsteps + 2, sizeof *p->s.step_first);
	if (!p->s.pair || !p->s.step_first) {
		rc = FP_ERUNTIME;
		goto out;
	}
	for (size_t k = 0; k < v.n; k++)
		p->s.step_first[v.p[k].step + 1]++;
	for (int s = 0; s < nsteps; s++)
		p->s.step_first[s + 1] += p->s.step_first[s];
	int *at = malloc(sizeof *at * ((size_t)nsteps + 1));
	if (!at) {
		rc = FP_ERUNTIME;
		goto out;
	}
	memcpy(at, p->s.step_first, sizeof *at * ((size_t)nsteps + 1));
	for (size_t k = 0; k < v.n; k++) {
		const struct ppair *q = &v.p[k];

		p->s.pair[at[q->step]++] = (struct sched_pair){ q->a, q->b };
		p->tier_pairs[infer_pair_tier(group, ntiers, n, q->a, q->b)]++;
	}
	free(at);
out:
	if (rc)
		plan_free(p);
	free(v.p);
	plan_tiers_free(tg, ntiers);
	return rc;
}

/* ---------------------------------------------------------------- predictions */

void plan_predict(const struct plan *p, const struct plan_costs *c, double *lat_s, double *bw_s)
{
	double step = c->step_s + c->step_per_ep_s * p->n;

	*lat_s = (double)sched_rounds(p->n) * (c->lat_pair_s + step);
	*bw_s = (double)p->s.nsteps * (c->bw_pair_s + step);
}

double plan_memory_bytes(int n, int npaths, long long plan_pairs)
{
	double cells = (double)n * n;

	return (double)npaths * 5 * sizeof(float) * cells + sizeof(float) * cells +
	       (double)plan_pairs * sizeof(struct sched_pair) * 2;
}

int plan_same_tree(const int *g1, int t1, const int *g2, int t2, int n)
{
	int same = t1 == t2 && n >= 0 && (n == 0 || (g1 && g2));
	int *to = same && n > 0 ? malloc(sizeof *to * 2 * (size_t)n) : NULL, *from = to ? to + n : NULL;

	if (same && n > 0 && !to)
		return 0; /* out of memory: not known to be the same */
	for (int t = 0; same && t < t1; t++) {
		const int *a = g1 + (size_t)t * n, *b = g2 + (size_t)t * n;

		for (int i = 0; i < n; i++)
			to[i] = from[i] = -1;
		/* a bijection between the groups: a's group i maps to one group of b, and back */
		for (int i = 0; same && i < n; i++) {
			int x = a[i], y = b[i];

			if (x < 0 || y < 0 || x >= n || y >= n)
				same = x == y;
			else if (to[x] < 0 && from[y] < 0) {
				to[x] = y;
				from[y] = x;
			} else {
				same = to[x] == y && from[y] == x;
			}
		}
	}
	free(to);
	return same;
}
