/* plan_int.h — private to the bandwidth plan (plan.c, plan_check.c): each tier's groups. */
#ifndef FP_PLAN_INT_H
#define FP_PLAN_INT_H

/* The members of every group of one tier, by group: mem[first[g] .. first[g + 1] - 1], in node
 * order; and each group's parent (its group at the tier above; -1 at the top). */
struct tier_groups {
	int ng;
	int *first, *mem, *parent;
};

/* Each tier's groups of group (ntiers x n, tier-major), or NULL out of memory. */
struct tier_groups *plan_tiers_make(const int *group, int ntiers, int n);
void plan_tiers_free(struct tier_groups *tg, int ntiers);

#endif
