/* infer_tier_judge.c — whether a refined tier stands (infer_tier_int.h): every group sep_z
 * standard errors and sep_step pair sigmas above the tier's level from its nearest group, the
 * weakest joined to its nearest until all do; a tier that rests on one node, or that the noise
 * explains (tier_fits), does not stand. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "infer_int.h"
#include "infer_tier_int.h"

/* ---------------------------------------------------------------- the judgement */

struct tier_test {
	int g, *alive, *near, *fwd;
	float *b;       /* scratch: the groups' nearest means */
	double ws, wc;  /* within sums and ordered counts */
	int *head, *tail, *next, *size; /* per group: its nodes, a list; per node: the next */
};

static double mean_between(const struct tier_eval *e, int a, int b)
{
	size_t k = (size_t)a * e->g + b;

	return e->gc[k] > 0 ? e->gg[k] / e->gc[k] : INFINITY;
}

static void find_near(const struct tier_eval *e, struct tier_test *j, int a)
{
	double best = INFINITY;

	j->near[a] = -1;
	for (int h = 0; h < j->g; h++)
		if (h != a && j->alive[h] && mean_between(e, a, h) < best) {
			best = mean_between(e, a, h);
			j->near[a] = h;
		}
}

/* Join group b into a: sums, the within level, the nearest neighbours. */
static void join(struct tier_eval *e, struct tier_test *j, int a, int b)
{
	int g = j->g;

	j->ws += 2 * e->gg[(size_t)a * g + b];
	j->wc += 2 * e->gc[(size_t)a * g + b];
	e->gg[(size_t)a * g + a] += e->gg[(size_t)b * g + b] + 2 * e->gg[(size_t)a * g + b];
	e->gc[(size_t)a * g + a] += e->gc[(size_t)b * g + b] + 2 * e->gc[(size_t)a * g + b];
	for (int k = 0; k < g; k++)
		if (k != a && k != b) {
			e->gg[(size_t)a * g + k] = e->gg[(size_t)k * g + a] += e->gg[(size_t)k * g + b];
			e->gc[(size_t)a * g + k] = e->gc[(size_t)k * g + a] += e->gc[(size_t)k * g + b];
		}
	j->alive[b] = 0;
	j->fwd[b] = a;
	j->next[j->tail[a]] = j->head[b];
	j->tail[a] = j->tail[b];
	j->size[a] += j->size[b];
	for (int k = 0; k < g; k++)
		if (j->alive[k] && k != a) {
			if (j->near[k] == a || j->near[k] == b)
				find_near(e, j, k);
			else if (j->near[k] < 0 || mean_between(e, k, a) < mean_between(e, k, j->near[k]))
				j->near[k] = a;
		}
	find_near(e, j, a);
}

/* Of the measured pairs between groups a and h, the share above mid. */
static double share_above(const struct tier_eval *e, const struct tier_test *j, int a, int h, double mid)
{
	int above = 0, all = 0;

	for (int x = j->head[a]; x >= 0; x = j->next[x])
		for (int y = j->head[h]; y >= 0; y = j->next[y]) {
			float v = ctx_d(e->c, x, y);

			if (!isnan(v)) {
				all++;
				above += v > mid;
			}
		}
	return all ? (double)above / all : 0;
}

/* The weakest group that does not stand clear, or -1; fills the evidence of the others. A
 * group stands clear when its nearest group's mean is sep_z standard errors and sep_step
 * sigmas above the tier's level W, and nearer the tier's between level B (the groups' median
 * nearest mean) than W: a group whose nearest is just above W (one slow pair can do that) is
 * no switch of its own. Where either group holds a few nodes only, most pairs between them
 * must be nearer B than W too: a mean of two pairs can stand on one slow pair. */
