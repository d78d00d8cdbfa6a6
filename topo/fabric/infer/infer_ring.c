/* infer_ring.c — what a ring over the fabric can carry, by the map (infer.h). */
#include <math.h>
#include <stdlib.h>

#include "infer.h"
#include "infer_int.h"

double infer_ring_GBps(const struct infer_result *r, const float *bw, int n, const int *ring, int len)
{
	size_t cells = (size_t)r->ntiers * (size_t)n;
	int *out, *in;
	double least = INFINITY;

	if (len < 2 || r->n != n || r->ntiers < 1)
		return NAN;
	out = calloc(cells + 1, sizeof *out);
	in = calloc(cells + 1, sizeof *in);
	if (!out || !in) {
		free(out);
		free(in);
		return NAN;
	}
	/* the ring's flows that leave and enter each group at each tier: one per hop, all at once */
	for (int k = 0; k < len; k++) {
		int u = ring[k], v = ring[(k + 1) % len], top = infer_pair_tier(r->group, r->ntiers, n, u, v);

		for (int t = 0; t < top && t < r->ntiers; t++) {
			out[(size_t)t * n + r->group[(size_t)t * n + u]]++;
			in[(size_t)t * n + r->group[(size_t)t * n + v]]++;
		}
	}
	/* each hop: its pair's own bandwidth alone, or the share it gets of each uplink it crosses
	 * (an uplink at tier t carries one flow alone at the median bandwidth of tier t + 1) */
	for (int k = 0; k < len; k++) {
		int u = ring[k], v = ring[(k + 1) % len], top = infer_pair_tier(r->group, r->ntiers, n, u, v);
		double hop = bw ? bw[(size_t)u * n + v] : NAN;

		if (top >= r->ntiers) { /* never together: no tier says what the pair gets */
			least = NAN;
			break;
		}
		if (isnan(hop))
			hop = r->bw_p50_GBps[top];
		for (int t = 0; t < top; t++) {
			int share = out[(size_t)t * n + r->group[(size_t)t * n + u]];
			int inward = in[(size_t)t * n + r->group[(size_t)t * n + v]];
			double cap = r->bw_p50_GBps[t + 1] / (share > inward ? share : inward);

			hop = cap < hop ? cap : hop;
		}
		if (isnan(hop)) {
			least = NAN;
			break;
		}
		least = hop < least ? hop : least;
	}
	free(out);
	free(in);
	return isinf(least) ? NAN : least;
}
