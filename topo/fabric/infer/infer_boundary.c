/* infer_boundary.c — see infer.h: the pairs a map's tier boundaries rest on. */
#include <math.h>

#include "infer.h"

/* the symmetric figure of (a, b): the mean of the directions measured, NAN for none */
static float sym_lat(const float *lat, int n, int a, int b)
{
	float x = lat[(size_t)a * n + b], y = lat[(size_t)b * n + a];

	return isnan(x) ? y : isnan(y) ? x : (x + y) / 2;
}

/* the lowest tier of r whose group holds both a and b */
static int common_tier(const struct infer_result *r, int a, int b)
{
	int t = 0;

	while (t < r->ntiers - 1 && r->group[(size_t)t * r->n + a] != r->group[(size_t)t * r->n + b])
		t++;
	return t;
}

/* keep (v, a, b) among a side's INFER_BOUNDARY_PAIRS pairs nearest its boundary (k kept so
 * far): slow, the largest v (inside a group); else the smallest (across groups) */
static void side_keep(float *bv, int *ba, int *bb, int *k, float v, int a, int b, int slow)
{
	int i = *k < INFER_BOUNDARY_PAIRS ? (*k)++ : -1;

	if (i < 0) { /* full: replace the worst kept if v beats it */
		i = 0;
		for (int j = 1; j < INFER_BOUNDARY_PAIRS; j++)
			if (slow ? bv[j] < bv[i] : bv[j] > bv[i])
				i = j;
		if (slow ? !(v > bv[i]) : !(v < bv[i]))
			return;
	}
	bv[i] = v, ba[i] = a, bb[i] = b;
}

int infer_boundary_pairs(const struct infer_result *r, const float *lat, int n, int *out, int have, int max)
{
	enum { SIDES = 2 * (INFER_TIERS_MAX - 1) };
	float bv[SIDES][INFER_BOUNDARY_PAIRS];
	int ba[SIDES][INFER_BOUNDARY_PAIRS], bb[SIDES][INFER_BOUNDARY_PAIRS], cnt[SIDES] = { 0 }, got = 0;
	long long pairs = (long long)n * (n - 1) / 2;
	int stride = (int)(pairs / (4LL << 20) + 1);

	if (r->ntiers < 2)
		return 0;
	for (int a = 1; a < n; a++)
		for (int b = a % stride; b < a; b += stride) {
			float v = sym_lat(lat, n, a, b);
			int t;

			if (isnan(v))
				continue;
			t = common_tier(r, a, b);
			if (t < r->ntiers - 1) /* inside a group of tier t: its slowest, below boundary t */
				side_keep(bv[2 * t], ba[2 * t], bb[2 * t], &cnt[2 * t], v, b, a, 1);
			if (t > 0) /* across groups of tier t - 1: its fastest, above boundary t - 1 */
				side_keep(bv[2 * t - 1], ba[2 * t - 1], bb[2 * t - 1], &cnt[2 * t - 1], v, b, a, 0);
		}
	for (int s = 0; s < 2 * (r->ntiers - 1); s++)
		for (int j = 0; j < cnt[s] && got < max; j++) {
			int dup = 0;

			for (int c = 0; c < have + got && !dup; c++)
				dup = out[2 * c] == ba[s][j] && out[2 * c + 1] == bb[s][j];
			if (!dup) {
				out[2 * (have + got)] = ba[s][j];
				out[2 * (have + got) + 1] = bb[s][j];
				got++;
			}
		}
	return got;
}
