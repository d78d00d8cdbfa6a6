/* rails.c — see rails.h. */
#include "rails.h"

#include <stdlib.h>
#include <string.h>

#include "core/log.h"

/* the leaf group of node i in map r (0 for all when the map has one tier: no leaves told) */
static int leaf(const struct infer_result *r, int i)
{
	return r->ntiers > 1 ? r->group[i] : 0;
}

int rails_judge(int nrails, int n, const struct infer_result *const *maps, struct rails_report *rep)
{
	int *agree = calloc((size_t)(n > 0 ? n : 1), sizeof *agree), cap = 0;
	int *lone = calloc((size_t)(n > 0 ? n : 1), sizeof *lone), nlone = 0;

	memset(rep, 0, sizeof *rep);
	rep->nrails = nrails;
	rep->n = n;
	if (!agree || !lone || nrails < 3 || nrails > RAILS_MAX) {
		free(agree);
		free(lone);
		return agree && lone ? FP_EUSAGE : FP_ERUNTIME;
	}
	for (int r = 0; r < nrails; r++)
		if (!maps[r] || maps[r]->n != n) {
			free(agree);
			free(lone);
			return FP_EUSAGE;
		}
	for (int i = 0; i < n; i++) {
		int peers = 0, some = 0, off[RAILS_MAX], noff = 0;

		/* its unit: the nodes that share its leaf in half of the rails or more */
		for (int j = 0; j < n; j++) {
			agree[j] = 0;
			for (int r = 0; r < nrails && j != i; r++)
				agree[j] += leaf(maps[r], i) == leaf(maps[r], j);
			peers += 2 * agree[j] >= nrails;
			some |= agree[j] > 0;
		}
		if (!peers) { /* alone in every rail: a unit of its own; with some, its rails disagree */
			if (some)
				lone[nlone++] = i;
			continue;
		}
		rep->judged++;
		for (int r = 0; r < nrails; r++) {
			int with = 0;

			for (int j = 0; j < n && !with; j++)
				with = 2 * agree[j] >= nrails && leaf(maps[r], i) == leaf(maps[r], j);
			if (!with)
				off[noff++] = r;
		}
		for (int k = 0; k < noff; k++) {
			if (rep->noff == cap) {
				struct rail_off *o = realloc(rep->off, sizeof *o * (size_t)(cap = cap * 2 + 8));

				if (!o) {
					free(agree);
					free(lone);
					rails_report_free(rep);
					return FP_ERUNTIME;
				}
				rep->off = o;
			}
			rep->off[rep->noff++] = (struct rail_off){ i, off[k], noff == 2 ? off[1 - k] : -1 };
		}
	}
	free(agree);
	rep->alone = lone;
	rep->nalone = nlone;
	return 0;
}

void rails_report_free(struct rails_report *rep)
{
	free(rep->off);
	free(rep->alone);
	rep->off = NULL;
	rep->alone = NULL;
	rep->noff = rep->nalone = 0;
}
