/* compare_map.c — the two runs' switch maps (topology.csv) side by side: groups matched by
 * overlap per tier, each node's change, nodes in one run only, the number of tiers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "core/log.h"
#include "groups.h"

const char *cmp_map_change_name(int change)
{
	static const char *const names[] = { "same", "moved", "split", "merged", "new", "gone", "changed" };

	return change >= 0 && change <= CMP_MAP_CHANGED ? names[change] : "?";
}

/* Dense group indices of one tier for the given topology rows; labels[] receives the label
 * id of each dense index. Returns the number of groups, or -1. */
static int dense_groups(const struct rundir *rd, int tier, const int *rows, int n, int *g, int *labels)
{
	int *seen = malloc(sizeof *seen * (size_t)rd->tab.n), k = 0;

	if (!seen)
		return -1;
	for (int i = 0; i < rd->tab.n; i++)
		seen[i] = -1;
	for (int i = 0; i < n; i++) {
		int id = rd->topo.group[(size_t)tier * rd->topo.n + rows[i]];

		if (seen[id] < 0) {
			labels[k] = id;
			seen[id] = k++;
		}
		g[i] = seen[id];
	}
	free(seen);
	return k;
}

/* One tier: match and report every common node. */
static int map_tier(const struct rundir *a, const struct rundir *b, int tier, const int *ra, const int *rb, int n,
		    cmp_map_sink sink, void *ctx)
{
	int *ga = malloc(sizeof(int) * (size_t)(n + 1) * 4), *gb = ga + n + 1, *la = gb + n + 1, *lb = la + n + 1;
	struct grp_match m;
	int na, nb, rc = FP_ERUNTIME;

	if (!ga)
		return rc;
	na = dense_groups(a, tier, ra, n, ga, la);
	nb = dense_groups(b, tier, rb, n, gb, lb);
	if (na < 0 || nb < 0 || grp_match(ga, gb, n, na, nb, &m))
		goto out;
	for (int i = 0; i < n; i++) {
		int partner = m.b_to_a[gb[i]];
		struct cmp_map_row row = { .tier = tier, .tier_name = a->topo.tier_name[tier],
					   .host = a->tab.str[a->topo.host[ra[i]]], .before = a->tab.str[la[ga[i]]],
					   .after = b->tab.str[lb[gb[i]]], .after_as = partner >= 0 ? a->tab.str[la[partner]] : "",
					   .change = m.change[i] }; /* GRP_* and CMP_MAP_* agree up to merged */

		sink(ctx, &row);
	}
	grp_match_free(&m);
	rc = 0;
out:
	free(ga);
	return rc;
}

int cmp_map(const struct rundir *base, const struct rundir *cur, cmp_map_sink sink, void *ctx)
{
	const struct rd_topo *ta = &base->topo, *tb = &cur->topo;
	int *ra = malloc(sizeof(int) * (size_t)(ta->n + 1)), *rb = malloc(sizeof(int) * (size_t)(ta->n + 1)), n = 0;
	int rc = 0;

	if (!ra || !rb) {
		free(ra);
		free(rb);
		return FP_ERUNTIME;
	}
	for (int i = 0; i < ta->n; i++) {
		int id = rundir_find(cur, base->tab.str[ta->host[i]]), j = id >= 0 ? cur->topo_of[id] : -1;
		struct cmp_map_row row = { .tier = -1, .tier_name = "", .host = base->tab.str[ta->host[i]], .before = "",
					   .after = "", .after_as = "", .change = CMP_MAP_GONE };

		if (j >= 0) {
			ra[n] = i;
			rb[n++] = j;
		} else
			sink(ctx, &row);
	}
	for (int j = 0; j < tb->n; j++) {
		int id = rundir_find(base, cur->tab.str[tb->host[j]]);
		struct cmp_map_row row = { .tier = -1, .tier_name = "", .host = cur->tab.str[tb->host[j]], .before = "",
					   .after = "", .after_as = "", .change = CMP_MAP_NEW };

		if (id < 0 || base->topo_of[id] < 0)
			sink(ctx, &row);
	}
	for (int t = 0; rc == 0 && t < ta->ntiers && t < tb->ntiers; t++)
		rc = map_tier(base, cur, t, ra, rb, n, sink, ctx);
	if (rc == 0 && ta->ntiers != tb->ntiers) {
		struct cmp_map_row row = { .tier = -1, .tier_name = "tiers", .host = NULL, .after_as = "",
					   .change = CMP_MAP_CHANGED };

		snprintf(row.buf[0], sizeof row.buf[0], "%d", ta->ntiers);
		snprintf(row.buf[1], sizeof row.buf[1], "%d", tb->ntiers);
		row.before = row.buf[0];
		row.after = row.buf[1];
		sink(ctx, &row);
	}
	free(ra);
	free(rb);
	return rc;
}
