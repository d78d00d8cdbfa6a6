/* plan_check.c — the promises of a bandwidth plan checked (plan.h's plan_check): every pair
 * once, within range, each node's peers at each tier, the steps disjoint, an uplink's load. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "plan_int.h"

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
	struct tier_groups *tg = plan_tiers_make(group, ntiers, n);
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
	plan_tiers_free(tg, ntiers);
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

