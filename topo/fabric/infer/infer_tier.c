/* infer_tier.c — tier boundaries from the merge tree (infer.h, step 4).
 *
 * Bottom-up. Candidate boundaries are the widest gaps between consecutive merge heights. A
 * candidate is first screened on the tree alone: cut there, every group's parent merge (the
 * mean over all pairs between it and its sibling) is compared with the tier's own level W (the
 * mean over every pair the merges below the cut and above the previous tier join), with the
 * pairs behind each; most groups must stand clear. A candidate that passes is refined: each
 * unit (a node at tier 0, a group of the tier below above it) moves to the group it is
 * closest to on average, or stands alone when no group is near enough. The refined tier is
 * judged: every group must stand sep_z standard errors and sep_step pair sigmas above W from
 * its nearest group; the weakest group that does not is joined to its nearest, until all do.
 * The tier is kept when it still groups some units (at tier 0: at least half the nodes) and
 * splits some connected part. Then two nodes alone whose pair says they share a switch are
 * joined (pair_lone), and a node alone whose pairs say it is its leaf's offset, not a switch of
 * its own, has the tiers chosen again with it placed in that leaf (lone_offset). */
#include <stdlib.h>
#include <string.h>

#include "infer_int.h"
#include "infer_tier_int.h"
#include "core/log.h"

static int below(const struct tier_eval *e, int x, int p)
{
	return x < e->n || e->rank[x - e->n] < p;
}

/* ---------------------------------------------------------------- screening on the tree */

/* Tier level between positions p_lo and p: mean over the pairs those merges join. */
static double level(const struct tier_eval *e, int p_lo, int p, double *cnt)
{
	*cnt = e->pcnt[p] - e->pcnt[p_lo];
	return *cnt > 0 ? (e->psum[p] - e->psum[p_lo]) / *cnt : NAN;
}

int tier_sep_stands(const struct infer_ctx *c, double b, double w, double nb, double nw, double *z)
{
	*z = (b - w) / (c->sigma * sqrt(1 / nb + 1 / nw));
	return *z >= c->o->sep_z && b - w >= c->o->sep_step * c->sigma;
}

/* Does the cut at p (merges of rank < p below it) look like a tier above the one at p_lo? At
 * most a quarter of the nodes may be in groups that do not stand clear of the level. */
static int screen(const struct tier_eval *e, int p, int p_lo, double *theta)
{
	const struct infer_tree *t = e->t;
	double nw, w = level(e, p_lo, p, &nw), z;
	int groups = 0, weak = 0, nb = 0;
	float *b = (float *)e->s; /* scratch: parents' heights */

	if (!(nw > 0))
		return 0;
	for (int x = 0; x < e->n + e->nm; x++) {
		int par = t->parent[x];

		if (!below(e, x, p) || (par >= 0 && below(e, par, p)))
			continue;
		groups++;
		if (par < 0)
			continue;
		if (!tier_sep_stands(e->c, t->h[par - e->n], w, t->cnt[par - e->n], nw, &z))
			weak += t->size[x];
		b[nb++] = (float)t->h[par - e->n];
	}
	if (groups <= e->ncomp || groups >= e->n || 4 * weak > e->n || !nb)
		return 0;
	*theta = (w + infer_select(b, (size_t)nb, (size_t)nb / 2)) / 2;
	return 1;
}

/* ---------------------------------------------------------------- the partition of units */

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* Groups of the cut at p, per unit: the most common among its nodes (a unit of the tier below
 * is nearly always one subtree). Returns the number of groups, -1 when too many. */
static int cut_units(struct tier_eval *e, int p)
{
	const struct infer_tree *t = e->t;
	int n = e->n, g = 0, nu = e->nunit;
	long long *key = (long long *)e->s; /* scratch: n keys fit (grow sizes s for n + 1) */

	for (int x = n + e->nm - 1; x >= 0; x--) { /* parents come after their children */
		int par = t->parent[x];

		e->lab[x] = par >= 0 && below(e, par, p) ? e->lab[par] : x;
		e->gid[x] = -1;
	}
	for (int i = 0; i < n; i++) {
		int r = e->lab[i];

		if (e->gid[r] < 0) {
			if (g == GROUPS_MAX)
				return -1;
			e->gid[r] = g++;
		}
		key[i] = (long long)e->unit[i] * (n + 1) + e->gid[r];
	}
	qsort(key, (size_t)n, sizeof *key, cmp_ll);
	for (int u = 0; u < nu; u++)
		e->ug[u] = -1;
	for (int i = 0, best = 0; i < n;) { /* runs of one (unit, group) */
		int k = i, u = (int)(key[i] / (n + 1));

		while (k < n && key[k] == key[i])
			k++;
		if (e->ug[u] < 0 || k - i > best) {
			e->ug[u] = (int)(key[i] % (n + 1));
			best = k - i;
		}
		i = k;
		if (i < n && key[i] / (n + 1) != u)
			best = 0;
	}
	e->g = g;
	return g;
}

