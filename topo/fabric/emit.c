/* emit.c — the table of emitted files, and the naming rules they share. */
#include "emit.h"

#include <ctype.h>
#include <string.h>

const struct emit_file emit_files[] = {
	{ "node-order.txt", "hosts in tree order, one per line", emit_node_order },
	{ "hostfile.openmpi", "Open MPI hostfile (host slots=N), tree order", emit_ompi_hostfile },
	{ "rankfile.openmpi", "Open MPI rankfile (rank R=host slot=S)", emit_ompi_rankfile },
	{ "machinefile.mpich", "MPICH/Hydra machinefile (host:N)", emit_mpich_machinefile },
	{ "slurm-hostfile", "SLURM_HOSTFILE for srun --distribution=arbitrary (a line per task)",
	  emit_slurm_hostfile },
	{ "topology.conf", "Slurm topology/tree", emit_slurm_tree },
	{ "topology-block.conf", "Slurm topology/block", emit_slurm_block },
	{ "topology.yaml", "Slurm topology.yaml (tree, default; and block)", emit_slurm_yaml },
	{ "k8s-node-labels.sh", "kubectl label commands, one per node", emit_k8s_label_cmds },
	{ "k8s-node-labels.yaml", "Node objects for kubectl apply --server-side", emit_k8s_nodes },
	{ "kueue-topology.yaml", "Kueue Topology over the tier labels", emit_kueue },
	{ "volcano-hypernodes.yaml", "Volcano HyperNodes, tier 1 = leaf", emit_volcano },
};
const int emit_nfiles = (int)(sizeof emit_files / sizeof emit_files[0]);

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
