/* infer_link.c — average linkage (UPGMA) by the nearest-neighbour chain, over measured pairs
 * only. The distance between two clusters is the mean d over the measured pairs between them;
 * merging a and b gives, for every other cluster k, the mean weighted by pair counts. Average
 * linkage is reducible, so the chain finds exactly the merges of the textbook algorithm in
 * O(N²) time, working in place on the triangle (plus a triangle of pair counts when some
 * pairs are unmeasured; without them a count is the product of the cluster sizes). */
#include <stdlib.h>
#include <string.h>

#include "infer_int.h"
#include "core/log.h"

#define LINK_AHEAD 16 /* active clusters to prefetch ahead in a column */

struct link_state {
	int n;
	float *d, *cnt;  /* triangles; cnt NULL = every pair measured */
	int *size;       /* per slot: nodes in its cluster */
	int *node;       /* per slot: its tree node */
	int *act, na;    /* active slots, ascending */
};

static inline size_t at(int a, int b)
{
	return a > b ? tri(a, b) : tri(b, a);
}

static inline double pairs_of(const struct link_state *s, int a, int b)
{
	return s->cnt ? s->cnt[at(a, b)] : (double)s->size[a] * s->size[b];
}

/* distance: d holds +inf where no pair between the two clusters was measured */
static inline float dist(const struct link_state *s, int a, int b)
{
	return s->d[at(a, b)];
}

/* The active cluster nearest to a; prev (the chain's previous element, or -1) wins ties, so
 * the chain never cycles. -1 when nothing measured is left near a. */
static int nearest(const struct link_state *s, int a, int prev, float *dmin)
{
	float best = prev >= 0 ? dist(s, a, prev) : INFINITY;
	int bk = prev >= 0 && isfinite(best) ? prev : -1, x = 0;
	const float *row = s->d + tri(a, 0);

	for (; x < s->na && s->act[x] < a; x++) /* the active list is sorted: row a first */
		if (row[s->act[x]] < best) {
			best = row[s->act[x]];
			bk = s->act[x];
		}
	if (x < s->na && s->act[x] == a)
		x++;
	for (; x < s->na; x++) { /* then column a of the rows below: a cache line each */
		int k = s->act[x];
		float v = s->d[tri(k, a)];

		if (x + LINK_AHEAD < s->na)
			__builtin_prefetch(s->d + tri(s->act[x + LINK_AHEAD], a));
		if (v < best) {
			best = v;
			bk = k;
		}
	}
	*dmin = best;
	return bk;
}