/* Number the groups 0..g-1 in order of first use; returns g. */
static int compact(struct tier_eval *e)
{
	int *map = e->gsize, g = 0, cap = e->g;

	for (int k = 0; k < cap; k++)
		map[k] = -1;
	for (int u = 0; u < e->nunit; u++) {
		if (map[e->ug[u]] < 0)
			map[e->ug[u]] = g++;
		e->ug[u] = map[e->ug[u]];
	}
	for (int k = 0; k < g; k++)
		e->gsize[k] = 0;
	for (int u = 0; u < e->nunit; u++)
		e->gsize[e->ug[u]]++;
	return e->g = g;
}

/* ---------------------------------------------------------------- refinement */

/* Unit u with its sums to each group in s/sc: account the pairs, and choose its group. */
static void place(struct tier_eval *e, int u, double theta, int *fresh)
{
	int g = e->g, own = e->ug[u], best = -1;
	double aown = e->sc[own] > 0 ? e->s[own] / e->sc[own] : NAN, abest = INFINITY;

	for (int k = 0; k < g; k++) {
		e->gg[(size_t)own * g + k] += (float)e->s[k];
		e->gc[(size_t)own * g + k] += (float)e->sc[k];
		if (k != own && e->sc[k] > 0 && e->s[k] / e->sc[k] < abest) {
			abest = e->s[k] / e->sc[k];
			best = k;
		}
	}
	e->newg[u] = own;
	if (!fresh)
		return;
	/* a unit in a group moves only when it is clearly closer to the other (else two halves
	 * of one switch would trade nodes for ever); two units alone and nearest to each other:
	 * the one of the higher group joins. A node whose group is itself and one other rests
	 * there on one pair: it joins a group it meets at that group's level, on more pairs (two
	 * nodes of two switches, their one pair fast by noise or a shorter cable, are no switch) */
	if (e->join && !e->uu && e->join[u]) { /* its being alone is its offset (lone_offset) */
		if (e->gsize[own] == 1 && best >= 0)
			e->newg[u] = best;
		return;
	}
	int clearly = best >= 0 && !(aown <= abest + MOVE_Z * e->c->sigma * sqrt(1 / e->sc[own] + 1 / e->sc[best]));
	int one_pair = !e->uu && e->gsize[own] == 2 && best >= 0 && e->sc[best] > 2 * e->sc[own];
	if (best >= 0 && abest < theta && (e->gsize[own] == 1 || clearly || one_pair) &&
	    !(e->gsize[own] == 1 && e->gsize[best] == 1 && own < best))
		e->newg[u] = best;               /* closer to another group on average */
	else if (e->gsize[own] > 1 && !(aown < theta))
		e->newg[u] = g + (*fresh)++;     /* far from its group, near none: alone */
}

/* Sums of unit u (tier >= 1) to each group, from the unit-pair matrix. */
static void unit_sums(struct tier_eval *e, int u)
{
	const float *su = e->uu + (size_t)u * e->nunit, *cu = e->uc + (size_t)u * e->nunit;

	for (int k = 0; k < e->g; k++)
		e->s[k] = e->sc[k] = 0;
	for (int v = 0; v < e->nunit; v++)
		if (v != u) {
			e->s[e->ug[v]] += su[v];
			e->sc[e->ug[v]] += cu[v];
		}
}

/* One pass: the group sums of the partition, and (fresh != NULL) each unit's new place.
 * Returns the number of units that move. */