static int weakest(const struct tier_eval *e, const struct tier_test *j, struct tier_verdict *v)
{
	const struct infer_ctx *c = e->c;
	double w = j->ws / j->wc, nw = j->wc / 2, worst = 1, mid;
	int weak = -1, nb = 0;

	for (int k = 0; k < j->g; k++)
		if (j->alive[k] && j->near[k] >= 0)
			j->b[nb++] = (float)(e->gg[(size_t)k * j->g + j->near[k]] / e->gc[(size_t)k * j->g + j->near[k]]);
	mid = nb ? (w + infer_median(j->b, (size_t)nb)) / 2 : w;
	v->sep_z = v->sep_step = v->bmin = INFINITY;
	for (int k = 0; k < j->g; k++) {
		if (!j->alive[k] || j->near[k] < 0)
			continue;
		size_t kb = (size_t)k * j->g + j->near[k];
		double b = e->gg[kb] / e->gc[kb], z, score;

		tier_sep_stands(c, b, w, e->gc[kb], nw, &z);
		score = fmin(fmin(z / c->o->sep_z, (b - w) / (c->o->sep_step * c->sigma)), (b - w) / (mid - w));
		if (score >= 1 && (j->size[k] <= TIER_FEW || j->size[j->near[k]] <= TIER_FEW))
			score = fmin(score, share_above(e, j, k, j->near[k], mid) / 0.5 - 1e-9);
		if (score < worst) {
			worst = score;
			weak = k;
		}
		if (z < v->sep_z) {
			v->sep_z = z;
			v->sep_pairs = (long long)e->gc[kb];
		}
		v->sep_step = fmin(v->sep_step, (b - w) / c->sigma);
		v->bmin = fmin(v->bmin, b);
	}
	v->within = (long long)nw;
	return weak;
}

/* Nodes in groups of two or more: at tier 0, most nodes share a switch with another, or the
 * "tier" is a handful of pairs that happen to be low (noise, a node's offset misjudged). */
static int grouped(const struct tier_test *j)
{
	int k = 0;

	for (int g = 0; g < j->g; g++)
		k += j->alive[g] && j->size[g] > 1 ? j->size[g] : 0;
	return k;
}

/* Above the leaf: whether every pair the tier joins (between units of one group) has one
 * node in it. Such a "tier" is that node's offset, not a switch level: a node slower to its
 * leaf mates than they are to each other splits its leaf only when nothing else says so
 * (docs/latency-map.md: no tier rests on one pair, nor on one node's pairs). Counts nodes, not
 * measured pairs. -1: out of memory. */
static int rests_on_one_node(const struct tier_eval *e, const struct tier_test *j)
{
	int n = e->n, *usize = calloc((size_t)e->nunit + 1, sizeof *usize);
	double *sq = calloc((size_t)j->g + 1, sizeof *sq), total = 0, most = 0;

	if (!usize || !sq) {
		free(usize);
		free(sq);
		return -1;
	}
	for (int i = 0; i < n; i++)
		usize[e->unit[i]]++;
	for (int u = 0; u < e->nunit; u++)
		sq[e->ug[u]] += (double)usize[u] * usize[u];
	for (int k = 0; k < j->g; k++)
		if (j->alive[k])
			total += ((double)j->size[k] * j->size[k] - sq[k]) / 2;
	for (int i = 0; i < n; i++) {
		double own = j->size[e->ug[e->unit[i]]] - usize[e->unit[i]];

		most = own > most ? own : most;
	}
	free(usize);
	free(sq);
	return total > 0 && most >= total;
}

/* The tier as a model of its pairs (docs/latency-map.md, "A tier is a model of its pairs"):
 * each pair the tier joins lies at its level W, each pair between a group and its nearest at
 * their mean b, both within the pair noise. Then a pair between groups falls on the wrong side
 * of the midway (W + b) / 2 with the chance Phi(-(b - W) / (2 sigma)) and no more; a pair the
 * tier joins is held to the lowest b of any group (pairs there are between groups, says the
 * tier, wherever they are), so one fast pair cannot split a leaf that its siblings' pairs,
 * at the same level, keep whole. A switch tier is a block structure; pair offsets that follow
 * no switch (ECMP paths of two lengths, a host's spells) split a leaf only into groups whose
 * pairs cross the midway far more often than that: the tier is refused. The test counts the
 * pairs, or a sample of about FIT_SAMPLE of them (every stride-th of each row) on large
 * fabrics, once per tier judged. Returns 1 when the tier's pairs fit it, 0 when not, -1 when
 * out of memory (no tier stands untested). */
