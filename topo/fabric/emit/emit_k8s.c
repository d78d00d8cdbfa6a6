/* emit_k8s.c — Kubernetes node labels, a Kueue Topology and Volcano HyperNodes. One label
 * per tier: <prefix>/tier-0 = the leaf switch, <prefix>/tier-1 = the spine, … Every name and
 * label is a double-quoted YAML scalar (emit_yaml_line) or a single-quoted shell word. */
#include <string.h>

#include "core/escape.h"
#include "core/log.h"
#include "emit.h"

static int names_ok(const struct emit_topo *t, char *err)
{
	if (!emit_label_prefix_ok(t->label_prefix)) {
		snprintf(err, EMIT_ERR_MAX, "label prefix '%.100s' is not a DNS subdomain", t->label_prefix);
		return FP_EUSAGE;
	}
	return emit_hosts_check(t, EMIT_FMT_K8S, err);
}

int emit_k8s_label_cmds(FILE *f, const struct emit_topo *t, char *err)
{
	const struct infer_result *r = t->tree;

	int rc = names_ok(t, err);

	if (rc)
		return rc;
	fputs("#!/bin/sh\n# Label each node with its switches, made by fabprobe from measured latencies\n", f);
	emit_comment(f, t->how);
	fputs("set -e\n", f);
	for (int k = 0; k < t->n; k++) {
		int node = r->order[k];

		fputs("kubectl label node ", f);
		escape_shell_write(f, t->hosts[node]);
		for (int tier = 0; tier < r->ntiers; tier++) {
			char g[EMIT_NAME_MAX], label[EMIT_ERR_MAX + 2 * EMIT_NAME_MAX];

			emit_group_name(t, tier, r->group[(size_t)tier * t->n + node], g);
			snprintf(label, sizeof label, "%s/tier-%d=%s", t->label_prefix, tier, g);
			fputc(' ', f);
			escape_shell_write(f, label);
		}
		fputs(" --overwrite\n", f);
	}
	return 0;
}

int emit_k8s_nodes(FILE *f, const struct emit_topo *t, char *err)
{
	const struct infer_result *r = t->tree;

	int rc = names_ok(t, err);

	if (rc)
		return rc;
	fputs("# Node labels for: kubectl apply --server-side --field-manager=fabprobe -f THIS\n", f);
	emit_comment(f, t->how);
	for (int k = 0; k < t->n; k++) {
		int node = r->order[k];

		fputs("---\napiVersion: v1\nkind: Node\nmetadata:\n", f);
		emit_yaml_line(f, "  name: ", NULL, t->hosts[node]);
		fputs("  labels:\n", f);
		for (int tier = 0; tier < r->ntiers; tier++) {
			char g[EMIT_NAME_MAX], key[EMIT_ERR_MAX + EMIT_NAME_MAX];

			emit_group_name(t, tier, r->group[(size_t)tier * t->n + node], g);
			snprintf(key, sizeof key, "%s/tier-%d", t->label_prefix, tier);
			emit_yaml_line(f, "    ", key, g);
		}
	}
	return 0;
}

int emit_kueue(FILE *f, const struct emit_topo *t, char *err)
{
	int rc = names_ok(t, err);

	if (rc)
		return rc;
	fputs("# Kueue Topology over fabprobe's tier labels (apply k8s-node-labels first)\n", f);
	emit_comment(f, t->how);
	fputs("apiVersion: kueue.x-k8s.io/v1beta1\nkind: Topology\nmetadata:\n  name: fabprobe\n"
	      "spec:\n  levels:\n", f);
	for (int tier = t->tree->ntiers - 1; tier >= 0; tier--) { /* coarsest first */
		char label[EMIT_ERR_MAX + EMIT_NAME_MAX];

		snprintf(label, sizeof label, "%s/tier-%d", t->label_prefix, tier);
		emit_yaml_line(f, "  - nodeLabel: ", NULL, label);
	}
	emit_yaml_line(f, "  - nodeLabel: ", NULL, "kubernetes.io/hostname");
	return 0;
}

int emit_volcano(FILE *f, const struct emit_topo *t, char *err)
{
	const struct infer_result *r = t->tree;

	int rc = names_ok(t, err);

	if (rc)
		return rc;
	fputs("# Volcano HyperNodes (tier 1 = leaf switch), made by fabprobe\n", f);
	emit_comment(f, t->how);
	for (int tier = 0; tier < r->ntiers; tier++)
		for (int g = 0; g < r->ngroups[tier]; g++) {
			char name[EMIT_NAME_MAX];
			int last = -1;

			emit_group_name(t, tier, g, name);
			fputs("---\napiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata:\n", f);
			emit_yaml_line(f, "  name: ", NULL, name);
			fprintf(f, "spec:\n  tier: %d\n  members:\n", tier + 1);
			for (int k = 0; k < t->n; k++) {
				int node = r->order[k], child;
				char cname[EMIT_NAME_MAX];

				if (r->group[(size_t)tier * t->n + node] != g)
					continue;
				if (tier == 0) {
					fputs("  - type: Node\n    selector:\n      exactMatch:\n", f);
					emit_yaml_line(f, "        name: ", NULL, t->hosts[node]);
					continue;
				}
				child = r->group[(size_t)(tier - 1) * t->n + node];
				if (child == last) /* children are contiguous in tree order */
					continue;
				last = child;
				emit_group_name(t, tier - 1, child, cname);
				fputs("  - type: HyperNode\n    selector:\n      exactMatch:\n", f);
				emit_yaml_line(f, "        name: ", NULL, cname);
			}
		}
	return 0;
}
