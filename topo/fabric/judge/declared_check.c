/* declared_check.c — the measured map against the declared cabling (declared.h's decl_check):
 * tier by tier, each host's measured group set beside the declared one. */
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "declared.h"
#include "groups.h"

/* ---------------------------------------------------------------- checking */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Dense index of label among labels[0..*n) (added when new). */
static int dense(const char **labels, int *n, const char *label)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(labels[i], label))
			return i;
	labels[*n] = label;
	return (*n)++;
}

struct check {
	const struct decl *d;
	const struct rundir *rd;
	int *di, *mi, n;        /* common hosts: index in d, in rd->topo */
	int *reported;          /* n: already named at a lower tier */
	decl_sink sink;
	void *ctx;
	int count;
};

static int check_tier(struct check *c, int k)
{
	const struct rd_topo *t = &c->rd->topo;
	int n = c->n, na = 0, nb = 0, rc = FP_ERUNTIME;
	int *ga = malloc(sizeof(int) * (size_t)(n + 1) * 2), *gb = ga ? ga + n + 1 : NULL;
	const char **la = malloc(sizeof *la * (size_t)(n + 1) * 2), **lb = la ? la + n + 1 : NULL;
	struct grp_match m;

	if (!ga || !la)
		goto out;
	for (int i = 0; i < n; i++) {
		ga[i] = dense(la, &na, c->d->group[(size_t)c->di[i] * c->d->ntiers + k]);
		gb[i] = dense(lb, &nb, c->rd->tab.str[t->group[(size_t)k * t->n + c->mi[i]]]);
	}
	if (grp_match(ga, gb, n, na, nb, &m))
		goto out;
	for (int i = 0; i < n; i++) {
		int partner = m.b_to_a[gb[i]];
		struct decl_row row = { .host = c->d->host[c->di[i]], .tier = k, .tier_name = t->tier_name[k],
					.problem = DECL_WRONG_GROUP, .declared = la[ga[i]], .measured = lb[gb[i]],
					.matches = partner >= 0 ? la[partner] : "", .how = grp_change_name(m.change[i]) };

		if (m.change[i] == GRP_SAME || c->reported[i])
			continue;
		c->reported[i] = 1;
		c->count++;
		c->sink(c->ctx, &row);
	}
	grp_match_free(&m);
	rc = 0;
out:
	free(ga);
	free(la);
	return rc;
}

/* Declared hosts the run lacks, and measured ones the declaration lacks; fills the common. */
static int check_sets(struct check *c, char **sorted)
{
	const struct rd_topo *t = &c->rd->topo;

	for (int i = 0; i < c->d->n; i++) {
		int id = rundir_find(c->rd, c->d->host[i]), j = id >= 0 ? c->rd->topo_of[id] : -1;
		struct decl_row row = { .host = c->d->host[i], .tier = -1, .tier_name = "", .problem = DECL_MISSING,
					.declared = c->d->group[(size_t)i * c->d->ntiers], .measured = "", .matches = "",
					.how = "" };

		if (j >= 0) {
			c->di[c->n] = i;
			c->mi[c->n++] = j;
			continue;
		}
		c->count++;
		c->sink(c->ctx, &row);
	}
	for (int j = 0; j < t->n; j++) {
		const char *h = c->rd->tab.str[t->host[j]];
		struct decl_row row = { .host = h, .tier = -1, .tier_name = "", .problem = DECL_UNDECLARED, .declared = "",
					.measured = c->rd->tab.str[t->group[j]], .matches = "", .how = "" };

		if (!bsearch(&h, sorted, (size_t)c->d->n, sizeof *sorted, cmp_str)) {
			c->count++;
			c->sink(c->ctx, &row);
		}
	}
	return 0;
}

int decl_check(const struct decl *d, const struct rundir *rd, decl_sink sink, void *ctx)
{
	struct check c = { .d = d, .rd = rd, .sink = sink, .ctx = ctx };
	char **sorted = malloc(sizeof *sorted * (size_t)(d->n + 1));
	int rc = FP_ERUNTIME;

	c.di = malloc(sizeof(int) * (size_t)(d->n + 1) * 3);
	if (!sorted || !c.di)
		goto out;
	c.mi = c.di + d->n + 1;
	c.reported = c.mi + d->n + 1;
	memcpy(sorted, d->host, sizeof *sorted * (size_t)d->n);
	qsort(sorted, (size_t)d->n, sizeof *sorted, cmp_str);
	check_sets(&c, sorted);
	memset(c.reported, 0, sizeof(int) * (size_t)c.n);
	rc = 0;
	for (int k = 0; rc == 0 && k < d->ntiers && k < rd->topo.ntiers; k++)
		rc = check_tier(&c, k);
out:
	free(sorted);
	free(c.di);
	return rc ? rc : c.count;
}