static int tier_fits(const struct tier_eval *e, const struct tier_test *j)
{
	const struct infer_ctx *c = e->c;
	double w = j->ws / j->wc, m = 0, bad = 0, expect = 0, var = 0, bmin = INFINITY, pw;
	int n = e->n, g = j->g, *gn = malloc(sizeof *gn * (size_t)n);
	int stride = (int)(tri(n, 0) / FIT_SAMPLE + 1); /* a sample of every stride-th pair */
	double *bn = malloc(sizeof *bn * (size_t)g), *pn = malloc(sizeof *pn * (size_t)g);

	if (!gn || !bn || !pn) {
		free(gn);
		free(bn);
		free(pn);
		return -1;
	}
	for (int x = 0; x < n; x++)
		gn[x] = e->ug[e->unit[x]];
	for (int k = 0; k < g; k++) { /* per group: its nearest's mean and the chance of a cross */
		bn[k] = j->alive[k] && j->near[k] >= 0 ? mean_between(e, k, j->near[k]) : INFINITY;
		pn[k] = isfinite(bn[k]) && bn[k] > w ? 0.5 * erfc((bn[k] - w) / (2 * c->sigma) / sqrt(2)) : -1;
		if (pn[k] >= 0 && bn[k] < bmin)
			bmin = bn[k];
	}
	pw = isfinite(bmin) ? 0.5 * erfc((bmin - w) / (2 * c->sigma) / sqrt(2)) : -1;
	for (int x = 1; x < n; x++) {
		const float *row = c->d + tri(x, 0);

		for (int y = x % stride; y < x; y += stride) {
			int gx = gn[x], gy = gn[y], k;
			float d = row[y];
			double p;

			if (gx == gy)
				k = e->unit[x] != e->unit[y] ? gx : -1;
			else
				k = j->near[gx] == gy ? gx : j->near[gy] == gx ? gy : -1;
			if (k < 0 || isnan(d) || e->comp[x] != e->comp[y] || (p = gx == gy ? pw : pn[k]) < 0)
				continue;
			m++;
			expect += p;
			var += p * (1 - p);
			bad += gx == gy ? d > (w + bmin) / 2 : d < (w + bn[k]) / 2;
		}
	}
	free(gn);
	free(bn);
	free(pn);
	return bad <= expect + FIT_Z * sqrt(var) + FIT_SLACK * m + 1;
}

/* Whether the partition in e->ug stands as a tier, the weak groups joined to their nearest
 * first (their count into *joined); the evidence into v. */
int tier_stands(struct tier_eval *e, struct tier_verdict *v, int *joined)
{
	int g = e->g, joins = 0, alive = g;
	struct tier_test j = { .g = g };

	v->ok = 0;
	j.alive = malloc(sizeof *j.alive * (size_t)g);
	j.near = malloc(sizeof *j.near * (size_t)g);
	j.fwd = malloc(sizeof *j.fwd * (size_t)g);
	j.b = malloc(sizeof *j.b * (size_t)g);
	j.head = malloc(sizeof *j.head * (size_t)g);
	j.tail = malloc(sizeof *j.tail * (size_t)g);
	j.size = calloc((size_t)g, sizeof *j.size);
	j.next = malloc(sizeof *j.next * (size_t)e->n);
	if (!j.alive || !j.near || !j.fwd || !j.b || !j.head || !j.tail || !j.size || !j.next) {
		v->oom = 1;
		goto out;
	}
	for (int k = 0; k < g; k++) {
		j.alive[k] = 1;
		j.fwd[k] = k;
		j.head[k] = -1;
		j.ws += e->gg[(size_t)k * g + k];
		j.wc += e->gc[(size_t)k * g + k];
	}
	for (int i = e->n - 1; i >= 0; i--) { /* each group's nodes, a list */
		int k = e->ug[e->unit[i]];

		if (j.head[k] < 0)
			j.tail[k] = i;
		j.next[i] = j.head[k];
		j.head[k] = i;
		j.size[k]++;
	}
	if (!(j.wc > 0))
		goto out;
	for (int k = 0; k < g; k++)
		find_near(e, &j, k);
	for (int k; (k = weakest(e, &j, v)) >= 0; alive--) {
		if (2 * ++joins > g)
			goto out;
		join(e, &j, j.near[k], k);
	}
	for (int u = 0; u < e->nunit; u++) {
		int k = e->ug[u];

		while (j.fwd[k] != k)
			k = j.fwd[k];
		e->ug[u] = k;
	}
	/* at tier 0 most nodes share a switch; above it, no tier rests on one pair or on one
	 * node's pairs (docs/latency-map.md: one pair between two lone nodes is a link, slow or not:
	 * pair_lone decides; one node's pairs are its offset, a slow node) */
	int one = 0, fits = 0;

	v->ok = alive > e->ncomp && alive < e->nunit && isfinite(v->sep_z) &&
		(e->uu ? j.wc / 2 >= 2 && (one = rests_on_one_node(e, &j)) == 0 : grouped(&j) * 2 >= e->n) &&
		(fits = tier_fits(e, &j)) == 1;
	v->oom = one < 0 || fits < 0;
	v->wsum = j.ws / 2;
	v->wcnt = j.wc / 2;
	*joined = joins;
out:
	free(j.alive);
	free(j.near);
	free(j.fwd);
	free(j.b);
	free(j.head);
	free(j.tail);
	free(j.size);
	free(j.next);
	return v->ok;
}

