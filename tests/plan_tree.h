/* plan_tree.h — synthetic switch trees for the bandwidth plan's tests and simulation: uneven
 * leaves (and pods of uneven numbers of leaves), node numbers shuffled so that they say nothing
 * about the tree. Groups tier-major, as infer_result's. */
#ifndef FP_PLAN_TREE_H
#define FP_PLAN_TREE_H

#include <stdlib.h>

/* a small xorshift, so that a seed gives the same tree everywhere */
static unsigned long long tree_rng_(unsigned long long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* n nodes into leaves of leaf +- leaf/4 nodes; with pods (ntiers 3), pods of pod +- pod/2
 * leaves; the top one group. Returns the groups (ntiers x n ints, the caller frees) or NULL. */
static int *tree_make(int n, int ntiers, int leaf, int pod, unsigned long long seed)
{
	int *g = malloc(sizeof *g * (size_t)ntiers * (size_t)n), *perm = malloc(sizeof *perm * (size_t)n);
	unsigned long long s = seed * 2654435761ULL + 1;
	int at = 0, nleaf = 0, npod = 0, left_in_pod = 0;

	if (!g || !perm) {
		free(g);
		free(perm);
		return NULL;
	}
	for (int i = 0; i < n; i++)
		perm[i] = i;
	for (int i = n - 1; i > 0; i--) {
		int j = (int)(tree_rng_(&s) % (unsigned long long)(i + 1)), x = perm[i];

		perm[i] = perm[j];
		perm[j] = x;
	}
	while (at < n) {
		int size = leaf - leaf / 4 + (int)(tree_rng_(&s) % (unsigned long long)(leaf / 2 + 1));

		if (ntiers == 3 && left_in_pod == 0) {
			left_in_pod = pod - pod / 2 + (int)(tree_rng_(&s) % (unsigned long long)(pod + 1));
			npod++;
		}
		for (int k = 0; k < size && at < n; k++, at++) {
			g[perm[at]] = nleaf;
			if (ntiers == 3)
				g[n + perm[at]] = npod - 1;
			g[(size_t)(ntiers - 1) * n + perm[at]] = 0;
		}
		nleaf++;
		left_in_pod--;
	}
	free(perm);
	return g;
}

#endif
