/* plan.c — see plan.h. */
#include "plan.h"

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

/* The members of every group of one tier, by group: mem[first[g] .. first[g + 1] - 1], in node
 * order; and each group's parent (its group at the tier above; -1 at the top). */
struct tier_groups {
	int ng;
	int *first, *mem, *parent;
};

static void tiers_free(struct tier_groups *tg, int ntiers)
{
	for (int t = 0; tg && t < ntiers; t++) {
		free(tg[t].first);
		free(tg[t].mem);
		free(tg[t].parent);
	}
	free(tg);
}

/* Group numbers are taken as they come (0 .. max); a negative one is refused. */
static struct tier_groups *tiers_make(const int *group, int ntiers, int n)
{
	struct tier_groups *tg = calloc((size_t)ntiers, sizeof *tg);

	for (int t = 0; tg && t < ntiers; t++) {
		const int *g = group + (size_t)t * (size_t)n;
		int ng = 0;

		for (int i = 0; i < n; i++) {
			if (g[i] < 0 || g[i] >= n) {
				tiers_free(tg, ntiers);
				return NULL;
			}
			ng = g[i] + 1 > ng ? g[i] + 1 : ng;
		}
		tg[t].ng = ng;
		tg[t].first = calloc((size_t)ng + 1, sizeof *tg[t].first);
		tg[t].mem = malloc(sizeof *tg[t].mem * ((size_t)n + 1));
		tg[t].parent = malloc(sizeof *tg[t].parent * ((size_t)ng + 1));
		if (!tg[t].first || !tg[t].mem || !tg[t].parent) {
			tiers_free(tg, ntiers);
			return NULL;
		}
		for (int i = 0; i < n; i++)
			tg[t].first[g[i] + 1]++;
		for (int k = 0; k < ng; k++)
			tg[t].first[k + 1] += tg[t].first[k];
		int *at = malloc(sizeof *at * ((size_t)ng + 1));
		if (!at) {
			tiers_free(tg, ntiers);
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
	if (!(tg = tiers_make(group, ntiers, n)))
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
	tiers_free(tg, ntiers);
	return rc;
}

/* ---------------------------------------------------------------- the promises */

#define BROKEN(...) do { snprintf(why, len, __VA_ARGS__); rc = -1; goto out; } while (0)

/* Pairs sorted by (a, b), to find one twice and a node's peers. */
static int pair_cmp(const void *x, const void *y)
{
	const struct sched_pair *a = x, *b = y;

	return a->a != b->a ? (a->a > b->a) - (a->a < b->a) : (a->b > b->b) - (a->b < b->b);
}

/* 1 when pair (a, b) is in the sorted list */
static int has_pair(const struct sched_pair *s, int np, int a, int b)
{
	struct sched_pair key = { a < b ? a : b, a < b ? b : a };

	return bsearch(&key, s, (size_t)np, sizeof *s, pair_cmp) != NULL;
}

/* Each group's leaves (tier 0: 1), for the caps above the leaves: off[t] + g. */
static long long *leaves_per_group(const struct tier_groups *tg, int ntiers, const int *group, int n, int *off)
{
	long long *nl;
	int total = 0;

	for (int t = 0; t < ntiers; t++) {
		off[t] = total;
		total += tg[t].ng;
	}
	if (!(nl = calloc((size_t)total + 1, sizeof *nl)))
		return NULL;
	for (int l = 0; l < tg[0].ng; l++) {
		if (tg[0].first[l + 1] == tg[0].first[l])
			continue;
		for (int t = 0, m0 = tg[0].mem[tg[0].first[l]]; t < ntiers; t++)
			nl[off[t] + group[(size_t)t * n + m0]]++;
	}
	return nl;
}

int plan_check(const struct plan *p, const int *group, int ntiers, int n, const struct plan_opts *o, char *why,
	       size_t len)
{
	struct tier_groups *tg = tiers_make(group, ntiers, n);
	int np = p->s.npairs, rc = 0, off[INFER_TIERS_MAX + 1];
	int *seen = calloc((size_t)n + 1, sizeof *seen), *deg = calloc((size_t)n + 2, sizeof *deg), *adj = NULL;
	int *cnt = NULL, *mark = NULL;
	long long *load = NULL, *nl = NULL;
	unsigned char *carried = NULL;
	struct sched_pair *sorted = malloc(sizeof *sorted * ((size_t)np + 1));

	if (!tg || !seen || !deg || !sorted || !(nl = leaves_per_group(tg, ntiers, group, n, off)))
		BROKEN("out of memory");
	off[ntiers] = off[ntiers - 1] + tg[ntiers - 1].ng;
	if (!(load = calloc((size_t)off[ntiers] + 1, sizeof *load)) || !(carried = calloc((size_t)off[ntiers] + 1, 1)))
		BROKEN("out of memory");
	/* the steps: disjoint, and no uplink over its cap; which uplinks carry a pair */
	for (int s = 0; s < p->s.nsteps; s++) {
		for (int k = p->s.step_first[s]; k < p->s.step_first[s + 1]; k++) {
			int a = p->s.pair[k].a, b = p->s.pair[k].b, T;

			if (a < 0 || b >= n || a >= b)
				BROKEN("step %d: pair (%d, %d) out of order or range", s, a, b);
			if (seen[a] == s + 1 || seen[b] == s + 1)
				BROKEN("step %d: node %d in two pairs", s, seen[a] == s + 1 ? a : b);
			seen[a] = seen[b] = s + 1;
			deg[a]++, deg[b]++;
			if ((T = infer_pair_tier(group, ntiers, n, a, b)) >= ntiers)
				BROKEN("step %d: pair (%d, %d) has no common group", s, a, b);
			for (int t = 0; t < T; t++)
				for (int x = 0; x < 2; x++) {
					int g = off[t] + group[(size_t)t * n + (x ? b : a)];

					carried[g] = 1;
					if (++load[g] > nl[g] * o->uplink_streams)
						BROKEN("step %d: group %d of tier %d carries %lld streams, above its cap "
						       "%lld (%lld leaves)", s, g - off[t], t, load[g],
						       nl[g] * o->uplink_streams, nl[g]);
				}
		}
		for (int k = p->s.step_first[s]; k < p->s.step_first[s + 1]; k++) /* back to 0 */
			for (int t = 0; t < ntiers; t++) {
				load[off[t] + group[(size_t)t * n + p->s.pair[k].a]] = 0;
				load[off[t] + group[(size_t)t * n + p->s.pair[k].b]] = 0;
			}
	}
	/* no pair twice; every pair inside a leaf */
	memcpy(sorted, p->s.pair, sizeof *sorted * (size_t)np);
	qsort(sorted, (size_t)np, sizeof *sorted, pair_cmp);
	for (int k = 1; k < np; k++)
		if (!pair_cmp(&sorted[k - 1], &sorted[k]))
			BROKEN("pair (%d, %d) planned twice", sorted[k].a, sorted[k].b);
	for (int g = 0; g < tg[0].ng; g++)
		for (int i = tg[0].first[g]; i < tg[0].first[g + 1]; i++)
			for (int j = i + 1; j < tg[0].first[g + 1]; j++)
				if (!has_pair(sorted, np, tg[0].mem[i], tg[0].mem[j]))
					BROKEN("leaf %d: pair (%d, %d) not planned", g, tg[0].mem[i], tg[0].mem[j]);
	/* every node against min(peers, |h|) nodes of each sibling group h, each tier: its peers by
	 * their group of the tier below, from the pairs as lists per node */
	for (int i = n; i > 0; i--) /* deg[i]: where node i's peers start, deg[n] all of them */
		deg[i] = deg[i - 1];
	deg[0] = 0;
	for (int i = 0; i < n; i++)
		deg[i + 1] += deg[i];
	if (!(adj = malloc(sizeof *adj * (2 * (size_t)np + 1))) || !(cnt = calloc((size_t)n + 1, sizeof *cnt)) ||
	    !(mark = calloc((size_t)n + 1, sizeof *mark)))
		BROKEN("out of memory");
	memcpy(seen, deg, sizeof *seen * (size_t)n); /* each node's next free place */
	for (int k = 0; k < np; k++) {
		adj[seen[p->s.pair[k].a]++] = p->s.pair[k].b;
		adj[seen[p->s.pair[k].b]++] = p->s.pair[k].a;
	}
	for (int t = 1; t < ntiers; t++) {
		const struct tier_groups *c = &tg[t - 1];
		const int *gb = group + (size_t)(t - 1) * n;
		int *kids = calloc((size_t)tg[t].ng + 1, sizeof *kids), *list = malloc(sizeof *list * ((size_t)n + 1));
		unsigned char *met = calloc((size_t)c->ng * (size_t)c->ng + 1, 1);

		if (!kids || !list || !met) {
			free(kids), free(list), free(met);
			BROKEN("out of memory");
		}
		for (int g = 0; g < c->ng; g++)
			kids[c->parent[g]] += c->first[g + 1] > c->first[g];
		memset(mark, 0, sizeof *mark * (size_t)n);
		for (int a = 0; a < n && rc == 0; a++) {
			int nl = 0, full = 0, S = kids[c->parent[gb[a]]], m = o->groups < S - 1 ? o->groups : S - 1;

			for (int k = deg[a]; k < deg[a + 1]; k++) {
				int h = gb[adj[k]];

				if (h == gb[a] || c->parent[h] != c->parent[gb[a]])
					continue; /* inside its own group, or at a tier above */
				met[(size_t)gb[a] * c->ng + h] = 1;
				if (mark[h] != a + 1)
					mark[h] = a + 1, cnt[h] = 0, list[nl++] = h;
				cnt[h]++;
			}
			for (int x = 0; x < nl; x++) {
				int sh = c->first[list[x] + 1] - c->first[list[x]];

				full += cnt[list[x]] >= (o->peers < sh ? o->peers : sh);
			}
			if (full < m) {
				snprintf(why, len, "tier %d: node %d against enough nodes of %d sibling groups, not %d", t,
					 a, full, m);
				rc = -1;
			}
		}
		/* two siblings meet where the first's nodes can reach every sibling */
		for (int g = 0; g < c->ng && rc == 0; g++) {
			int S = kids[c->parent[g]], sg = c->first[g + 1] - c->first[g];

			if (sg == 0 || (long)o->groups * sg < S - 1)
				continue;
			for (int h = 0; h < c->ng && rc == 0; h++)
				if (h != g && c->parent[h] == c->parent[g] && c->first[h + 1] > c->first[h] &&
				    !met[(size_t)g * c->ng + h] && !met[(size_t)h * c->ng + g]) {
					snprintf(why, len, "tier %d: sibling groups %d and %d never meet", t, g, h);
					rc = -1;
				}
		}
		free(kids);
		free(list);
		free(met);
		if (rc)
			goto out;
	}
	/* every group below the top that has a sibling carries a pair across its uplink */
	for (int t = 0; t + 1 < ntiers; t++) {
		int *kids = calloc((size_t)tg[t + 1].ng + 1, sizeof *kids);

		if (!kids)
			BROKEN("out of memory");
		for (int g = 0; g < tg[t].ng; g++)
			kids[tg[t].parent[g]] += tg[t].first[g + 1] > tg[t].first[g];
		for (int g = 0; g < tg[t].ng && rc == 0; g++)
			if (kids[tg[t].parent[g]] > 1 && !carried[off[t] + g]) {
				snprintf(why, len, "tier %d: group %d has a sibling and no planned pair across its uplink",
					 t, g);
				rc = -1;
			}
		free(kids);
		if (rc)
			goto out;
	}
out:
	tiers_free(tg, ntiers);
	free(seen);
	free(deg);
	free(adj);
	free(cnt);
	free(mark);
	free(sorted);
	free(load);
	free(nl);
	free(carried);
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
