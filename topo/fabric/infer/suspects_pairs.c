/* suspects_pairs.c — the pairs behind the map's candidates (suspects.h): what the confirmation
 * pass measures again for each, their controls, the pairs of a node or a link. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "suspects.h"

/* ---------------------------------------------------------------- pairs behind them */

static int pair_mark(unsigned char *seen, int n, int a, int b, int *pairs, int *k, int max, int *left)
{
	int lo = a < b ? a : b, hi = a < b ? b : a;

	if (a == b || a < 0 || b < 0 || seen[(size_t)lo * n + hi])
		return 0;
	seen[(size_t)lo * n + hi] = 1;
	if (*k >= max) {
		(*left)++;
		return 0;
	}
	pairs[2 * *k] = lo;
	pairs[2 * *k + 1] = hi;
	(*k)++;
	return 0;
}

/* a low-bandwidth node is re-measured against peers: its NIC or host slows every pair alike */
static int sampled_node(int kind, const struct infer_result *r)
{
	return kind == SUSPECT_LOW_BW_NODE && r && r->ntiers > 0;
}

/* node a's peers at tier t, up to SUSP_NODE_PEERS, into peers: those that no node finding names
 * first (known good), starting after a so that candidates spread over their peers */
static int node_peers(const struct susp_list *l, const struct infer_result *r, int n, int a, int t, int *peers)
{
	int k = 0;

	for (int good = 1; good >= 0 && k < SUSP_NODE_PEERS; good--)
		for (int i = 1; i < n && k < SUSP_NODE_PEERS; i++) {
			int x = (a + i) % n, named = 0, dup = 0;

			if (susp_pair_tier(r, a, x) != t)
				continue;
			for (int j = 0; j < l->n && !named; j++)
				named = susp_node_kind(l->s[j].kind) && l->s[j].a == x;
			for (int j = 0; j < k; j++)
				dup |= peers[j] == x;
			if (named != !good || dup)
				continue;
			peers[k++] = x;
		}
	return k;
}

/* 1 when node x is in a group that an uplink finding of l names, or is named by a node finding */
static int named_node(const struct susp_list *l, const struct infer_result *r, int n, int x)
{
	for (int j = 0; j < l->n; j++) {
		const struct suspect *q = &l->s[j];

		if ((susp_node_kind(q->kind) && q->a == x) ||
		    (q->kind == SUSPECT_LOW_BW_UPLINK && r && q->rule >= 0 && q->rule < r->ntiers &&
		     r->group[(size_t)q->rule * n + x] == r->group[(size_t)q->rule * n + q->a]))
			return 1;
	}
	return 0;
}

/* The pairs behind an uplink candidate s (its group at tier s->rule): SUSP_NODE_PEERS of its
 * nodes, each against SUSP_NODE_PEERS nodes outside it at the lowest tier above where it has
 * some, nodes no finding names first; into out (pairs, 2 ints each; room for
 * SUSP_NODE_PEERS^2). Returns the count. */
static int uplink_pairs(const struct susp_list *l, const struct infer_result *r, int n, const struct suspect *s,
			int *out)
{
	int t = s->rule, k = 0, nodes = 0;

	if (!r || t < 0 || t >= r->ntiers - 1)
		return 0;
	for (int i = 0; i < n && nodes < SUSP_NODE_PEERS; i++) {
		int a = (s->a + i) % n, got = 0;

		if (r->group[(size_t)t * n + a] != r->group[(size_t)t * n + s->a])
			continue;
		nodes++;
		for (int u = t + 1; u < r->ntiers && got == 0; u++)
			for (int good = 1; good >= 0 && got < SUSP_NODE_PEERS; good--)
				for (int j = 1; j < n && got < SUSP_NODE_PEERS; j++) {
					int x = (a + j) % n, dup = 0;

					if (susp_pair_tier(r, a, x) != u || named_node(l, r, n, x) == good)
						continue;
					for (int q = 0; q < k; q++)
						dup |= out[2 * q] == a && out[2 * q + 1] == x;
					if (dup)
						continue;
					out[2 * k] = a;
					out[2 * k + 1] = x;
					k++, got++;
				}
	}
	return k;
}