static int sweep(struct tier_eval *e, double theta, int *fresh)
{
	const struct infer_ctx *c = e->c;
	int n = e->n, g = e->g, moves = 0;

	memset(e->gg, 0, sizeof *e->gg * (size_t)g * g);
	memset(e->gc, 0, sizeof *e->gc * (size_t)g * g);
	if (e->uu) {
		for (int u = 0; u < e->nunit; u++) {
			unit_sums(e, u);
			place(e, u, theta, fresh);
		}
	} else {
		for (int i0 = 0; i0 < n; i0 += INFER_BLOCK) {
			int i1 = i0 + INFER_BLOCK < n ? i0 + INFER_BLOCK : n;

			ctx_rows(c, i0, i1);
			for (int i = i0; i < i1; i++) {
				const float *row = c->rows + (size_t)(i - i0) * n;

				for (int k = 0; k < g; k++)
					e->s[k] = e->sc[k] = 0;
				for (int j = 0; j < n; j++)
					if (!isnan(row[j])) {
						e->s[e->ug[j]] += row[j];
						e->sc[e->ug[j]] += 1;
					}
				place(e, i, theta, fresh);
			}
		}
	}
	for (int u = 0; u < e->nunit; u++)
		moves += e->newg[u] != e->ug[u];
	return moves;
}

/* W and the median of the groups' nearest between-means: the threshold midway. */
static double threshold(const struct tier_eval *e, double theta)
{
	int g = e->g, nb = 0;
	double ws = 0, wc = 0;
	float *b = (float *)e->s;

	for (int k = 0; k < g; k++) {
		double best = INFINITY;

		ws += e->gg[(size_t)k * g + k];
		wc += e->gc[(size_t)k * g + k];
		for (int h = 0; h < g; h++)
			if (h != k && e->gc[(size_t)k * g + h] > 0)
				best = fmin(best, e->gg[(size_t)k * g + h] / e->gc[(size_t)k * g + h]);
		if (isfinite(best))
			b[nb++] = (float)best;
	}
	if (!(wc > 0) || !nb)
		return theta;
	return (ws / wc + infer_select(b, (size_t)nb, (size_t)nb / 2)) / 2;
}

static int grow(struct tier_eval *e, int g)
{
	float *a = realloc(e->gg, sizeof *a * (size_t)g * g), *b;

	if (!a)
		return -1;
	e->gg = a;
	if (!(b = realloc(e->gc, sizeof *b * (size_t)g * g)))
		return -1;
	e->gc = b;
	double *s = realloc(e->s, sizeof *s * (size_t)(g + e->n + 1)), *sc;
	if (!s)
		return -1;
	e->s = s;
	if (!(sc = realloc(e->sc, sizeof *sc * (size_t)(g + e->n + 1))))
		return -1;
	e->sc = sc;
	return 0;
}

/* Refine the partition in e->ug; leaves e->gg/gc of the final one. */
static int refine(struct tier_eval *e, double *theta)
{
	for (int k = 0; k <= SWEEPS_MAX; k++) {
		int fresh = 0, moves;

		if (compact(e) > GROUPS_MAX || grow(e, e->g))
			return -1;
		moves = sweep(e, *theta, k < SWEEPS_MAX ? &fresh : NULL);
		if (!moves)
			return 0;
		*theta = threshold(e, *theta);
		memcpy(e->ug, e->newg, sizeof *e->ug * (size_t)e->nunit);
		e->g += fresh;
	}
	return 0;
}

/* ---------------------------------------------------------------- the tiers */

/* The accepted tier's groups become the units of the next: their numbers, and the sums
 * between them, which are the tier's group sums (so no pass over the pairs is needed). */
static int next_units(struct tier_eval *e, const int *group)
{
	int n = e->n, g = e->g, nu = 0, *num = e->newg;

	for (int k = 0; k < g; k++)
		num[k] = -1;
	for (int i = 0; i < n; i++) {
		if (num[group[i]] < 0)
			num[group[i]] = nu++;
		e->unit[i] = num[group[i]];
	}
	free(e->uu);
	free(e->uc);
	e->uu = malloc(sizeof *e->uu * (size_t)nu * nu);
	e->uc = malloc(sizeof *e->uc * (size_t)nu * nu);
	if (!e->uu || !e->uc)
		return -1;
	for (int a = 0; a < g; a++)
		for (int b = 0; b < g && num[a] >= 0; b++)
			if (num[b] >= 0) {
				e->uu[(size_t)num[a] * nu + num[b]] = e->gg[(size_t)a * g + b];
				e->uc[(size_t)num[a] * nu + num[b]] = e->gc[(size_t)a * g + b];
			}
	e->nunit = nu;
	return 0;
}

static int cmp_merge(const void *a, const void *b, void *arg)
{
	const struct infer_tree *t = arg;
	int x = *(const int *)a, y = *(const int *)b;

	if (t->heff[x] != t->heff[y])
		return t->heff[x] < t->heff[y] ? -1 : 1;
	return x - y;
}

struct cand {
	int p;
	double gap;
};

