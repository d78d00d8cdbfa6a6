/* emit.c — the registry of emitted files (core/registry.h), and the naming rules they share. */
#include "emit.h"

#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/escape.h"
#include "core/log.h"
#include "core/registry.h"

REGISTRY_SHAPE(struct emit_file);

static const struct emit_file emit_node_order_file = {
	.name = "node-order.txt",
	.summary = "hosts in tree order, one per line",
	.install = "any tool that takes a host list, in this order",
	.write = emit_node_order,
};
static const struct emit_file emit_ompi_hostfile_file = {
	.name = "hostfile.openmpi",
	.summary = "Open MPI hostfile (host slots=N), tree order",
	.install = "mpirun --hostfile hostfile.openmpi",
	.write = emit_ompi_hostfile,
};
static const struct emit_file emit_ompi_rankfile_file = {
	.name = "rankfile.openmpi",
	.summary = "Open MPI rankfile (rank R=host slot=S)",
	.install = "mpirun --rankfile rankfile.openmpi",
	.write = emit_ompi_rankfile,
};
static const struct emit_file emit_mpich_machinefile_file = {
	.name = "machinefile.mpich",
	.summary = "MPICH/Hydra machinefile (host:N)",
	.install = "mpiexec -f machinefile.mpich",
	.write = emit_mpich_machinefile,
};
static const struct emit_file emit_slurm_hostfile_file = {
	.name = "slurm-hostfile",
	.summary = "SLURM_HOSTFILE for srun --distribution=arbitrary (a line per task)",
	.install = "SLURM_HOSTFILE=slurm-hostfile srun --distribution=arbitrary",
	.write = emit_slurm_hostfile,
};
static const struct emit_file emit_slurm_tree_file = {
	.name = "topology.conf",
	.summary = "Slurm topology/tree",
	.install = "next to slurm.conf, TopologyPlugin=topology/tree, then scontrol reconfigure",
	.write = emit_slurm_tree,
};
static const struct emit_file emit_slurm_block_file = {
	.name = "topology-block.conf",
	.summary = "Slurm topology/block",
	.install = "as topology.conf (renamed to it), with TopologyPlugin=topology/block",
	.write = emit_slurm_block,
};
static const struct emit_file emit_slurm_yaml_file = {
	.name = "topology.yaml",
	.summary = "Slurm topology.yaml (tree, default; and block)",
	.install = "next to slurm.conf (it overrides topology.conf), then scontrol reconfigure",
	.write = emit_slurm_yaml,
};
static const struct emit_file emit_k8s_label_cmds_file = {
	.name = "k8s-node-labels.sh",
	.summary = "kubectl label commands, one per node",
	.install = "sh k8s-node-labels.sh",
	.write = emit_k8s_label_cmds,
};
static const struct emit_file emit_k8s_nodes_file = {
	.name = "k8s-node-labels.yaml",
	.summary = "Node objects for kubectl apply --server-side",
	.install = "kubectl apply --server-side -f k8s-node-labels.yaml",
	.write = emit_k8s_nodes,
};
static const struct emit_file emit_kueue_file = {
	.name = "kueue-topology.yaml",
	.summary = "Kueue Topology over the tier labels",
	.install = "kubectl apply -f kueue-topology.yaml",
	.write = emit_kueue,
};
static const struct emit_file emit_volcano_file = {
	.name = "volcano-hypernodes.yaml",
	.summary = "Volcano HyperNodes, tier 1 = leaf",
	.install = "kubectl apply -f volcano-hypernodes.yaml",
	.write = emit_volcano,
};

static const struct emit_file emit_topograph_graph_file = {
	.name = "topograph-graph.json",
	.summary = "NVIDIA topograph 1.0 graph: network_layers and fabric.topograph.run/tier-N labels",
	.install = "where topograph's graph output is read, or label nodes with its keys",
	.opt_in = "--topograph",
	.write = emit_topograph_graph,
};
static const struct emit_file emit_topograph_model_file = {
	.name = "topograph-model.yaml",
	.summary = "NVIDIA topograph 1.0 simulation model: switches and blocks",
	.install = "a *-sim provider's modelFileName (topograph 1.0)",
	.opt_in = "--topograph",
	.write = emit_topograph_model,
};

const struct emit_file *const emit_registry[] = {
	&emit_node_order_file,
	&emit_ompi_hostfile_file,
	&emit_ompi_rankfile_file,
	&emit_mpich_machinefile_file,
	&emit_slurm_hostfile_file,
	&emit_slurm_tree_file,
	&emit_slurm_block_file,
	&emit_slurm_yaml_file,
	&emit_k8s_label_cmds_file,
	&emit_k8s_nodes_file,
	&emit_kueue_file,
	&emit_volcano_file,
	&emit_topograph_graph_file,
	&emit_topograph_model_file,
	NULL,
};

void emit_tier_kind(int tier, char *out)
{
	static const char *const kind[] = { "leaf", "spine", "core" };

	if (tier >= 0 && tier < 3)
		snprintf(out, EMIT_NAME_MAX, "%s", kind[tier]);
	else
		snprintf(out, EMIT_NAME_MAX, "tier%d", tier);
}

