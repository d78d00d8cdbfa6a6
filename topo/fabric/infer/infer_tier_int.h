/* infer_tier_int.h — private to the choice of tiers (infer_tier.c: candidates, refinement and
 * the tiers; infer_tier_judge.c: whether a refined tier stands). */
#ifndef FP_INFER_TIER_INT_H
#define FP_INFER_TIER_INT_H

#include "infer_int.h"

#define CAND_MAX 48      /* widest gaps tried */
#define GROUPS_MAX 4096  /* groups of one candidate tier (memory: 2 x groups² floats) */
#define SWEEPS_MAX 4
#define MOVE_Z 3         /* standard errors by which a unit must be closer to move */
#define TIER_FEW 4      /* nodes in a group below which its pairs are judged one by one */
#define FIT_Z 4          /* tier_fits: standard deviations of the count of pairs across the midway */
#define FIT_SLACK 0.03   /* and the share of its pairs a tier may have there beyond the noise's */
#define FIT_SAMPLE ((size_t)1 << 21) /* pairs tier_fits counts at most (a sample beyond) */
#define LONE_Z 6         /* pair sigmas below its next tier for two lone nodes to share a switch */

struct tier_eval {
	const struct infer_ctx *c;
	const struct infer_tree *t;
	int n, nm;
	int *ord, *rank;      /* merges by (heff, index); rank of each merge */
	double *psum, *pcnt;  /* prefix sums over ord of h * cnt and of cnt */
	int *comp, ncomp;     /* per node: its connected part (a tree root) */
	int *lab, *gid;       /* per tree node: its group's root at a cut, that root's number */
	/* units: the groups of the tier below (the nodes at tier 0) */
	int *unit, nunit;
	float *uu, *uc;       /* nunit² sums and counts of d between units (tier >= 1) */
	/* the partition being judged */
	int *ug, *newg, g;    /* per unit: group; groups */
	int *gsize;           /* per group: units */
	float *gg, *gc;       /* g²: sums and counts of d between groups, within = twice */
	double *s, *sc;       /* per group: one unit's sums and counts */
	const unsigned char *join; /* per node (NULL: none): alone at tier 0, joins its nearest group */
};

struct tier_verdict {
	int ok, oom;        /* the tier stands; out of memory judging it (the map fails) */
	double bmin, sep_z, sep_step;  /* lowest nearest-mean; the weakest separations */
	long long sep_pairs, within;
	double wsum, wcnt;  /* d summed over the tier's own pairs, and their count */
};

/* Whether groups at mean b (nb pairs) stand clear of a level w (nw pairs): z standard errors
 * and the step in pair sigmas both enough (*z: the separation). */
int tier_sep_stands(const struct infer_ctx *c, double b, double w, double nb, double nw, double *z);
/* Whether the partition in e->ug stands as a tier, the weak groups joined to their nearest
 * first (their count into *joined); the evidence into v (infer_tier_judge.c). */
int tier_stands(struct tier_eval *e, struct tier_verdict *v, int *joined);

#endif
