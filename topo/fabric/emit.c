/* emit.c — the registry of emitted files (core/registry.h), and the naming rules they share. */
#include "emit.h"

#include <ctype.h>
#include <stddef.h>
#include <string.h>

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
	NULL,
};

void emit_group_name(const struct emit_topo *t, int tier, int g, char *out)
{
	static const char *const kind[] = { "leaf", "spine", "core" };
	int width = 2;

	for (int x = t->tree->ngroups[tier] - 1; x >= 100; x /= 10)
		width++;
	if (tier < 3)
		snprintf(out, EMIT_NAME_MAX, "%s%0*d", kind[tier], width, g);
	else
		snprintf(out, EMIT_NAME_MAX, "tier%d-%0*d", tier, width, g);
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