int susp_pairs(const struct susp_list *l, const struct infer_result *r, int n, int *pairs, int max, int *left)
{
	unsigned char *seen = calloc((size_t)n * (size_t)n + 1, 1);
	int k = 0;

	*left = 0;
	if (!seen) {
		LOG_ERROR("out of memory for the pairs of %d nodes", n);
		return FP_ERUNTIME;
	}
	for (int i = 0; i < l->n; i++) {
		const struct suspect *s = &l->s[i];

		if (s->state != SUSP_CANDIDATE)
			continue;
		if (s->kind == SUSPECT_LOW_BW_UPLINK) {
			int up[2 * SUSP_NODE_PEERS * SUSP_NODE_PEERS], nu = uplink_pairs(l, r, n, s, up);

			for (int j = 0; j < nu; j++)
				pair_mark(seen, n, up[2 * j], up[2 * j + 1], pairs, &k, max, left);
		} else if (sampled_node(s->kind, r)) {
			for (int t = 0; t < r->ntiers; t++) {
				int peers[SUSP_NODE_PEERS], np = node_peers(l, r, n, s->a, t, peers);

				for (int j = 0; j < np; j++)
					pair_mark(seen, n, s->a, peers[j], pairs, &k, max, left);
			}
		} else if (susp_node_kind(s->kind)) {
			for (int x = 0; x < n; x++)
				pair_mark(seen, n, s->a, x, pairs, &k, max, left);
		} else {
			pair_mark(seen, n, s->a, s->b, pairs, &k, max, left);
		}
	}
	free(seen);
	return k;
}

int susp_link_pair(const struct susp_list *l, int a, int b)
{
	for (int i = 0; i < l->n; i++) {
		const struct suspect *s = &l->s[i];

		if (s->state == SUSP_CANDIDATE && !susp_node_kind(s->kind) &&
		    ((s->a == a && s->b == b) || (s->a == b && s->b == a)))
			return 1;
	}
	return 0;
}

int susp_controls(const struct susp_list *l, const struct infer_result *r, int n, int per_tier, int *pairs,
		   int max)
{
	unsigned char *behind = calloc((size_t)n * (size_t)n + 1, 1);
	int want[INFER_TIERS_MAX + 1] = { 0 }, k = 0;

	if (!behind)
		return 0; /* no controls: the whole tier is the reference */
	for (int i = 0; i < l->n; i++) {
		const struct suspect *s = &l->s[i];

		if (s->kind == SUSPECT_JITTERY_LINK && s->tier >= 0 && s->tier < r->ntiers)
			want[s->tier] = per_tier;
		for (int x = 0; x < n; x++)
			if (susp_node_kind(s->kind) ? x != s->a : x == s->b)
				behind[(size_t)s->a * n + x] = behind[(size_t)x * n + s->a] = 1;
	}
	for (int i = 0; i < n && k < max; i++)
		for (int j = i + 1; j < n && k < max; j++) {
			int t = susp_pair_tier(r, i, j);

			if (t < r->ntiers && want[t] > 0 && !behind[(size_t)i * n + j]) {
				want[t]--;
				pairs[2 * k] = i;
				pairs[2 * k + 1] = j;
				k++;
			}
		}
	free(behind);
	return k;
}