static void deactivate(struct link_state *s, int a)
{
	int lo = 0, hi = s->na - 1;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (s->act[mid] < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(s->act + lo, s->act + lo + 1, sizeof *s->act * (size_t)(s->na - lo - 1));
	s->na--;
}

/* Merge slot b into slot a (both active): the record, then the distances of a. */
static void merge(struct link_state *s, struct infer_tree *t, int a, int b)
{
	int m = t->nm++, tn = t->n + m;
	double wa = s->size[a], wb = s->size[b];

	t->left[m] = s->node[a];
	t->right[m] = s->node[b];
	t->h[m] = s->d[at(a, b)];
	t->cnt[m] = pairs_of(s, a, b);
	t->parent[s->node[a]] = t->parent[s->node[b]] = tn;
	t->parent[tn] = -1;
	t->size[tn] = s->size[a] + s->size[b];
	double hl = s->node[a] >= t->n ? t->heff[s->node[a] - t->n] : -INFINITY;
	double hr = s->node[b] >= t->n ? t->heff[s->node[b] - t->n] : -INFINITY;
	t->heff[m] = fmax(t->h[m], fmax(hl, hr));
	for (int x = 0; x < s->na; x++) {
		int k = s->act[x];
		size_t ka = at(a, k), kb = at(b, k);

		if (x + LINK_AHEAD < s->na) { /* columns: a cache line each */
			int f = s->act[x + LINK_AHEAD];

			__builtin_prefetch(s->d + at(a, f), 1);
			__builtin_prefetch(s->d + at(b, f));
			if (s->cnt) {
				__builtin_prefetch(s->cnt + at(a, f), 1);
				__builtin_prefetch(s->cnt + at(b, f));
			}
		}
		if (k == a || k == b)
			continue;
		if (s->cnt) {
			wa = s->cnt[ka];
			wb = s->cnt[kb];
			s->cnt[ka] = (float)(wa + wb);
			if (!(wa + wb > 0))
				continue; /* still +inf */
			if (!(wa > 0))
				s->d[ka] = s->d[kb];
			else if (wb > 0)
				s->d[ka] = (float)((s->d[ka] * wa + s->d[kb] * wb) / (wa + wb));
			continue;
		}
		s->d[ka] = (float)((s->d[ka] * wa + s->d[kb] * wb) / (wa + wb));
	}
	s->size[a] += s->size[b];
	s->node[a] = tn;
	deactivate(s, b);
}

static void chain_run(struct link_state *s, struct infer_tree *t, int *chain)
{
	int len = 0;

	while (s->na > 1) {
		float dmin;

		if (!len)
			chain[len++] = s->act[0];
		int a = chain[len - 1], prev = len > 1 ? chain[len - 2] : -1;
		int b = nearest(s, a, prev, &dmin);

		if (b < 0) { /* nothing measured joins a to the rest: a is a root */
			deactivate(s, a);
			len--;
		} else if (b == prev) {
			len -= 2;
			merge(s, t, a > b ? a : b, a > b ? b : a); /* into the later row: more of it in order */
		} else
			chain[len++] = b;
	}
}

int infer_link(struct infer_ctx *c, struct infer_tree *t)
{
	int n = c->n, tn = 2 * n;
	size_t np = tri(n, 0);
	struct link_state s = { .n = n, .d = c->d };
	int *chain = malloc(sizeof *chain * (size_t)n);

	memset(t, 0, sizeof *t);
	t->n = n;
	t->left = malloc(sizeof *t->left * (size_t)n);
	t->right = malloc(sizeof *t->right * (size_t)n);
	t->parent = malloc(sizeof *t->parent * (size_t)tn);
	t->h = malloc(sizeof *t->h * (size_t)n);
	t->cnt = malloc(sizeof *t->cnt * (size_t)n);
	t->heff = malloc(sizeof *t->heff * (size_t)n);
	t->size = malloc(sizeof *t->size * (size_t)tn);
	s.size = malloc(sizeof *s.size * (size_t)n);
	s.node = malloc(sizeof *s.node * (size_t)n);
	s.act = malloc(sizeof *s.act * (size_t)n);
	if (c->missing)
		s.cnt = infer_big(np);
	if (!chain || !t->left || !t->right || !t->parent || !t->h || !t->cnt || !t->heff || !t->size ||
	    !s.size || !s.node || !s.act || (c->missing && !s.cnt)) {
		free(chain);
		free(s.size);
		free(s.node);
		free(s.act);
		free(s.cnt);
		infer_tree_free(t);
		return FP_ERUNTIME;
	}
	for (size_t k = 0; s.cnt && k < np; k++) {
		s.cnt[k] = isnan(s.d[k]) ? 0 : 1;
		if (isnan(s.d[k]))
			s.d[k] = INFINITY;
	}
	for (int i = 0; i < n; i++) {
		s.size[i] = t->size[i] = 1;
		s.node[i] = s.act[i] = i;
		t->parent[i] = -1;
	}
	s.na = n;
	chain_run(&s, t, chain);
	free(chain);
	free(s.size);
	free(s.node);
	free(s.act);
	free(s.cnt);
	return 0;
}

void infer_tree_free(struct infer_tree *t)
{
	free(t->left);
	free(t->right);
	free(t->parent);
	free(t->h);
	free(t->cnt);
	free(t->heff);
	free(t->size);
	memset(t, 0, sizeof *t);
}
