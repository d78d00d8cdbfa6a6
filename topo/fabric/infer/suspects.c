/* suspects.c — see suspects.h. */
#include "suspects.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

void susp_opts_default(struct susp_opts *o)
{
	*o = (struct susp_opts){ .p50_ratio = 2, .p99_ratio = 10, .excess = 10, .floor_frac = 0.1, .tail_samples = 300 };
}

const char *susp_kind_name(int kind)
{
	return kind == SUSPECT_JITTERY_LINK ? "jittery_link" : infer_suspect_kind_name(kind);
}

const char *susp_state_name(int state)
{
	static const char *const names[] = { "candidate", "held", "did not hold", "not re-tested",
					     "only on re-test" };

	return state >= 0 && state <= SUSP_NEW ? names[state] : "unknown";
}

void susp_list_free(struct susp_list *l)
{
	free(l->s);
	memset(l, 0, sizeof *l);
}

static int list_add(struct susp_list *l, const struct suspect *s)
{
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 16;
		struct suspect *p = realloc(l->s, sizeof *p * (size_t)cap);

		if (!p) {
			LOG_ERROR("out of memory for %d suspects", cap);
			return FP_ERUNTIME;
		}
		l->s = p;
		l->cap = cap;
	}
	l->s[l->n++] = *s;
	return 0;
}

int susp_list_copy(struct susp_list *dst, const struct susp_list *src)
{
	susp_list_free(dst);
	for (int i = 0; i < src->n; i++)
		if (list_add(dst, &src->s[i]))
			return FP_ERUNTIME;
	return 0;
}

static int is_node_kind(int kind)
{
	return kind == SUSPECT_SLOW_NODE || kind == SUSPECT_LOW_BW_NODE || kind == SUSPECT_UNMEASURED_NODE;
}

int susp_on_node(const struct suspect *s)
{
	return is_node_kind(s->kind);
}

/* lowest tier at which i and j share a group; r->ntiers when they never do */
static int pair_tier(const struct infer_result *r, int i, int j)
{
	return infer_pair_tier(r->group, r->ntiers, r->n, i, j);
}

