/* p2p_plan.c — a measurement plan's one wire format (p2p.h): rank 0 makes a plan, every rank
 * reads it from the same ints. */
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "p2p.h"

int p2p_plan_unpack(const int *buf, int len, const struct p2p_opts *o, int nep, struct p2p_plan *pl)
{
	int k = 1, directed = pl->directed;

	pl->npaths = len > 0 ? buf[0] : len == 0 ? 0 : -1; /* none: nothing to measure */
	if (pl->npaths < 0 || pl->npaths > o->npaths)
		return FP_ERUNTIME;
	for (int i = 0; i < pl->npaths; i++) {
		int np = k < len ? buf[k++] : -1, ns = k < len ? buf[k++] : -1;

		if (np < 0 || ns < 0 || (long)k + ns + 1 + 2L * np > len)
			return FP_ERUNTIME;
		snprintf(pl->path[i], sizeof pl->path[i], "%s", o->paths[i]);
		pl->npairs[i] = np;
		pl->nsteps[i] = ns;
		pl->pair[i] = malloc(sizeof *pl->pair[i] * ((size_t)np + 1));
		if (!pl->pair[i] || (ns > 0 && !(pl->step_first[i] = malloc(sizeof *pl->step_first[i] * ((size_t)ns + 1)))))
			return FP_ERUNTIME;
		for (int s = 0; s <= ns; s++, k++) /* no steps: one pair a step (step_first NULL) */
			if (ns > 0)
				pl->step_first[i][s] = buf[k];
		for (int j = 0; j < np; j++, k += 2) {
			if (buf[k] < 0 || buf[k + 1] < 0 || buf[k] >= nep || buf[k + 1] >= nep || buf[k] == buf[k + 1] ||
			    (!directed && buf[k] > buf[k + 1]))
				return FP_ERUNTIME;
			pl->pair[i][j] = (struct sched_pair){ buf[k], buf[k + 1] };
		}
		if (ns > 0 && (pl->step_first[i][0] != 0 || pl->step_first[i][ns] != np))
			return FP_ERUNTIME;
		for (int s = 0; s < ns; s++)
			if (pl->step_first[i][s] > pl->step_first[i][s + 1])
				return FP_ERUNTIME;
	}
	return 0;
}

void p2p_plan_free(struct p2p_plan *pl)
{
	for (int i = 0; i < pl->npaths && i < P2P_PATHS_MAX; i++) {
		free(pl->pair[i]);
		free(pl->step_first[i]);
		pl->pair[i] = NULL;
		pl->step_first[i] = NULL;
	}
}