static int cmp_gap(const void *a, const void *b)
{
	double x = ((const struct cand *)a)->gap, y = ((const struct cand *)b)->gap;

	return (x < y) - (x > y);
}

static int cmp_pos(const void *a, const void *b)
{
	return ((const struct cand *)a)->p - ((const struct cand *)b)->p;
}

/* Merges in order, prefix sums, connected parts; the widest gaps as candidates. */
static int setup(struct tier_eval *e, struct cand *cd, int *ncd)
{
	const struct infer_tree *t = e->t;
	int n = e->n, nm = e->nm, k = 0;

	for (int m = 0; m < nm; m++)
		e->ord[m] = m;
	qsort_r(e->ord, (size_t)nm, sizeof *e->ord, cmp_merge, (void *)t);
	e->psum[0] = e->pcnt[0] = 0;
	for (int p = 0; p < nm; p++) {
		int m = e->ord[p];

		e->rank[m] = p;
		e->psum[p + 1] = e->psum[p] + t->h[m] * t->cnt[m];
		e->pcnt[p + 1] = e->pcnt[p] + t->cnt[m];
	}
	e->ncomp = 0;
	for (int x = n + nm - 1; x >= 0; x--) {
		e->lab[x] = t->parent[x] < 0 ? x : e->lab[t->parent[x]];
		e->ncomp += t->parent[x] < 0;
	}
	for (int i = 0; i < n; i++)
		e->comp[i] = e->lab[i];
	for (int p = 1; p < nm; p++)
		cd[k++] = (struct cand){ p, t->heff[e->ord[p]] - t->heff[e->ord[p - 1]] };
	qsort(cd, (size_t)k, sizeof *cd, cmp_gap);
	while (k > CAND_MAX || (k > 0 && !(cd[k - 1].gap > 0.05 * e->c->sigma)))
		k--;
	qsort(cd, (size_t)k, sizeof *cd, cmp_pos);
	*ncd = k;
	return 0;
}

/* Tier t from the candidate at p: refine, judge; on success the units become its groups. */
static int try_tier(struct tier_eval *e, int p, double theta, struct infer_tiers *ti, double *band)
{
	struct tier_verdict v = { 0 };
	int t = ti->ntiers, *group = ti->group + (size_t)t * e->n, joined = 0;

	if (cut_units(e, p) < 0 || refine(e, &theta) < 0)
		return 0;
	if (!tier_stands(e, &v, &joined))
		return v.oom ? -1 : 0;
	/* a group too weak to stand was joined whole to its nearest; a node that was in it only
	 * by one fast pair (two nodes of two switches, their pair low by noise or a shorter cable)
	 * now sits with the other's switch: every unit placed again, and the tier judged again */
	if (joined && (refine(e, &theta) < 0 || !tier_stands(e, &v, &joined)))
		return v.oom ? -1 : 0;
	for (int i = 0; i < e->n; i++)
		group[i] = e->ug[e->unit[i]];
	ti->theta[t] = theta;
	ti->sep_z[t] = v.sep_z;
	ti->sep_step[t] = v.sep_step;
	ti->sep_pairs[t] = v.sep_pairs;
	ti->sep_within[t] = v.within;
	ti->wsum[t] = v.wsum;
	ti->wcnt[t] = v.wcnt;
	ti->ntiers++;
	*band = v.bmin;
	return next_units(e, group) ? -1 : 1;
}

static void eval_free(struct tier_eval *e)
{
	free(e->ord);
	free(e->rank);
	free(e->psum);
	free(e->pcnt);
	free(e->comp);
	free(e->lab);
	free(e->gid);
	free(e->unit);
	free(e->uu);
	free(e->uc);
	free(e->ug);
	free(e->newg);
	free(e->gsize);
	free(e->gg);
	free(e->gc);
	free(e->s);
	free(e->sc);
}

/* The median d of node x's pairs that first meet at tier t (n - 1 floats of scratch); NAN when
 * none is measured. y is left out. */
static double row_level(const struct infer_ctx *c, const struct infer_tiers *ti, int x, int y, int t, float *v)
{
	int n = c->n, k = 0;

	for (int z = 0; z < n; z++) {
		float d;

		if (z != x && z != y && infer_pair_tier(ti->group, ti->ntiers, n, x, z) == t && !isnan(d = ctx_d(c, x, z)))
			v[k++] = d;
	}
	return k ? infer_median(v, (size_t)k) : NAN;
}