int susp_retested(const struct suspect *s, const struct infer_result *r, int n, const unsigned char *retested)
{
	if (s->kind == SUSPECT_LOW_BW_UPLINK) {
		/* SUSP_NODE_PEERS of its nodes re-measured across its uplink, SUSP_NODE_PEERS times each
		 * (or all the pairs it has there) */
		int t = s->rule, nodes = 0, size = 0;

		if (!r || t < 0 || t >= r->ntiers - 1)
			return 0;
		for (int a = 0; a < n; a++) {
			int have = 0, across = 0;

			if (r->group[(size_t)t * n + a] != r->group[(size_t)t * n + s->a])
				continue;
			size++;
			for (int x = 0; x < n; x++)
				if (x != a && susp_pair_tier(r, a, x) > t && susp_pair_tier(r, a, x) < r->ntiers) {
					across++;
					have += retested[(size_t)a * n + x];
				}
			nodes += have >= (across < SUSP_NODE_PEERS ? across : SUSP_NODE_PEERS);
		}
		return nodes >= (size < SUSP_NODE_PEERS ? size : SUSP_NODE_PEERS);
	}
	if (!susp_node_kind(s->kind))
		return s->b >= 0 && retested[(size_t)s->a * n + s->b];
	if (sampled_node(s->kind, r)) {
		/* at every tier where it has peers, as many re-measured pairs as it was planned */
		int have[INFER_TIERS_MAX + 1] = { 0 }, peers[INFER_TIERS_MAX + 1] = { 0 };

		for (int x = 0; x < n; x++) {
			int t = x == s->a ? r->ntiers : susp_pair_tier(r, s->a, x);

			if (t < r->ntiers && t <= INFER_TIERS_MAX) {
				peers[t]++;
				have[t] += retested[(size_t)s->a * n + x];
			}
		}
		for (int t = 0; t < r->ntiers && t <= INFER_TIERS_MAX; t++)
			if (have[t] < (peers[t] < SUSP_NODE_PEERS ? peers[t] : SUSP_NODE_PEERS))
				return 0;
		return 1;
	}
	for (int x = 0; x < n; x++)
		if (x != s->a && !retested[(size_t)s->a * n + x])
			return 0;
	return 1;
}

int susp_hide(const struct susp_list *first, const struct infer_result *r, int n, const unsigned char *retested,
	      float *bw, struct susp_hidden *h)
{
	size_t cap = 0;

	*h = (struct susp_hidden){ 0 };
	if (!bw)
		return 0;
	for (int i = 0; i < first->n; i++) {
		const struct suspect *s = &first->s[i];

		cap += sampled_node(s->kind, r) && s->state == SUSP_CANDIDATE ? 2 * (size_t)n : 0;
		if (s->kind == SUSPECT_LOW_BW_UPLINK && s->state == SUSP_CANDIDATE && r && s->rule >= 0 &&
		    s->rule < r->ntiers)
			for (int a = 0; a < n; a++)
				cap += r->group[(size_t)s->rule * n + a] == r->group[(size_t)s->rule * n + s->a] ? 2 * (size_t)n : 0;
	}
	if (!cap)
		return 0;
	if (!(h->at = malloc(sizeof *h->at * cap)) || !(h->was = malloc(sizeof *h->was * cap))) {
		free(h->at);
		h->at = NULL;
		LOG_ERROR("out of memory for the confirmation of %d nodes", n);
		return FP_ERUNTIME;
	}
	for (int i = 0; i < first->n; i++) {
		const struct suspect *s = &first->s[i];

		if (s->state != SUSP_CANDIDATE)
			continue;
		if (s->kind == SUSPECT_LOW_BW_UPLINK && s->rule >= 0 && s->rule < r->ntiers) {
			/* its pairs across the uplink that were not re-measured */
			const int *g = r->group + (size_t)s->rule * n;

			for (int a = 0; a < n; a++)
				for (int x = 0; x < n && g[a] == g[s->a]; x++)
					for (int d = 0; d < 2 && g[x] != g[a]; d++) {
						size_t c = d ? (size_t)x * n + a : (size_t)a * n + x;

						if (retested[c] || isnan(bw[c]))
							continue;
						h->at[h->n] = c;
						h->was[h->n++] = bw[c];
						bw[c] = NAN;
					}
			continue;
		}
		if (!sampled_node(s->kind, r))
			continue;
		for (int x = 0; x < n; x++)
			for (int d = 0; d < 2 && x != s->a; d++) {
				size_t c = d ? (size_t)x * n + s->a : (size_t)s->a * n + x;

				if (retested[c] || isnan(bw[c]))
					continue;
				h->at[h->n] = c;
				h->was[h->n++] = bw[c];
				bw[c] = NAN;
			}
	}
	return 0;
}

void susp_unhide(struct susp_hidden *h, float *bw)
{
	for (size_t i = h->n; i-- > 0;) /* backwards: a cell hidden twice gets its first value */
		bw[h->at[i]] = h->was[i];
	free(h->at);
	free(h->was);
	*h = (struct susp_hidden){ 0 };
}

