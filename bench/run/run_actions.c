/* run_actions.c — the actions the run suggests (run_stage.h), written after the verdict, never
 * applied: drain-slurm.sh and k8s-health-labels.yaml (topo/fabric/emit/emit_actions.c). A node
 * fails when a finding on the node held on some path (a slow or low-bandwidth node, one never
 * measured), or when a flap or error counter of one of its ports rose; a finding on a link
 * names two nodes and fails neither (report.html, suspects.csv and junit.xml name it). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/escape.h"
#include "core/log.h"
#include "core/results.h"
#include "fabric/emit/emit.h"
#include "fabric/emit/topo_csv.h"
#include "run_stage.h"

/* append "; text" to reasons[a] (EMIT_REASON_MAX each) */
static void reason_add(char *reasons, int a, const char *text)
{
	char *r = reasons + (size_t)a * EMIT_REASON_MAX;
	size_t k = strlen(r);

	if (k + 3 < EMIT_REASON_MAX && snprintf(r + k, EMIT_REASON_MAX - k, "%s%s", k ? "; " : "", text) < 0)
		r[k] = 0;
}

/* each endpoint's findings, one line each ("" when none) */
static void reasons_fill(const struct world *w, const struct run_state *st, char *reasons)
{
	const struct run_maps *mp = &st->mp;

	for (int i = 0; i < mp->npaths; i++) {
		const struct run_path_map *p = &mp->p[i];
		struct emit_topo t = { .n = w->nep, .hosts = (const char *const *)w->labels, .tree = run_maps_map(mp, i) };

		for (int k = 0; t.tree && k < p->held.n; k++) {
			struct topo_finding fd;
			char text[EMIT_REASON_MAX];

			if (!susp_on_node(&p->held.s[k]) || p->held.s[k].a < 0 || p->held.s[k].a >= w->nep)
				continue;
			topo_finding_get(&t, &p->held, k, &fd);
			if (isfinite(fd.v) && isfinite(fd.e) && fd.metric[0])
				snprintf(text, sizeof text, "%s on %s (%s %.3g, expected %.3g)", susp_kind_name(fd.s->kind),
					 p->m->path, fd.metric, fd.v, fd.e);
			else
				snprintf(text, sizeof text, "%s on %s", susp_kind_name(fd.s->kind), p->m->path);
			reason_add(reasons, fd.s->a, text);
		}
	}
	for (int i = 0; i < st->links.nfind; i++) {
		const struct run_link_finding *f = &st->links.find[i];
		char text[EMIT_REASON_MAX];

		for (int e = 0; e < w->nep; e++)
			if (!strcmp(w->labels[e], f->node)) {
				if (snprintf(text, sizeof text, "%s %s (%s)", f->kind, f->port, f->what) >= (int)sizeof text)
					strcpy(text + sizeof text - 5, "...)");
				reason_add(reasons, e, text);
			}
	}
}

/* one file of the actions: written whole, or not at all (said) */
static int action_write(const struct run_out *ro, const char *name, int (*emit)(FILE *, const struct emit_health *, char *),
			const struct emit_health *h)
{
	struct results_file out;
	char err[EMIT_ERR_MAX] = "";
	int rc;

	if (results_tmp_open(&out, ro->dir, name))
		return FP_ERUNTIME;
	if ((rc = emit(out.f, h, err))) {
		results_tmp_abort(&out);
		escape_term_line(stderr, "fabprobe: warning: %s not written: %s", name, err);
		return rc == FP_EUSAGE ? 0 : rc;
	}
	return results_tmp_commit(&out) ? FP_ERUNTIME : 0;
}

int run_actions_write(const struct world *w, const struct run_out *ro, const struct run_state *st)
{
	char *reasons = calloc((size_t)w->nep + 1, EMIT_REASON_MAX), tag[128], how[320], when[32];
	const char **why = calloc((size_t)w->nep + 1, sizeof *why);
	int rc = 0;

	if (!reasons || !why) {
		free(reasons);
		free(why);
		return FP_ERUNTIME;
	}
	if (!w->single_node) /* on one node the endpoints are ranks, not nodes a scheduler drains */
		reasons_fill(w, st, reasons);
	for (int e = 0; e < w->nep; e++)
		why[e] = reasons[(size_t)e * EMIT_REASON_MAX] ? reasons + (size_t)e * EMIT_REASON_MAX : NULL;
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&ro->started));
	snprintf(tag, sizeof tag, "fabprobe %s", ro->run_id);
	snprintf(how, sizeof how, "fabprobe %s run %s, started %s", FP_VERSION, ro->run_id, when);
	struct emit_health h = { .n = w->single_node ? 0 : w->nep, .hosts = (const char *const *)w->labels, .why = why,
				 .run_tag = tag, .how = how, .label_prefix = st->c->label_prefix,
				 .taint = st->c->k8s_taint };

	rc = action_write(ro, "drain-slurm.sh", emit_drain_slurm, &h);
	if (action_write(ro, "k8s-health-labels.yaml", emit_k8s_health, &h))
		rc = FP_ERUNTIME;
	free(reasons);
	free(why);
	return rc;
}
