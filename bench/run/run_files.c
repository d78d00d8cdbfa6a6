/* run_files.c — the run's own files, once the verdict is made (run_stage.h): the model they are
 * written from (fabric/emit/run_model.h), filled from the stages, and each file written whole
 * or not at all: summary.json, fabprobe.prom, junit.xml, and the actions (drain-slurm.sh,
 * k8s-health-labels.yaml), never applied. A node fails in the actions when a finding on it held
 * on some path or a flap or error counter of one of its ports rose; a finding on a link names two
 * nodes and fails neither (report.html, suspects.csv and junit.xml name it). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/escape.h"
#include "core/log.h"
#include "core/results.h"
#include "fabric/emit/emit.h"
#include "fabric/emit/run_model.h"
#include "run_stage.h"

_Static_assert(RUN_MODEL_PATHS_MAX >= P2P_PATHS_MAX, "a model holds every path");

/* m from the stages' records; the line is the verdict's */
static void run_model_make(const struct world *w, const struct run_out *ro, const struct run_state *st,
			   const char *line, struct run_model *m)
{
	const struct run_opts *c = st->c;
	const struct run_maps *mp = &st->mp;

	*m = (struct run_model){ .run_id = ro->run_id, .version = FP_VERSION, .started = ro->started, .argc = ro->argc,
				 .argv = ro->argv, .nodes = w->nnodes, .ranks = w->size, .n = w->nep,
				 .hosts = (const char *const *)w->labels, .single_node = w->single_node,
				 .nasked = c->p2p.npaths, .npaths = mp->npaths, .compute = mp->compute,
				 .inventoried = !c->no_inventory, .inventory_differs = st->irc != 0,
				 .pairs_failed = st->prc || st->krc, .coll_run = !c->no_coll, .min_pct = c->min_pct,
				 .coll = &st->coll, .links = &st->links.sum, .nnode_finds = st->nnode_finds,
				 .node_finds = st->node_finds, .verdict = &st->verdict, .line = line,
				 .which = st->which, .unjudged = st->unjudged, .unjudged_fails = st->urc,
				 .label_prefix = c->label_prefix, .k8s_taint = c->k8s_taint };
	for (int i = 0; i < c->p2p.npaths && i < RUN_MODEL_PATHS_MAX; i++)
		m->asked[i] = c->p2p.paths[i];
	for (int i = 0; i < mp->npaths; i++) {
		const struct run_path_map *p = &mp->p[i];
		const struct p2p_matrices *x = p->m;

		m->path[i] = (struct run_model_path){ .path = x->path, .kind = x->kind, .line_rate_Gbps = x->line_rate_Gbps,
						      .ok = x->ok, .failed = x->failed, .n = x->n, .lat_min = x->lat_min,
						      .lat_p50 = x->lat_p50, .lat_p99 = x->lat_p99, .bw = x->bw,
						      .map = run_maps_map(mp, i), .held = &p->held,
						      .rest = p->first.n || p->rest.n ? &p->rest : NULL };
	}
}

/* one file from m: written whole, or not at all (said) */
static int file_write(const struct run_out *ro, const char *name, int (*emit)(FILE *, const struct run_model *),
		      const struct run_model *m)
{
	struct results_file out;

	if (results_tmp_open(&out, ro->dir, name))
		return FP_ERUNTIME;
	if (emit(out.f, m)) {
		results_tmp_abort(&out);
		return FP_ERUNTIME;
	}
	return results_tmp_commit(&out) ? FP_ERUNTIME : 0;
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

/* drain-slurm.sh and k8s-health-labels.yaml: the nodes at fault by m's findings */
static int actions_write(const struct run_out *ro, const struct run_model *m)
{
	char *reasons = calloc((size_t)m->n + 1, EMIT_REASON_MAX), tag[128], how[320], when[32];
	const char **why = calloc((size_t)m->n + 1, sizeof *why);
	int rc = 0;

	if (!reasons || !why) {
		free(reasons);
		free(why);
		return FP_ERUNTIME;
	}
	run_model_reasons(m, reasons, why);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&m->started));
	snprintf(tag, sizeof tag, "fabprobe %s", m->run_id);
	snprintf(how, sizeof how, "fabprobe %s run %s, started %s", m->version, m->run_id, when);
	/* on one node the endpoints are ranks, not nodes a scheduler drains */
	struct emit_health h = { .n = m->single_node ? 0 : m->n, .hosts = m->hosts, .why = why, .run_tag = tag,
				 .how = how, .label_prefix = m->label_prefix, .taint = m->k8s_taint };

	rc = action_write(ro, "drain-slurm.sh", emit_drain_slurm, &h);
	if (action_write(ro, "k8s-health-labels.yaml", emit_k8s_health, &h))
		rc = FP_ERUNTIME;
	free(reasons);
	free(why);
	return rc;
}

/* path-env.sh: each path's environment for the libraries, and the rails' at once in rail order */
static int path_env_write(const struct run_out *ro, const struct run_state *st)
{
	const struct run_opts *c = st->c;
	const char *paths[P2P_PATHS_MAX];
	char rails[COLL_ENV_VALUE_MAX] = "", how[160];
	struct results_file out;
	int n = 0, tcp = c->nrails && !strncmp(c->rails[0], "tcp:", 4), skip = tcp ? 4 : 6;

	for (int i = 0; i < c->p2p.npaths; i++)
		paths[n++] = c->p2p.paths[i];
	for (int r = 0; r < c->nrails; r++) {
		if (strncmp(c->rails[r], tcp ? "tcp:" : "verbs:", (size_t)skip)) {
			rails[0] = 0; /* rails of two kinds: no library takes them at once */
			break;
		}
		text_add(rails, sizeof rails, "+", "%s%s", r ? "" : tcp ? "tcp:" : "verbs:", c->rails[r] + skip);
	}
	snprintf(how, sizeof how, "fabprobe %s run %s", FP_VERSION, ro->run_id);
	if (results_tmp_open(&out, ro->dir, "path-env.sh"))
		return FP_ERUNTIME;
	if (!coll_path_env_script(out.f, how, paths, n, rails[0] ? rails : NULL)) {
		results_tmp_abort(&out); /* mpi alone: nothing to point at */
		return 0;
	}
	return results_tmp_commit(&out) ? FP_ERUNTIME : 0;
}

void run_files_write(const struct world *w, const struct run_out *ro, const struct run_state *st, const char *line)
{
	struct run_model m;

	run_model_make(w, ro, st, line, &m);
	if (file_write(ro, "summary.json", emit_summary_json, &m))
		LOG_ERROR("summary.json could not be written (the other files stand)");
	if (file_write(ro, "fabprobe.prom", emit_prom, &m))
		LOG_ERROR("fabprobe.prom could not be written (the other files stand)");
	if (file_write(ro, "junit.xml", emit_junit, &m))
		LOG_ERROR("junit.xml could not be written (the other files stand)");
	if (actions_write(ro, &m))
		LOG_ERROR("drain-slurm.sh or k8s-health-labels.yaml could not be written (the other files stand)");
	if (path_env_write(ro, st))
		LOG_ERROR("path-env.sh could not be written (the other files stand)");
}
