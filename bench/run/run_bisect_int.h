/* run_bisect_int.h — private to the bisection under load (run_bisect.c: the adaptive plan, what
 * it says, the stage's part; run_bisect_find.c: the groups to bisect). */
#ifndef FP_RUN_BISECT_INT_H
#define FP_RUN_BISECT_INT_H

#include <stdio.h>

#include "fabric/emit/emit.h"
#include "fabric/plan/bisect.h"
#include "run_stage.h"

#define BISECT_GROUPS_MAX 8 /* per path: the highest tier's, the slowest first */
#define BISECT_FRAC 0.7

struct bis_group {
	int level, g, k;        /* the group: level's group g, k members */
	int *member, *partner;  /* k each, tree order; partner NULL: too few known good */
	int good;               /* known-good nodes found (below k: not bisected) */
	int said;               /* bursts said so far */
	double med, ref;        /* its streams' median in the loaded pass; the tier's reference */
	char name[EMIT_NAME_MAX];
	struct bisect b;
};

struct bis_path {
	const char *path;
	const struct infer_result *r;
	int n;
	struct bis_group grp[BISECT_GROUPS_MAX];
	int ngrp, cur;
	int dir, rep, reps, lo, hi; /* the burst under way: its step's direction, its repetition */
	float *v;                   /* its directions so far */
	int nv;
};

struct bis_ctx {
	struct bis_path p[P2P_PATHS_MAX];
	const char *const *labels;
	struct run_out *ro;
	FILE *csv;                  /* loaded_bisect.csv */
};

/* The groups of path bp's map pm whose streams fell under load in lm (the loaded matrix) into
 * bp, each with its known-good partners (labels: the endpoints' names). 0 or FP_ERUNTIME. */
int bis_find(struct bis_path *bp, const struct run_path_map *pm, const float *lm, const char *const *labels);

/* the q quantile of v (sorted in place), interpolated; NAN when empty */
double bis_quantile(float *v, int n, double q);

#endif