static float cell(const float *m, int n, int i, int j)
{
	return m ? m[(size_t)i * n + j] : NAN;
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

static double median_f(float *v, size_t k)
{
	if (!k)
		return NAN;
	qsort(v, k, sizeof *v, cmp_float);
	return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2.0;
}

/* ---------------------------------------------------------------- figures */

/* a node's pairs' bandwidth over their tier's median, both directions: the median ratio */
static double node_bw_ratio(int a, const struct infer_result *r, const struct susp_matrices *m)
{
	int n = m->n, k = 0;
	float *v = malloc(sizeof *v * 2 * (size_t)n);
	double med;

	if (!v || !m->bw) {
		free(v);
		return NAN;
	}
	for (int j = 0; j < n; j++) {
		int t = j == a ? r->ntiers : pair_tier(r, a, j);
		float x = cell(m->bw, n, a, j), y = cell(m->bw, n, j, a);

		if (t >= r->ntiers || !(r->bw_p50_GBps[t] > 0))
			continue;
		if (!isnan(x))
			v[k++] = x / (float)r->bw_p50_GBps[t];
		if (!isnan(y))
			v[k++] = y / (float)r->bw_p50_GBps[t];
	}
	med = median_f(v, (size_t)k);
	free(v);
	return med;
}

void susp_value(int kind, int rule, int a, int b, const struct infer_result *r, const struct susp_matrices *m,
		 const struct susp_opts *o, double *value, double *expected, double *extra)
{
	int n = m->n, t = b >= 0 ? pair_tier(r, a, b) : r->ntiers;
	float x, y;

	(void)o;
	*value = *expected = *extra = NAN;
	switch (kind) {
	case SUSPECT_SLOW_NODE:
		*value = r->offset_us[a];
		*expected = 0;
		break;
	case SUSPECT_LOW_BW_NODE:
		*value = node_bw_ratio(a, r, m);
		*expected = 1;
		break;
	case SUSPECT_SLOW_LINK:
	case SUSPECT_FAST_LINK:
		x = cell(m->lat_min, n, a, b), y = cell(m->lat_min, n, b, a);
		*value = isnan(x) ? y : isnan(y) ? x : (x + y) / 2;
		*expected = t < r->ntiers ? r->lat_p50_us[t] : NAN;
		break;
	case SUSPECT_LOW_BW_LINK:
		*value = cell(m->bw, n, a, b);
		*expected = t < r->ntiers ? r->bw_p50_GBps[t] : NAN;
		break;
	case SUSPECT_LOW_BW_UPLINK: /* rule: the tier of the group */
		*value = m->bw ? infer_uplink_ratio(r, m->bw, rule, a) : NAN;
		*expected = 1;
		break;
	case SUSPECT_JITTERY_LINK: {
		/* the worse direction by the rule's figure: the higher p50 (then p99), or p99 */
		const float *by = rule == SUSP_JITTER_P99 ? m->lat_p99 : m->lat_p50;
		const float *then = rule == SUSP_JITTER_P99 ? m->lat_p50 : m->lat_p99;
		int s = a, d = b;
		float pa = cell(by, n, a, b), pb = cell(by, n, b, a);

		if (isnan(pa) || pb > pa || (pb == pa && cell(then, n, b, a) > cell(then, n, a, b)))
			s = b, d = a;
		if (rule == SUSP_JITTER_P99) {
			*value = cell(m->lat_p99, n, s, d);
			*expected = cell(m->lat_p50, n, s, d);
			*extra = cell(m->lat_min, n, s, d);
		} else {
			*value = cell(m->lat_p50, n, s, d);
			*expected = cell(m->lat_min, n, s, d);
			*extra = cell(m->lat_p99, n, s, d);
		}
		break;
	}
	default:
		break;
	}
}

/* ---------------------------------------------------------------- jitter */

struct jitter_ref {
	double x50[INFER_TIERS_MAX + 1], x99[INFER_TIERS_MAX + 1]; /* thresholds per tier */
};

/* Per tier, the excess p50 - min and p99 - p50 that makes a direction jittery. */
static int jitter_refs(const struct infer_result *r, const struct susp_matrices *m, const struct susp_opts *o,
		       struct jitter_ref *ref)
{
	int n = m->n;
	size_t cap = (size_t)n * (size_t)n;
	float *v50 = malloc(sizeof *v50 * (cap + 1)), *v99 = malloc(sizeof *v99 * (cap + 1));

	if (!v50 || !v99) {
		free(v50);
		free(v99);
		LOG_ERROR("out of memory for the jitter of %d nodes", n);
		return FP_ERUNTIME;
	}
	for (int t = 0; t < r->ntiers; t++) {
		size_t k = 0;
		double floor = o->floor_frac * r->lat_p50_us[t], med50, med99;

		/* the reference pairs of this tier when there are some, else all of them */
		for (int pass = m->ref ? 0 : 1; pass < 2 && k == 0; pass++)
			for (int i = 0; i < n; i++)
				for (int j = 0; j < n; j++) {
					float mn = cell(m->lat_min, n, i, j), p50 = cell(m->lat_p50, n, i, j),
					      p99 = cell(m->lat_p99, n, i, j);

					if (i == j || isnan(mn) || isnan(p50) || isnan(p99) || pair_tier(r, i, j) != t ||
					    (pass == 0 && !m->ref[(size_t)i * n + j]))
						continue;
					v50[k] = p50 - mn;
					v99[k++] = p99 - p50;
				}
		med50 = median_f(v50, k);
		med99 = median_f(v99, k);
		if (!(floor > 0))
			floor = 0;
		ref->x50[t] = o->excess * (med50 > floor ? med50 : floor);
		ref->x99[t] = o->excess * (med99 > floor ? med99 : floor);
	}
	free(v50);
	free(v99);
	return 0;
}

static int direction_jittery(const struct susp_matrices *m, const struct susp_opts *o, const struct jitter_ref *ref,
			     int t, int i, int j)
{
	int n = m->n;
	float mn = cell(m->lat_min, n, i, j), p50 = cell(m->lat_p50, n, i, j), p99 = cell(m->lat_p99, n, i, j);
	int tail = m->lat_samples <= 0 || m->lat_samples >= o->tail_samples;

	if (isnan(mn) || isnan(p50) || isnan(p99))
		return 0;
	return (p50 >= o->p50_ratio * mn && p50 - mn > ref->x50[t] ? SUSP_JITTER_P50 : 0) |
	       (tail && p99 >= o->p99_ratio * p50 && p99 - p50 > ref->x99[t] ? SUSP_JITTER_P99 : 0);
}

static int jittery_links(const struct infer_result *r, const struct susp_matrices *m, const struct susp_opts *o,
			 struct susp_list *out)
{
	struct jitter_ref ref;
	int n = m->n, rc;

	if (!m->lat_min || !m->lat_p50 || !m->lat_p99)
		return 0;
	if ((rc = jitter_refs(r, m, o, &ref)))
		return rc;
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++) {
			int t = pair_tier(r, i, j);
			struct suspect s = { .kind = SUSPECT_JITTERY_LINK, .a = i, .b = j, .tier = t,
						   .state = SUSP_CANDIDATE, .value2 = NAN, .expected2 = NAN,
						   .extra2 = NAN };

			int why = t < r->ntiers ? direction_jittery(m, o, &ref, t, i, j) | direction_jittery(m, o, &ref, t, j, i) : 0;

			if (!why)
				continue;
			/* a lasting shift says more than a tail: the p50 rule first */
			s.rule = why & SUSP_JITTER_P50 ? SUSP_JITTER_P50 : SUSP_JITTER_P99;
			susp_value(s.kind, s.rule, i, j, r, m, o, &s.value, &s.expected, &s.extra);
			if ((rc = list_add(out, &s)))
				return rc;
		}
	return 0;
}

