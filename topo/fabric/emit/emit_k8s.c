/* emit_k8s.c — Kubernetes node labels, a Kueue Topology and Volcano HyperNodes. One label
 * per tier: <prefix>/tier-0 = the leaf switch, <prefix>/tier-1 = the spine, …, and where the
 * inventory found NVLink domains <prefix>/nvlink-domain = "<cluster UUID>.<clique id>" (the
 * value NVIDIA's GPU feature discovery gives nvidia.com/gpu.clique). Every name and label is
 * a double-quoted YAML scalar (emit_yaml_line) or a single-quoted shell word. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/escape.h"
#include "core/log.h"
#include "emit.h"

/* a label value Kubernetes accepts: at most 63 of [A-Za-z0-9._-], alphanumeric at both ends */
static int label_value_ok(const char *v)
{
	size_t n = strlen(v);

	if (!n || n > 63 || !isalnum((unsigned char)v[0]) || !isalnum((unsigned char)v[n - 1]))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)v[i]) && !strchr("._-", v[i]))
			return 0;
	return 1;
}

/* node's NVLink domain as a label value, NULL when none */
static const char *domain_of(const struct emit_topo *t, int node)
{
	return t->domain && t->domain[node] && t->domain[node][0] ? t->domain[node] : NULL;
}

static int names_ok(const struct emit_topo *t, char *err)
{
	if (!emit_label_prefix_ok(t->label_prefix)) {
		snprintf(err, EMIT_ERR_MAX, "label prefix '%.100s' is not a DNS subdomain", t->label_prefix);
		return FP_EUSAGE;
	}
	for (int i = 0; i < t->n; i++)
		if (domain_of(t, i) && !label_value_ok(domain_of(t, i))) {
			snprintf(err, EMIT_ERR_MAX, "%.60s: NVLink domain '%.80s' is not a label value", t->hosts[i],
				 domain_of(t, i));
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
		if (domain_of(t, node)) {
			char label[EMIT_ERR_MAX + 80];

			snprintf(label, sizeof label, "%s/nvlink-domain=%s", t->label_prefix, domain_of(t, node));
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
		if (domain_of(t, node)) {
			char key[EMIT_ERR_MAX + 16];

			snprintf(key, sizeof key, "%s/nvlink-domain", t->label_prefix);
			emit_yaml_line(f, "    ", key, domain_of(t, node));
		}
	}
	return 0;
}

/* The lowest tier whose every group holds each NVLink domain whole (a domain never spans two
 * of its switches): the Kueue levels go from the top down to it, then the domain. ntiers when
 * no tier does (the domains span the top's groups: then the domain level alone). */
static int domain_tier(const struct emit_topo *t)
{
	const struct infer_result *r = t->tree;
	const char **dom = calloc((size_t)t->n + 1, sizeof *dom);
	int *idx = calloc((size_t)t->n + 1, sizeof *idx), *first = calloc((size_t)t->n + 1, sizeof *first);
	int ndom = 0, tier = r->ntiers;

	for (int i = 0; dom && idx && first && i < t->n; i++) {
		int d = 0;

		idx[i] = -1;
		if (!domain_of(t, i))
			continue;
		while (d < ndom && strcmp(dom[d], domain_of(t, i)))
			d++;
		if (d == ndom)
			dom[ndom++] = domain_of(t, i);
		idx[i] = d;
	}
	for (int k = 0; dom && idx && first && k < r->ntiers && tier == r->ntiers; k++) {
		int whole = 1;

		for (int d = 0; d < ndom; d++)
			first[d] = -1;
		for (int i = 0; i < t->n && whole; i++) {
			int g = r->group[(size_t)k * t->n + i];

			if (idx[i] < 0)
				continue;
			if (first[idx[i]] < 0)
				first[idx[i]] = g;
			whole = first[idx[i]] == g;
		}
		if (whole)
			tier = k;
	}
	free(dom);
	free(idx);
	free(first);
	return tier;
}

int emit_kueue(FILE *f, const struct emit_topo *t, char *err)
{
	int rc = names_ok(t, err);

	if (rc)
		return rc;
	int domains = 0, low = 0;

	for (int i = 0; i < t->n; i++)
		domains += domain_of(t, i) != NULL;
	if (domains)
		low = domain_tier(t);
	fputs("# Kueue Topology over fabprobe's tier labels (apply k8s-node-labels first)\n", f);
	emit_comment(f, t->how);
	if (domains)
		fprintf(f, "# the NVLink domain is the level above the node%s; nvidia.com/gpu.clique, where NVIDIA's GPU\n"
			   "# feature discovery sets it, holds the same values\n",
			low ? ", below the tiers that hold each domain whole (finer tiers split domains: left out)" : "");
	fputs("apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\nmetadata:\n  name: fabprobe\n"
	      "spec:\n  levels:\n", f);
	for (int tier = t->tree->ntiers - 1; tier >= low; tier--) { /* coarsest first */
		char label[EMIT_ERR_MAX + EMIT_NAME_MAX];

		snprintf(label, sizeof label, "%s/tier-%d", t->label_prefix, tier);
		emit_yaml_line(f, "  - nodeLabel: ", NULL, label);
	}
	if (domains) {
		char label[EMIT_ERR_MAX + 16];

		snprintf(label, sizeof label, "%s/nvlink-domain", t->label_prefix);
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
