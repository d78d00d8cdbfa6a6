/* run_rails.c — `run --rails`: the rails judged from their maps (fabric/judge/rails.h), one
 * clause of the verdict. A port off its rail's leaf is a cabling finding: it fails the run (an
 * acceptance run with a cable in the wrong leaf is not accepted) and drains nothing (the node is
 * not at fault; its cable is), as the declared cabling's mismatches. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/escape.h"
#include "core/log.h"
#include "fabric/judge/rails.h"
#include "run_stage.h"

/* the probes of port (node, rail): its rail_where, or NULL (not probed) */
static const struct rail_where *where_of(const struct run_state *st, int node, int rail)
{
	for (int i = 0; i < st->nwhere; i++)
		if (st->where[i].node == node && st->where[i].rail == rail && st->where[i].ref >= 0)
			return &st->where[i];
	return NULL;
}

/* the nearest of wh's probes through a rail but skip (µs; INFINITY none) */
static double others_min(const struct rail_where *wh, int nrails, int skip)
{
	double m = INFINITY;

	for (int s = 0; s < nrails; s++)
		if (s != skip && isfinite(wh->us[s]) && wh->us[s] < m)
			m = wh->us[s];
	return m;
}

/* one port off its rail's leaf into text, with its pair's (said once, with the first), and the
 * leaf its probes put it in, with the probes' figures */
static void off_say(const struct run_state *st, const char *const *labels, const struct rail_off *o, char *text,
		    size_t len)
{
	const struct run_opts *c = st->c;
	const struct rail_where *a = where_of(st, o->node, o->rail);
	const struct rail_where *b = o->pair >= 0 ? where_of(st, o->node, o->pair) : NULL;

	if (o->pair >= 0 && o->pair < o->rail)
		return;
	text_add(text, len, ", ", "%s %s", labels[o->node], c->rails[o->rail]);
	if (a && b && a->leaf_rail == o->pair && b->leaf_rail == o->rail) {
		double rest = fmin(others_min(a, c->nrails, o->pair), others_min(b, c->nrails, o->rail));

		text_add(text, len, "", " and %s cabled into each other's rail leaves (two cables swapped; probed from %s: "
			 "%.1f and %.1f us through each other's rails, %.1f us or more through the others)",
			 c->rails[o->pair], labels[a->ref], a->us[o->pair], b->us[o->rail], rest);
		return;
	}
	if (o->pair >= 0)
		text_add(text, len, "", " and %s off their rails' leaves (two cables swapped, most likely)",
			 c->rails[o->pair]);
	else
		text_add(text, len, "", " off its rail's leaf");
	for (int i = 0; i < 2; i++) {
		const struct rail_where *p = i ? b : a;

		if (p && p->leaf_rail >= 0)
			text_add(text, len, "", "; %s %s is in %s's leaf (probed from %s: %.1f us through it, %.1f us or "
				 "more through the others)", labels[o->node], c->rails[p->rail], c->rails[p->leaf_rail],
				 labels[p->ref], p->us[p->leaf_rail], others_min(p, c->nrails, p->leaf_rail));
		else if (p && isinf(others_min(p, c->nrails, -1)))
			text_add(text, len, "", "; %s %s could not be probed from %s (no probe reached it: no address on "
				 "the port, or no route from one rail to another)", labels[o->node], c->rails[p->rail],
				 labels[p->ref]);
		else if (p)
			text_add(text, len, "", "; %s %s is near %s of %s's rail ports (probed: %.1f us the nearest)",
				 labels[o->node], c->rails[p->rail], p->nnear ? "more than one" : "none", labels[p->ref],
				 others_min(p, c->nrails, -1));
	}
}

/* a node finding's figure as its clause says it */
static void figure_say(const struct rail_node_finding *f, char *out, size_t len)
{
	if (f->kind == SUSPECT_LOW_BW_NODE)
		snprintf(out, len, " (%.0f%% of its rail's median bandwidth)", 100 * f->value);
	else if (f->kind == SUSPECT_SLOW_NODE)
		snprintf(out, len, " (+%.2f us on its rail's tier model)", f->value);
	else
		out[0] = 0;
}

/* the rails' node findings into text (", " between them): those of ports, and those of nodes
 * (said to tell them from their ports). Returns the ports' count, or -1 (out of memory). */
static int rails_findings(const struct run_opts *c, const char *const *labels, const struct susp_list *const *held,
			  char *text, size_t len)
{
	struct rail_node_finding *f;
	int nf, ports = 0;

	if (rails_node_findings(c->nrails, held, &f, &nf))
		return -1;
	for (int k = 0; k < nf; k++) {
		int on = __builtin_popcount(f[k].rails), said = 0;
		char fig[64];

		figure_say(&f[k], fig, sizeof fig);
		if (!f[k].ports) {
			text_add(text, len, ", ", "%s: %s%s on %d of %d rails (the node, not its ports)", labels[f[k].node],
				 susp_kind_name(f[k].kind), fig, on, c->nrails);
			continue;
		}
		ports++;
		text_add(text, len, ", ", "%s", labels[f[k].node]);
		for (int r = 0; r < c->nrails; r++)
			if (f[k].rails >> r & 1)
				text_add(text, len, said++ ? " and " : " ", "%s", c->rails[r]);
		text_add(text, len, "", " port%s: %s%s on %s alone (of %d rails)", on > 1 ? "s" : "",
			 susp_kind_name(f[k].kind), fig, on > 1 ? "those rails" : "that rail", c->nrails);
	}
	free(f);
	return ports;
}

/* the pass with every rail at once into text: the nodes whose rails fell short together, and
 * most directions short (no one node's to name); the count said (each fails the run), or -1
 * (out of memory) */
