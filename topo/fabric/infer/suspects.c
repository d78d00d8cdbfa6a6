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

int susp_on_node(const struct suspect *s)
{
	return susp_node_kind(s->kind);
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
		int t = j == a ? r->ntiers : susp_pair_tier(r, a, j);
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
	int n = m->n, t = b >= 0 ? susp_pair_tier(r, a, b) : r->ntiers;
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

					if (i == j || isnan(mn) || isnan(p50) || isnan(p99) || susp_pair_tier(r, i, j) != t ||
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
			int t = susp_pair_tier(r, i, j);
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

/* ---------------------------------------------------------------- the decision */

/* the same finding: kind and node, or kind and pair (a direction for low_bw_link) */
static int same_finding(const struct suspect *x, const struct suspect *y)
{
	if (x->kind != y->kind)
		return 0;
	if (x->kind == SUSPECT_LOW_BW_UPLINK)
		return x->a == y->a && x->rule == y->rule;
	if (susp_node_kind(x->kind) || x->kind == SUSPECT_LOW_BW_LINK)
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