/* Two nodes alone on their switches at tier t that meet at t + 1, whose pair lies LONE_Z pair
 * sigmas below what each of them measures to the rest of tier t + 1, cannot meet only there:
 * a pair is never faster than the switches between its nodes. They share a tier-t switch, and
 * their link, slower than that tier, is for the suspects to judge. Mutual nearest lone nodes
 * only; a tier made of that one pair was refused already (judge). Returns 0 or FP_ERUNTIME. */
static int pair_lone(const struct infer_ctx *c, struct infer_tiers *ti)
{
	int n = c->n, rc = 0;
	int *size = calloc((size_t)n + 1, sizeof *size), *best = malloc(sizeof *best * ((size_t)n + 1));
	float *v = malloc(sizeof *v * ((size_t)n + 1));

	if (!size || !best || !v) {
		rc = FP_ERUNTIME;
		goto out;
	}
	for (int t = 0; t + 1 < ti->ntiers; t++) {
		int *g = ti->group + (size_t)t * n;

		memset(size, 0, sizeof *size * (size_t)n);
		for (int i = 0; i < n; i++)
			size[g[i]]++; /* group numbers are below n */
		for (int i = 0; i < n; i++) {
			best[i] = -1;
			if (size[g[i]] != 1)
				continue;
			for (int j = 0; j < n; j++)
				if (j != i && size[g[j]] == 1 && infer_pair_tier(ti->group, ti->ntiers, n, i, j) == t + 1 &&
				    !isnan(ctx_d(c, i, j)) && (best[i] < 0 || ctx_d(c, i, j) < ctx_d(c, i, best[i])))
					best[i] = j;
		}
		for (int i = 0; i < n; i++) {
			int j = best[i];
			double d, li, lj;

			if (j <= i || best[j] != i)
				continue;
			d = ctx_d(c, i, j);
			li = row_level(c, ti, i, j, t + 1, v);
			lj = row_level(c, ti, j, i, t + 1, v);
			if (!(li - d >= LONE_Z * c->sigma && lj - d >= LONE_Z * c->sigma))
				continue;
			g[j] = g[i];
			size[g[i]] = 2;
		}
	}
out:
	free(size);
	free(best);
	free(v);
	return rc;
}

/* A node alone at tier 0 whose pairs to its nearest group (of 2 or more, on 2 pairs or more)
 * lie nearer tier 0's level than the level of the tier at which the map joins them: no switch
 * of its own, or those pairs would meet at a tier between (refused: it rested on this node's
 * pairs alone, which are its offset). Seen on the emulated cluster: a node whose pairs to its
 * 5 leaf mates read 26 us where theirs read 23 stood alone, and its 5 pairs at 26 us, modelled
 * at the spine's 47, were named fast links. Marks them in join; returns how many, or -1. */
static int lone_offset(const struct infer_ctx *c, const struct infer_tiers *ti, unsigned char *join)
{
	int n = c->n, T = ti->ntiers, marked = 0;
	const int *g0 = ti->group;
	int *size = calloc((size_t)n + 1, sizeof *size), *rep = malloc(sizeof *rep * ((size_t)n + 1));
	double *sum = malloc(sizeof *sum * ((size_t)n + 1)), *cnt = malloc(sizeof *cnt * ((size_t)n + 1));
	double lev[INFER_TIERS_MAX], rs = c->dsum, rc = c->npairs;

	if (!size || !rep || !sum || !cnt) {
		marked = -1;
		goto out;
	}
	for (int t = 0; t + 1 < T; t++) {
		lev[t] = ti->wcnt[t] > 0 ? ti->wsum[t] / ti->wcnt[t] : NAN;
		rs -= ti->wsum[t];
		rc -= ti->wcnt[t];
	}
	lev[T - 1] = rc > 0 ? rs / rc : NAN;
	for (int i = 0; i < n; i++) {
		size[g0[i]]++; /* group numbers are below n */
		rep[g0[i]] = i;
	}
	for (int a = 0; a < n && T > 1; a++) {
		int best = -1, tj;

		if (size[g0[a]] != 1)
			continue;
		for (int k = 0; k < n; k++)
			sum[k] = cnt[k] = 0;
		for (int j = 0; j < n; j++) {
			float d = j != a && size[g0[j]] > 1 ? ctx_d(c, a, j) : NAN;

			if (!isnan(d)) {
				sum[g0[j]] += d;
				cnt[g0[j]] += 1;
			}
		}
		for (int k = 0; k < n; k++)
			if (cnt[k] >= 2 && (best < 0 || sum[k] / cnt[k] < sum[best] / cnt[best]))
				best = k;
		if (best < 0 || (tj = infer_pair_tier(ti->group, T, n, a, rep[best])) < 1 || tj >= T)
			continue;
		if (sum[best] / cnt[best] < (lev[0] + lev[tj]) / 2) {
			join[a] = 1;
			marked++;
		}
	}
out:
	free(size);
	free(rep);
	free(sum);
	free(cnt);
	return marked;
}