static int together_say(struct run_state *st, const char *const *labels, int n, char *text, size_t len)
{
	const struct run_opts *c = st->c;
	struct rails_together_report rep;
	int named = 0;

	for (int k = 0; k < st->nquiet; k++) { /* a port's counters come together */
		const struct rail_quiet *q = &st->quiet[k];
		int first = !k || q[-1].node != q->node || strcmp(q[-1].port, q->port);
		int last = k + 1 == st->nquiet || q[1].node != q->node || strcmp(q[1].port, q->port);

		if (first)
			text_add(text, len, ", ", "%s %s: ", labels[q->node], q->port);
		text_add(text, len, first ? "" : ", ", "%s +%llu", q->name, q->rise);
		if (last)
			text_add(text, len, "", " (over %d) while every rail ran at once with partners of its leaves "
				 "(congestion with no incast: the fabric's ECN or PFC settings, or a receiver that cannot "
				 "keep up)", CTR_QUIET_ALLOW);
		named += last;
	}
	if (!st->ntog)
		return named;
	if (rails_together_judge(n, st->tog, st->ntog, c->together_min, &rep))
		return -1;
	free(st->node_finds);
	st->nnode_finds = 0;
	if (!(st->node_finds = calloc((size_t)rep.nshort + 1, sizeof *st->node_finds))) {
		rails_together_free(&rep);
		return -1;
	}
	for (int k = 0; k < rep.nshort; k++) {
		const struct rails_together_short *s = &rep.sh[k];
		int both = k + 1 < rep.nshort && rep.sh[k + 1].node == s->node && s->other < 0;
		char what[RUN_NODE_FIND_WHAT_MAX];

		snprintf(what, sizeof what, "%d rails at once moved %.0f%% of their sum alone, %s", c->nrails,
			 100 * (both ? fmax(s->ratio, rep.sh[k + 1].ratio) : s->ratio),
			 both ? "sending and receiving" : s->dir ? "receiving" : "sending");
		text_add(text, len, ", ", "%s%s%s: %s, %s (the pairs' median %.0f%%: a PCIe uplink its NICs share, or a "
			 "host that cannot feed them)", labels[s->node], s->other >= 0 ? " or " : "",
			 s->other >= 0 ? labels[s->other] : "", what,
			 s->other >= 0 ? "between the two (two nodes: which one is not told)" : "with each of its partners",
			 100 * rep.median);
		if (s->other < 0) { /* a node's own: its actions (a pair's, neither told: none) */
			struct run_node_finding *f = &st->node_finds[st->nnode_finds++];

			snprintf(f->kind, sizeof f->kind, "rails_together");
			snprintf(f->host, sizeof f->host, "%s", labels[s->node]);
			snprintf(f->what, sizeof f->what, "%s", what);
		}
		named++;
		k += both;
	}
	if (rep.median < c->together_min) { /* most directions short: the fabric's, no one node's */
		text_add(text, len, ", ", "%d rails at once moved %.0f%% of their sum alone (the median of %d directions, "
			 "under --rails-together-min %.0f%%): the hosts' PCIe or cores, or this test's limit, on most nodes",
			 c->nrails, 100 * rep.median, rep.ntests, 100 * c->together_min);
		named++;
	}
	rails_together_free(&rep);
	return named;
}

int run_rails(struct run_state *st, const struct world *w, struct verdict *v, char *unjudged, size_t len)
{
	const char *const *labels = (const char *const *)w->labels;
	const struct run_opts *c = st->c;
	const struct infer_result *maps[RAILS_MAX];
	const struct susp_list *held[RAILS_MAX];
	struct rails_report rep;
	char text[1024] = "", found[1024] = "";
	int rc, ports, together;

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
			if (!strcmp(st->mp.p[i].m->path, c->rails[r])) {
				maps[r] = run_maps_map(&st->mp, i);
				held[r] = &st->mp.p[i].held;
			}
		if (!maps[r])
			text_add(unjudged, len, "; ", "--rails: %s has no map", c->rails[r]);
	}
	if (unjudged[0])
		return 0;
	if ((rc = rails_judge(c->nrails, maps[0]->n, maps, &rep)))
		return rc == FP_EUSAGE ? (snprintf(unjudged, len, "--rails: the rails' maps are of other endpoints"), 0)
				       : FP_ERUNTIME;
	if (!rep.judged && !rep.nalone)
		snprintf(unjudged, len, "--rails: no node's rails agree on a scalable unit of two or more");
	for (int k = 0; k < rep.noff; k++)
		off_say(st, labels, &rep.off[k], text, sizeof text);
	for (int k = 0; k < rep.nalone; k++)
		text_add(text, sizeof text, ", ", "%s: its rails agree on no scalable unit (most of its cables elsewhere)",
			 labels[rep.alone[k]]);
	if ((ports = rails_findings(c, labels, held, found, sizeof found)) < 0) {
		rails_report_free(&rep);
		return FP_ERUNTIME;
	}
	if ((together = together_say(st, labels, maps[0]->n, found, sizeof found)) < 0) {
		rails_report_free(&rep);
		return FP_ERUNTIME;
	}
	if (!text[0] && !unjudged[0])
		snprintf(text, sizeof text, "every port in its rail's leaf (%d nodes on %d rails)", rep.judged, c->nrails);
	rc = text[0] || found[0] ? verdict_add(v, VERDICT_RAILS, rep.noff || rep.nalone || ports || together,
					       "rails: %s%s%s", text, text[0] && found[0] ? "; " : "", found)
				 : 0;
	rails_report_free(&rep);
	return rc ? FP_ERUNTIME : 0;
}
