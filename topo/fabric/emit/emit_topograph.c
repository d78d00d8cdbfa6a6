/* emit_topograph.c — the measured tree in NVIDIA topograph's forms (1.0, August 2026), for a
 * cluster that already runs topograph: its graph engine's JSON (an instance per node with its
 * network_layers, closest switch first) carrying topograph's node labels
 * (fabric.topograph.run/tier-N, N = 0 the leaf), and its simulation model YAML (switches and
 * their children, blocks of nodes under a leaf), which topograph's *-sim providers read as
 * modelFileName. Written only with --topograph (emit.h's opt_in). */
#include "core/escape.h"
#include "core/jw.h"
#include "core/log.h"
#include "emit.h"

#define TOPOGRAPH_TIER_KEY "fabric.topograph.run/tier-"

int emit_topograph_graph(FILE *f, const struct emit_topo *t, char *err)
{
	const struct infer_result *r = t->tree;
	int rc = emit_hosts_check(t, EMIT_FMT_SLURM, err); /* topograph's node names are Slurm's or Kubernetes' */

	if (rc)
		return rc;
	struct jw j;

	jw_init(&j, f);
	jw_object(&j, 0);
	jw_karray(&j, "instances", 0);
	for (int k = 0; k < t->n; k++) {
		int node = r->order[k];
		char g[INFER_TIERS_MAX][EMIT_NAME_MAX];

		for (int tier = 0; tier < r->ntiers && tier < INFER_TIERS_MAX; tier++)
			emit_group_name(t, tier, r->group[(size_t)tier * t->n + node], g[tier]);
		jw_object(&j, 1);
		jw_kstr(&j, "id", t->hosts[node]);
		jw_karray(&j, "network_layers", 1);
		for (int tier = 0; tier < r->ntiers && tier < INFER_TIERS_MAX; tier++)
			jw_str(&j, g[tier]);
		jw_end(&j);
		jw_kobject(&j, "labels", 1);
		for (int tier = 0; tier < r->ntiers && tier < INFER_TIERS_MAX; tier++) {
			char key[64];

			snprintf(key, sizeof key, TOPOGRAPH_TIER_KEY "%d", tier);
			jw_kstr(&j, key, g[tier]);
		}
		jw_end(&j);
		jw_end(&j);
	}
	jw_end(&j);
	jw_end(&j);
	return jw_done(&j) ? FP_ERUNTIME : 0;
}

int emit_topograph_model(FILE *f, const struct emit_topo *t, char *err)
{
	const struct infer_result *r = t->tree;
	int rc = emit_hosts_check(t, EMIT_FMT_SLURM, err); /* no ',' or '[': a block's names are ranges */

	if (rc)
		return rc;
	fputs("# topograph simulation model (modelFileName of a *-sim provider), made by fabprobe from\n"
	      "# measured latencies\n", f);
	emit_comment(f, t->how);
	fputs("switches:\n", f);
	for (int tier = r->ntiers - 1; tier >= 1; tier--) /* the tiers above the leaves, coarsest first */
		for (int g = 0; g < r->ngroups[tier]; g++) {
			char name[EMIT_NAME_MAX];
			int last = -1;

			emit_group_name(t, tier, g, name);
			fprintf(f, "  %s:\n    switches:\n", name);
			for (int k = 0; k < t->n; k++) {
				int node = r->order[k], child = r->group[(size_t)(tier - 1) * t->n + node];
				char cname[EMIT_NAME_MAX];

				if (r->group[(size_t)tier * t->n + node] != g || child == last)
					continue;
				last = child;
				emit_group_name(t, tier - 1, child, cname);
				fprintf(f, "    - %s\n", cname);
			}
		}
	if (r->ntiers == 1) { /* one leaf: a switch of its own, no children */
		char name[EMIT_NAME_MAX];

		emit_group_name(t, 0, 0, name);
		fprintf(f, "  %s: {}\n", name);
	}
	fputs("blocks:\n", f);
	for (int g = 0; g < r->ngroups[0]; g++) {
		char name[EMIT_NAME_MAX];

		emit_group_name(t, 0, g, name);
		fprintf(f, "- switch: %s\n  nodes:\n", name);
		for (int k = 0; k < t->n; k++)
			if (r->group[r->order[k]] == g)
				emit_yaml_line(f, "  - ", NULL, t->hosts[r->order[k]]);
	}
	return 0;
}
