/* compare.h — two runs side by side (`fabprobe compare`, `run --baseline`): pairs matched by
 * path, source, destination and size; collectives by backend, op, datatype, reduction,
 * placement and size; the inventory per node and NIC; the map (groups matched by overlap).
 * Every compared item gets a class. Pure: items go to a sink the caller writes.
 *
 * Tolerance. A measured change counts only beyond what the runs' own noise explains. The
 * noise of a run is estimated per path, size, metric and tier (the lowest switch the pair
 * meets at) from how far that tier's pairs stand from the tier's median, once the offset of
 * each node whose pairs clearly stand apart is taken out (a slow node is a finding, not
 * noise; "clearly": its median beyond 3 robust deviations): sigma = p90(|residual|) /
 * 1.645 (one standard deviation for normal noise, and it widens when one pair in ten or more
 * strays). With fewer than 5 pairs in the tier, the path's tiers are pooled; with fewer than
 * 5 in all, sigma is CMP_SIGMA_DEFAULT. Collectives: the spread between in-place and
 * out-of-place figures across sizes (the same operation measured twice). A change counts
 * when |ln(after / before)| > k * sqrt(sigma_before^2 + sigma_after^2) (k = 3) and beyond
 * CMP_MIN_PCT, or ln(1 + tolerance) with --tolerance. The floor: a run's noise is its pairs'
 * spread at one time; two runs of an unchanged fabric also differ by a node's or a route's
 * few percent (3.5% on one emulated pair after the cluster was rebuilt), which is below what
 * anyone acts on. Retests (p2p_retest.csv) confirm: a pair counts as
 * worse only when its best measurement still is. A pair that stood better than its tier's
 * median in BASE and now is no worse than that median (within the tolerance) is the same: it
 * is back among its peers, not a regression anyone would act on. */
#ifndef FP_COMPARE_H
#define FP_COMPARE_H

#include "fabric/io/rundir.h"

#define CMP_SIGMA_DEFAULT 0.05 /* relative noise assumed when a run has too few pairs */
#define CMP_SIGMA_FLOOR 0.005  /* never less: figures are written to 3-4 digits */
#define CMP_K 3.0
#define CMP_MIN_PCT 5.0        /* a change smaller than this never counts (but --tolerance) */

enum cmp_class { CMP_SAME, CMP_BETTER, CMP_WORSE, CMP_NEW, CMP_GONE, CMP_CHANGED, CMP_NCLASS };
enum cmp_kind { CMP_P2P, CMP_COLL, CMP_INV, CMP_NKIND };

struct cmp_opts {
	double tolerance_pct; /* > 0: this tolerance everywhere instead of the noise's */
	double k;             /* noise units a change must exceed (0: CMP_K) */
};

struct cmp_item {
	int kind;
	const char *path;               /* p2p: path; coll: backend; inv: "" */
	const char *src, *dst;          /* p2p: hosts; coll: op, "dtype redop[ in-place]"; inv: host, NIC */
	long long size;                 /* bytes, -1 none */
	const char *metric;
	double before, after, retest;   /* NAN: none */
	const char *before_s, *after_s; /* text metrics (inventory): the values, else NULL */
	double change_pct;              /* (after / before - 1) x 100; NAN when it does not apply */
	double tol_pct;                 /* the tolerance in %, on the side of the change; NAN: none */
	int cls;
	char tier[40];                  /* p2p: "leaf", or "leaf>spine" when the pair's tier changed */
	char note[200];
	char dstbuf[96];
};

typedef void (*cmp_sink)(void *ctx, const struct cmp_item *it);

/* What was not compared because only one run measured it (a path or size). */
struct cmp_skip {
	long long rows_base_only, rows_new_only;
	char what[256];                 /* e.g. "tcp:eth0 4194304 B only in BASE" (the first ones) */
};

/* Count one row of path (or backend and op) at size found only in BASE (base_only) or NEW. */
void cmp_skip_note(struct cmp_skip *sk, const char *path, long long size, int base_only);

/* ---------------------------------------------------------------- noise */

