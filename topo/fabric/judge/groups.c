/* groups.c — see groups.h. */
#include "groups.h"

#include <stdlib.h>
#include <string.h>

#include "core/log.h"

struct overlap {
	int a, b, count;
};

static int cmp_ab(const void *x, const void *y)
{
	const struct overlap *p = x, *q = y;

	return p->a != q->a ? p->a - q->a : p->b - q->b;
}

static int cmp_count(const void *x, const void *y)
{
	const struct overlap *p = x, *q = y;

	if (p->count != q->count)
		return q->count - p->count;
	return cmp_ab(x, y);
}

/* The distinct (A group, B group) transitions and how many nodes make each; returns the count. */
static int overlaps(const int *ga, const int *gb, int n, struct overlap *ov)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		ov[i] = (struct overlap){ ga[i], gb[i], 1 };
	qsort(ov, (size_t)n, sizeof *ov, cmp_ab);
	for (int i = 0; i < n; i++)
		if (k && ov[k - 1].a == ov[i].a && ov[k - 1].b == ov[i].b)
			ov[k - 1].count++;
		else
			ov[k++] = ov[i];
	return k;
}

static int transition(const struct overlap *ov, int k, int a, int b)
{
	struct overlap key = { a, b, 0 };
	const struct overlap *hit = bsearch(&key, ov, (size_t)k, sizeof *ov, cmp_ab);

	return hit ? hit->count : 0;
}

int grp_match(const int *ga, const int *gb, int n, int na, int nb, struct grp_match *m)
{
	struct overlap *ov = malloc(sizeof *ov * (size_t)(n ? n : 1)), *byc = malloc(sizeof *byc * (size_t)(n ? n : 1));
	int k;

	*m = (struct grp_match){ .na = na, .nb = nb, .a_to_b = malloc(sizeof(int) * (size_t)(na ? na : 1)),
				 .b_to_a = malloc(sizeof(int) * (size_t)(nb ? nb : 1)),
				 .change = malloc(sizeof(int) * (size_t)(n ? n : 1)) };
	if (!ov || !byc || !m->a_to_b || !m->b_to_a || !m->change) {
		free(ov);
		free(byc);
		grp_match_free(m);
		return FP_ERUNTIME;
	}
	for (int a = 0; a < na; a++)
		m->a_to_b[a] = -1;
	for (int b = 0; b < nb; b++)
		m->b_to_a[b] = -1;
	k = overlaps(ga, gb, n, ov);
	memcpy(byc, ov, sizeof *ov * (size_t)k);
	qsort(byc, (size_t)k, sizeof *byc, cmp_count);
	for (int i = 0; i < k; i++)
		if (m->a_to_b[byc[i].a] < 0 && m->b_to_a[byc[i].b] < 0) {
			m->a_to_b[byc[i].a] = byc[i].b;
			m->b_to_a[byc[i].b] = byc[i].a;
		}
	for (int i = 0; i < n; i++) {
		int a = ga[i], b = gb[i], together = transition(ov, k, a, b);

		if (m->b_to_a[b] == a)
			m->change[i] = GRP_SAME;
		else if (m->b_to_a[b] < 0 && together >= 2)
			m->change[i] = GRP_SPLIT;
		else if (m->a_to_b[a] < 0 && together >= 2)
			m->change[i] = GRP_MERGED;
		else
			m->change[i] = GRP_MOVED;
	}
	free(ov);
	free(byc);
	return 0;
}

void grp_match_free(struct grp_match *m)
{
	free(m->a_to_b);
	free(m->b_to_a);
	free(m->change);
	memset(m, 0, sizeof *m);
}

const char *grp_change_name(int change)
{
	static const char *const names[] = { "same", "moved", "split", "merged" };

	return change >= 0 && change <= GRP_MERGED ? names[change] : "?";
}
