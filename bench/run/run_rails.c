/* run_rails.c — `run --rails`: the rails judged from their maps (fabric/judge/rails.h), one
 * clause of the verdict. A port off its rail's leaf is a cabling finding: it fails the run (an
 * acceptance run with a cable in the wrong leaf is not accepted) and drains nothing (the node is
 * not at fault; its cable is), as the declared cabling's mismatches. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "fabric/judge/rails.h"
#include "run_stage.h"

/* text += fmt's expansion, "..." where full */
static void __attribute__((format(printf, 3, 4))) put(char *text, size_t len, const char *fmt, ...)
{
	size_t k = strlen(text);
	va_list ap;

	va_start(ap, fmt);
	if (k + 1 < len && vsnprintf(text + k, len - k, fmt, ap) >= (int)(len - k) && len > 4)
		memcpy(text + len - 4, "...", 4);
	va_end(ap);
}

int run_rails(const struct run_state *st, const struct world *w, struct verdict *v, char *unjudged, size_t len)
{
	const char *const *labels = (const char *const *)w->labels;
	const struct run_opts *c = st->c;
	const struct infer_result *maps[RAILS_MAX];
	struct rails_report rep;
	char text[1024] = "";
	int rc;

	unjudged[0] = 0;
	if (!c->nrails)
		return 0;
	if (w->single_node) { /* ranks of one node share its ports: no rail of their own to judge */
		snprintf(unjudged, len, "--rails: the endpoints are ranks of one node, whose rails are not theirs");
		return 0;
	}
	for (int r = 0; r < c->nrails; r++) {
		maps[r] = NULL;
		for (int i = 0; i < st->mp.npaths; i++)
			if (!strcmp(st->mp.p[i].m->path, c->rails[r]))
				maps[r] = run_maps_map(&st->mp, i);
		if (!maps[r])
			put(unjudged, len, "%s--rails: %s has no map", unjudged[0] ? "; " : "", c->rails[r]);
	}
	if (unjudged[0])
		return 0;
	if ((rc = rails_judge(c->nrails, maps[0]->n, maps, &rep)))
		return rc == FP_EUSAGE ? (snprintf(unjudged, len, "--rails: the rails' maps are of other endpoints"), 0)
				       : FP_ERUNTIME;
	if (!rep.judged && !rep.nalone)
		snprintf(unjudged, len, "--rails: no node's rails agree on a scalable unit of two or more");
	for (int k = 0; k < rep.noff; k++) {
		const struct rail_off *o = &rep.off[k];

		if (o->pair >= 0 && o->pair < o->rail)
			continue; /* said with its pair */
		put(text, sizeof text, "%s%s %s", text[0] ? ", " : "", labels[o->node], c->rails[o->rail]);
		if (o->pair >= 0)
			put(text, sizeof text, " and %s off their rails' leaves (two cables swapped, most likely)",
			    c->rails[o->pair]);
		else
			put(text, sizeof text, " off its rail's leaf");
	}
	for (int k = 0; k < rep.nalone; k++)
		put(text, sizeof text, "%s%s: its rails agree on no scalable unit (most of its cables elsewhere)",
		    text[0] ? ", " : "", labels[rep.alone[k]]);
	if (text[0])
		rc = verdict_add(v, VERDICT_RAILS, 1, "rails: %s", text);
	else if (!unjudged[0])
		rc = verdict_add(v, VERDICT_RAILS, 0, "rails: every port in its rail's leaf (%d nodes on %d rails)",
				 rep.judged, c->nrails);
	rails_report_free(&rep);
	return rc ? FP_ERUNTIME : 0;
}