/* One run's noise per (path, size, metric, tier). */
struct cmp_noise_key {
	int path;                       /* string id in its run */
	long long size;
	int metric, tier;
	double sigma;                   /* ln units */
	int n;                          /* pairs behind it */
	double median;                  /* the tier's median figure (ln units; NAN for pooled keys) */
};
struct cmp_noise {
	struct cmp_noise_key *k;
	int n;
};
int cmp_noise_build(const struct rundir *rd, struct cmp_noise *nz);
/* sigma for that key: the tier's, the path's pooled one, or CMP_SIGMA_DEFAULT */
double cmp_noise_get(const struct cmp_noise *nz, int path, long long size, int metric, int tier);
/* the tier's median figure for that key (not ln), NAN when the tier has too few pairs */
double cmp_noise_level(const struct cmp_noise *nz, int path, long long size, int metric, int tier);
void cmp_noise_free(struct cmp_noise *nz);
/* sigma from n residuals (ln units; reordered): p90(|r|) / 1.645, at least CMP_SIGMA_FLOOR;
 * NAN when n < 5. */
double cmp_sigma(double *r, int n);
/* the collectives' noise of one run per group (backend, path, op, dtype, redop): see above.
 * Built once per run, in O(rows log rows) (cmp_coll_noise_build), then looked up per item by
 * a row of the group; cmp_coll_sigma is the same figure for one group by scanning every row
 * (the reference, for the tests). */
#define CMP_COLL_GROUP 5
struct cmp_coll_noise_key {
	int id[CMP_COLL_GROUP];         /* string ids in its run */
	double sigma;                   /* ln units */
};
struct cmp_coll_noise {
	struct cmp_coll_noise_key *k;   /* in id order */
	int n;
};
int cmp_coll_noise_build(const struct rundir *rd, struct cmp_coll_noise *nz);
/* sigma of that group, or CMP_SIGMA_DEFAULT */
double cmp_coll_noise_get(const struct cmp_coll_noise *nz, const struct rd_coll *row);
void cmp_coll_noise_free(struct cmp_coll_noise *nz);
double cmp_coll_sigma(const struct rundir *rd, const struct rd_coll *row);

/* ---------------------------------------------------------------- comparing */

/* The class of before -> after (after_best: after, or its retest when that is closer to
 * before) for a metric where higher is better or not, at tolerance tol (ln units); the change
 * in % into *change_pct (NAN when either is missing). */
int cmp_classify(double before, double after_best, int higher_better, double tol, double *change_pct);
const char *cmp_class_name(int cls);
const char *cmp_kind_name(int kind);

int cmp_p2p(const struct rundir *base, const struct rundir *cur, const struct cmp_opts *o, cmp_sink sink,
	    void *ctx, struct cmp_skip *skip);
int cmp_coll(const struct rundir *base, const struct rundir *cur, const struct cmp_opts *o, cmp_sink sink,
	     void *ctx, struct cmp_skip *skip);
int cmp_inventory(const struct rundir *base, const struct rundir *cur, cmp_sink sink, void *ctx);

/* ---------------------------------------------------------------- the map */

enum { CMP_MAP_SAME, CMP_MAP_MOVED, CMP_MAP_SPLIT, CMP_MAP_MERGED, CMP_MAP_NEW, CMP_MAP_GONE, CMP_MAP_CHANGED };

/* One row of compare_topology.csv: a node at a tier (change same/moved/split/merged), a node
 * only in one run (tier -1, new/gone), or the number of tiers (host NULL, changed). */
struct cmp_map_row {
	int tier;
	const char *tier_name;
	const char *host;
	const char *before, *after;     /* group labels (or tier counts, for the tiers row) */
	const char *after_as;           /* the BASE group the after group is matched to */
	int change;
	char buf[3][24];
};
typedef void (*cmp_map_sink)(void *ctx, const struct cmp_map_row *row);
/* Compare the two runs' topology.csv. Returns 0, or FP_ERUNTIME. */
int cmp_map(const struct rundir *base, const struct rundir *cur, cmp_map_sink sink, void *ctx);
const char *cmp_map_change_name(int change);

/* it, present in one run only: gone (only in BASE: in_base) or new, said in its note. */
void cmp_one_side(struct cmp_item *it, int in_base);

#endif