void emit_group_name(const struct emit_topo *t, int tier, int g, char *out)
{
	char kind[EMIT_NAME_MAX];
	int width = 2;

	for (int x = t->tree->ngroups[tier] - 1; x >= 100; x /= 10)
		width++;
	emit_tier_kind(tier, kind);
	/* a digit after "tier3" would run into the group number: "tier3-07" */
	snprintf(out, EMIT_NAME_MAX, tier < 3 ? "%s%0*d" : "%s-%0*d", kind, width, g);
}

/* RFC 1123 subdomain: dot-separated labels of [a-z0-9-], each starting and ending
 * alphanumeric, at most 253 characters */
static int dns_subdomain_ok(const char *s)
{
	size_t len = strlen(s);
	const char *label = s;

	if (len == 0 || len > 253)
		return 0;
	for (const char *p = s;; p++) {
		if (*p == '.' || *p == 0) {
			if (p == label || !isalnum((unsigned char)label[0]) || !isalnum((unsigned char)p[-1]) ||
			    p - label > 63)
				return 0;
			if (!*p)
				return 1;
			label = p + 1;
		} else if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '-'))
			return 0;
	}
}

int emit_k8s_name_ok(const char *s)
{
	return dns_subdomain_ok(s);
}

int emit_label_prefix_ok(const char *s)
{
	return dns_subdomain_ok(s);
}

/* ---------------------------------------------------------------- the name policy */

/* why one byte cannot be in a host file or a Slurm hostlist; NULL when it can */
static const char *byte_refused(unsigned char c, enum emit_format fmt)
{
	if (isalnum(c) || c == '.' || c == '-' || c == '_' || c == '/')
		return NULL;
	if (c <= 0x20 || c == 0x7f)
		return "white space or a control character";
	if (c >= 0x80)
		return "a non-ASCII byte";
	switch (c) {
	case '#': return "'#' starts a comment";
	case ',': return "',' separates the names of a list";
	case '[': case ']': return "'[' and ']' are hostlist ranges";
	case ':': return fmt == EMIT_FMT_HOSTFILE ? "':' separates host and slots (host:N)" : "':' is no host name character";
	case '=': return "'=' separates a key from its value";
	case '"': case '\'': case '\\': return "quotes and backslashes change how the name is read";
	default: return "only letters, digits, '.', '-', '_' and '/' are written";
	}
}

int emit_name_check(enum emit_format fmt, const char *name, char *why)
{
	static const char *const what[] = { "a host file", "a Slurm topology file", "Kubernetes" };
	char show[128];

	escape_term(name, show, sizeof show, ESCAPE_TERM_QUOTES);
	if (!*name) {
		snprintf(why, EMIT_ERR_MAX, "an empty host name cannot be written in %s", what[fmt]);
		return FP_EUSAGE;
	}
	if (fmt == EMIT_FMT_K8S) {
		if (dns_subdomain_ok(name))
			return 0;
		snprintf(why, EMIT_ERR_MAX, "host name '%s' is not a Kubernetes node name (lower-case "
			 "RFC 1123 subdomain)", show);
		return FP_EUSAGE;
	}
	if (!strcasecmp(name, "all") || name[0] == '-') {
		/* Slurm reads ALL (any case) as every node; scontrol reads "-x" as an option */
		snprintf(why, EMIT_ERR_MAX, "host name '%s' cannot be written in %s: %s", show, what[fmt],
			 name[0] == '-' ? "a leading '-' reads as an option" : "Slurm reads it as every node");
		return FP_EUSAGE;
	}
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		const char *no = byte_refused(*p, fmt);

		if (no) {
			snprintf(why, EMIT_ERR_MAX, "host name '%s' cannot be written in %s: %s", show, what[fmt], no);
			return FP_EUSAGE;
		}
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int emit_hosts_check(const struct emit_topo *t, enum emit_format fmt, char *err)
{
	const char **v;
	int rc = 0;

	for (int i = 0; i < t->n; i++)
		if (emit_name_check(fmt, t->hosts[i], err))
			return FP_EUSAGE;
	if (!(v = malloc(sizeof *v * (size_t)(t->n + 1)))) {
		snprintf(err, EMIT_ERR_MAX, "out of memory");
		return FP_ERUNTIME;
	}
	memcpy(v, t->hosts, sizeof *v * (size_t)t->n);
	qsort(v, (size_t)t->n, sizeof *v, cmp_str);
	for (int i = 1; i < t->n && !rc; i++)
		if (!strcmp(v[i], v[i - 1])) {
			char show[128];

			escape_term(v[i], show, sizeof show, ESCAPE_TERM_QUOTES);
			snprintf(err, EMIT_ERR_MAX, "host name '%s' appears twice: the files would disagree", show);
			rc = FP_EUSAGE;
		}
	free(v);
	return rc;
}

void emit_comment(FILE *f, const char *text)
{
	fputs("# ", f);
	escape_term_write(f, text, 0);
	fputc('\n', f);
}

void emit_yaml_line(FILE *f, const char *pre, const char *key, const char *value)
{
	fputs(pre, f);
	if (key) {
		(void)escape_yaml_write(f, key); /* ASCII by the name policy: cannot fail */
		fputs(": ", f);
	}
	(void)escape_yaml_write(f, value);
	fputc('\n', f);
}