/* ---------------------------------------------------------------- candidates */

int susp_candidates(const struct infer_result *r, const struct susp_matrices *m,
		     const struct susp_opts *o, struct susp_list *out)
{
	int rc;

	out->n = 0;
	for (int k = 0; k < r->nsuspects; k++) {
		const struct infer_suspect *is = &r->suspects[k];
		struct suspect s = { .kind = is->kind, .a = is->a, .b = is->b, .tier = is->tier,
					   .rule = is->kind == SUSPECT_LOW_BW_UPLINK ? is->tier : 0, .state = SUSP_CANDIDATE, .value = is->value, .expected = is->expected,
					   .extra = NAN, .value2 = NAN, .expected2 = NAN, .extra2 = NAN };

		if ((rc = list_add(out, &s)))
			return rc;
	}
	return jittery_links(r, m, o, out);
}

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

			if (pair_tier(r, a, x) != t)
				continue;
			for (int j = 0; j < l->n && !named; j++)
				named = is_node_kind(l->s[j].kind) && l->s[j].a == x;
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

		if ((is_node_kind(q->kind) && q->a == x) ||
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

					if (pair_tier(r, a, x) != u || named_node(l, r, n, x) == good)
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
		} else if (is_node_kind(s->kind)) {
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

		if (s->state == SUSP_CANDIDATE && !is_node_kind(s->kind) &&
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
			if (is_node_kind(s->kind) ? x != s->a : x == s->b)
				behind[(size_t)s->a * n + x] = behind[(size_t)x * n + s->a] = 1;
	}
	for (int i = 0; i < n && k < max; i++)
		for (int j = i + 1; j < n && k < max; j++) {
			int t = pair_tier(r, i, j);

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
				if (x != a && pair_tier(r, a, x) > t && pair_tier(r, a, x) < r->ntiers) {
					across++;
					have += retested[(size_t)a * n + x];
				}
			nodes += have >= (across < SUSP_NODE_PEERS ? across : SUSP_NODE_PEERS);
		}
		return nodes >= (size < SUSP_NODE_PEERS ? size : SUSP_NODE_PEERS);
	}
	if (!is_node_kind(s->kind))
		return s->b >= 0 && retested[(size_t)s->a * n + s->b];
	if (sampled_node(s->kind, r)) {
		/* at every tier where it has peers, as many re-measured pairs as it was planned */
		int have[INFER_TIERS_MAX + 1] = { 0 }, peers[INFER_TIERS_MAX + 1] = { 0 };

		for (int x = 0; x < n; x++) {
			int t = x == s->a ? r->ntiers : pair_tier(r, s->a, x);

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

/* ---------------------------------------------------------------- the decision */

/* the same finding: kind and node, or kind and pair (a direction for low_bw_link) */
static int same_finding(const struct suspect *x, const struct suspect *y)
{
	if (x->kind != y->kind)
		return 0;
	if (x->kind == SUSPECT_LOW_BW_UPLINK)
		return x->a == y->a && x->rule == y->rule;
	if (is_node_kind(x->kind) || x->kind == SUSPECT_LOW_BW_LINK)
		return x->a == y->a && x->b == y->b;
	return (x->a == y->a && x->b == y->b) || (x->a == y->b && x->b == y->a);
}

static int find(const struct susp_list *l, const struct suspect *s)
{
	for (int i = 0; i < l->n; i++)
		if (same_finding(&l->s[i], s))
			return i;
	return -1;
}

int susp_decide(const struct susp_list *first, const struct susp_list *after, const unsigned char *retested,
		 int n, const struct infer_result *r2, const struct susp_matrices *m2,
		 const struct susp_opts *o, struct susp_list *held, struct susp_list *rest)
{
	int rc;

	held->n = rest->n = 0;
	for (int i = 0; i < first->n; i++) {
		struct suspect s = first->s[i];
		int again = find(after, &s);

		susp_value(s.kind, s.rule, s.a, s.b, r2, m2, o, &s.value2, &s.expected2, &s.extra2);
		if (!susp_retested(&s, r2, n, retested))
			s.state = SUSP_NOT_RETESTED;
		else
			s.state = again >= 0 ? SUSP_HELD : SUSP_NOT_HELD;
		if (again >= 0 && s.state == SUSP_HELD) {
			/* held: the figures the rule found it by, on the confirmed data (susp_value's
			 * are a plain ratio to the tier's median, which a slow uplink can make read
			 * at par for a node at half rate) */
			const struct suspect *a = &after->s[again];

			s.tier = a->tier;
			s.value2 = a->value, s.expected2 = a->expected, s.extra2 = a->extra;
		}
		if ((rc = list_add(s.state == SUSP_HELD ? held : rest, &s)))
			return rc;
	}
	/* what the confirmed figures show that the first ones did not: not counted (it was not
	 * seen twice), but said */
	for (int i = 0; i < after->n; i++) {
		struct suspect s = after->s[i];

		if (find(first, &s) >= 0)
			continue;
		s.value2 = s.value, s.expected2 = s.expected, s.extra2 = s.extra;
		s.value = s.expected = s.extra = NAN;
		s.state = SUSP_NEW;
		if ((rc = list_add(rest, &s)))
			return rc;
	}
	return 0;
}

int susp_unconfirmed(const struct susp_list *first, struct susp_list *out)
{
	int rc;

	out->n = 0;
	for (int i = 0; i < first->n; i++)
		if ((rc = list_add(out, &first->s[i])))
			return rc;
	return 0;
}

void susp_count(const struct susp_list *l, int state, int *counts)
{
	memset(counts, 0, sizeof *counts * SUSPECT_NKINDS);
	for (int i = 0; i < l->n; i++)
		if (l->s[i].state == state && l->s[i].kind >= 0 && l->s[i].kind < SUSPECT_NKINDS)
			counts[l->s[i].kind]++;
}

/* 1 when node a's group at tier t of r and at tier u of q hold the same nodes */
static int same_members(const struct infer_result *r, int t, const struct infer_result *q, int u, int a)
{
	int n = r->n;

	for (int i = 0; i < n; i++)
		if ((r->group[(size_t)t * n + i] == r->group[(size_t)t * n + a]) !=
		    (q->group[(size_t)u * n + i] == q->group[(size_t)u * n + a]))
			return 0;
	return 1;
}

void susp_uplinks_remap(struct susp_list *l, const struct infer_result *from, const struct infer_result *to)
{
	for (int i = 0; i < l->n; i++) {
		struct suspect *s = &l->s[i];
		int u = -1;

		if (s->kind != SUSPECT_LOW_BW_UPLINK || s->rule < 0 || s->rule >= from->ntiers || from->n != to->n)
			continue;
		for (int t = 0; t + 1 < to->ntiers && u < 0; t++)
			if (same_members(from, s->rule, to, t, s->a))
				u = t;
		s->rule = s->tier = u;
	}
}