static int tiers_choose(const struct infer_ctx *c, const struct infer_tree *t, struct infer_tiers *ti,
			const unsigned char *join);

/* The tiers; chosen once more, with the nodes lone_offset marks placed with their nearest
 * group at tier 0, when it marks any. */
int infer_tiers_choose(const struct infer_ctx *c, const struct infer_tree *t, struct infer_tiers *ti)
{
	unsigned char *join;
	int rc, k;

	if ((rc = tiers_choose(c, t, ti, NULL)) || ti->ntiers < 2)
		return rc;
	if (!(join = calloc((size_t)c->n + 1, 1)))
		return FP_ERUNTIME;
	k = lone_offset(c, ti, join);
	rc = k < 0 ? FP_ERUNTIME : k > 0 ? tiers_choose(c, t, ti, join) : 0;
	free(join);
	return rc;
}

static int tiers_choose(const struct infer_ctx *c, const struct infer_tree *t, struct infer_tiers *ti,
			const unsigned char *join)
{
	int n = c->n, nm = t->nm, ncd = 0, p_lo = 0, rc = FP_ERUNTIME;
	struct tier_eval e = { .c = c, .t = t, .n = n, .nm = nm, .join = join };
	struct cand *cd = malloc(sizeof *cd * (size_t)(nm + 1));
	double band = -INFINITY;

	ti->ntiers = 0;
	e.ord = malloc(sizeof *e.ord * (size_t)(nm + 1));
	e.rank = malloc(sizeof *e.rank * (size_t)(nm + 1));
	e.psum = malloc(sizeof *e.psum * (size_t)(nm + 1));
	e.pcnt = malloc(sizeof *e.pcnt * (size_t)(nm + 1));
	e.comp = malloc(sizeof *e.comp * (size_t)n);
	e.lab = malloc(sizeof *e.lab * (size_t)(n + nm));
	e.gid = malloc(sizeof *e.gid * (size_t)(n + nm));
	e.unit = malloc(sizeof *e.unit * (size_t)n);
	e.ug = malloc(sizeof *e.ug * (size_t)n);
	e.newg = malloc(sizeof *e.newg * (size_t)n);
	e.gsize = malloc(sizeof *e.gsize * (size_t)(2 * n + 1));
	if (!cd || !e.ord || !e.rank || !e.psum || !e.pcnt || !e.comp || !e.lab || !e.gid || !e.unit || !e.ug || !e.newg ||
	    !e.gsize || grow(&e, 1) || setup(&e, cd, &ncd))
		goto out;
	for (int i = 0; i < n; i++)
		e.unit[i] = i;
	e.nunit = n;
	for (int k = 0; k < ncd && ti->ntiers < INFER_TIERS_MAX - 1; k++) {
		double theta, mid = (t->heff[e.ord[cd[k].p]] + t->heff[e.ord[cd[k].p - 1]]) / 2;
		int got;

		if (cd[k].p <= p_lo || mid <= band || (ti->ntiers && e.nunit > GROUPS_MAX) ||
		    !screen(&e, cd[k].p, p_lo, &theta))
			continue;
		if ((got = try_tier(&e, cd[k].p, theta, ti, &band)) < 0)
			goto out;
		if (got)
			p_lo = cd[k].p;
	}
	/* the top: one group per connected part */
	for (int x = 0; x < n + nm; x++)
		e.gid[x] = -1;
	for (int i = 0, k = 0; i < n; i++) {
		if (e.gid[e.comp[i]] < 0)
			e.gid[e.comp[i]] = k++;
		ti->group[(size_t)ti->ntiers * n + i] = e.gid[e.comp[i]];
	}
	ti->theta[ti->ntiers] = INFINITY;
	ti->sep_z[ti->ntiers] = ti->sep_step[ti->ntiers] = NAN;
	ti->sep_pairs[ti->ntiers] = ti->sep_within[ti->ntiers] = 0;
	ti->ntiers++;
	rc = pair_lone(c, ti);
out:
	free(cd);
	eval_free(&e);
	return rc;
}
