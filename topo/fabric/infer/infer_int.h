/* infer_int.h — what the pieces of the tier inference share (infer.c: preparation, model,
 * suspects; infer_link.c: average linkage; infer_tier.c: tier boundaries). Not a public header. */
#ifndef FP_INFER_INT_H
#define FP_INFER_INT_H

#include <math.h>
#include <stddef.h>

#include "infer.h"

#define INFER_BLOCK 64 /* rows fetched together from the triangle */

/* The pair values live in one triangle, row i > column j: tri(i, j) = i(i-1)/2 + j. */
static inline size_t tri(int i, int j)
{
	return (size_t)i * (size_t)(i - 1) / 2 + (size_t)j;
}

struct infer_ctx {
	int n;
	const float *lat;            /* the caller's matrix, n x n µs */
	const struct infer_opts *o;
	float *d;                    /* triangle: log(sym(i,j) - off[i] - off[j]); NAN = unmeasured */
	int missing;                 /* some pair is unmeasured in both directions */
	double dsum, npairs;         /* over the measured pairs of d */
	double dmin;                 /* log of the least latency */
	double *off;                 /* µs: the offsets d was built with */
	float *spread;               /* µs per node: its row's median less its least latency; then n more:
				      * that least latency (µs) */
	double sigma;                /* pair noise, log units */
	double rep_sigma;            /* the repeat noise: sigma's floor (NAN: none) */
	long long rep_n;             /* the directions it rests on */
	float *rows;                 /* INFER_BLOCK x n: a block of full rows of d */
};

/* max and min that the compiler inlines (fmaxf and fminf are calls: they order NANs) */
static inline float maxf(float a, float b)
{
	return a > b ? a : b;
}

static inline float minf(float a, float b)
{
	return a < b ? a : b;
}

static inline float ctx_d(const struct infer_ctx *c, int i, int j)
{
	return i > j ? c->d[tri(i, j)] : c->d[tri(j, i)];
}

/* Rows i0..i1-1 of d, in full, into c->rows ((i - i0) * n + j); the diagonal is NAN. */
void ctx_rows(const struct infer_ctx *c, int i0, int i1);

/* a pair's latency: the mean of its measured directions (NAN: neither) */
static inline float sym_of(const float *lat, int n, int i, int j)
{
	float a = lat[(size_t)i * n + j], b = lat[(size_t)j * n + i];

	return isnan(a) ? b : isnan(b) ? a : 0.5f * (a + b);
}

/* The pairs' latencies of tile (I, J), J <= I: s[(i - I) * INFER_BLOCK + j - J]; t: scratch of
 * INFER_BLOCK² floats. */
void infer_tile_sym(const float *lat, int n, int I, int J, float *s, float *t);

/* ---------------------------------------------------------------- noise, first offsets */

/* sigma (and the pairs it rests on, nu) and the first offsets into c->off; c->sigma and
 * c->spread set. Returns 0 or FP_ERUNTIME. */
int infer_near(struct infer_ctx *c, double *sigma, double *nu);
/* The noise to work with from estimates est[k], each worth nu[k] pairs. */
double infer_noise(const struct infer_ctx *c, const double *est, const double *nu, int k);

/* ---------------------------------------------------------------- the merge tree */

/* Tree nodes 0..n-1 are the nodes, n + m is merge m. A node without a parent is the root of a
 * connected part of the measurements. */
struct infer_tree {
	int n, nm;
	int *left, *right;   /* per merge: its two children (tree nodes) */
	int *parent;         /* per tree node: the merge above it, -1 at a root */
	double *h;           /* per merge: mean d over the pairs it joins */
	double *cnt;         /* per merge: measured pairs it joins */
	double *heff;        /* per merge: max(h, children's heff), so that cuts nest */
	int *size;           /* per tree node: nodes under it */
};

/* Average linkage over c->d (destroyed). Returns 0 or FP_ERUNTIME. */
int infer_link(struct infer_ctx *c, struct infer_tree *t);
void infer_tree_free(struct infer_tree *t);

/* ---------------------------------------------------------------- tiers */

struct infer_tiers {
	int ntiers;                  /* accepted boundaries + the top */
	int *group;                  /* [t * n + i], groups numbered 0.. in any order */
	int ngroups[INFER_TIERS_MAX];
	double theta[INFER_TIERS_MAX];   /* log threshold of each boundary */
	double sep_z[INFER_TIERS_MAX], sep_step[INFER_TIERS_MAX];
	long long sep_pairs[INFER_TIERS_MAX], sep_within[INFER_TIERS_MAX];
	double wsum[INFER_TIERS_MAX], wcnt[INFER_TIERS_MAX]; /* d summed over each tier's own pairs */
};

/* Tier boundaries from the tree and c->d (rebuilt, intact). ti->group must hold
 * INFER_TIERS_MAX * n ints. Returns 0 or FP_ERUNTIME. */
int infer_tiers_choose(const struct infer_ctx *c, const struct infer_tree *t, struct infer_tiers *ti);

/* Shrink offset estimates o (n) with standard errors se by what the errors explain of their
 * spread (empirical Bayes); lo: the lowest level, µs; buf: n floats of scratch. */
void infer_shrink(const struct infer_ctx *c, double *o, const float *se, double lo, float *buf);

/* n floats for a large matrix: on huge pages where the system lends them (the triangle's
 * columns are read a row apart: with 4 KiB pages, each read would miss the TLB). free() it. */
float *infer_big(size_t n);

/* k-th smallest of a[0..n-1] (no NANs); reorders a */
float infer_select(float *a, size_t n, size_t k);
/* the median (the mean of the middle two of an even count); reorders a */
double infer_median(float *a, size_t n);

#endif
