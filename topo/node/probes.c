/* probes.c — the registry of discovery probes: the one place that knows which ones this
 * build has (core/registry.h); and the driver that runs them on one node. */
#include <stdio.h>
#include <string.h>

#include "core/registry.h"
#include "inv_probe.h"

REGISTRY_SHAPE(struct inv_probe_ops);

#if !HAVE_IBVERBS
static const struct inv_probe_ops inv_probe_verbs_absent = { .name = "ibverbs", .absent = "not built" };
#endif
#if !HAVE_HWLOC
static const struct inv_probe_ops inv_probe_hwloc_absent = { .name = "hwloc", .absent = "not built" };
#endif

/* Order matters: sysfs lists ports and netdevs, verbs refines the RDMA ports, hwloc adds
 * the node's CPUs, GPUs and the PCI tree (and overrides sysfs's CPU counts), NVML (loaded at
 * run time, in every build) what the driver says of the GPUs' NVLinks and fabric. */
const struct inv_probe_ops *const inv_probe_registry[] = {
	&inv_probe_sysfs,
#if HAVE_IBVERBS
	&inv_probe_verbs,
#else
	&inv_probe_verbs_absent,
#endif
#if HAVE_HWLOC
	&inv_probe_hwloc,
#else
	&inv_probe_hwloc_absent,
#endif
	&inv_probe_nvml,
	NULL,
};

/* "a, b" for names alone; "a: why; b: why" with reasons */
static void list_add(char *list, size_t len, const char *name, const char *why)
{
	size_t used = strlen(list);

	snprintf(list + used, len - used, "%s%s%s%s", used ? (why ? "; " : ",") : "", name,
		 why ? ": " : "", why ? why : "");
}

int inv_probe_all(const struct inv_probe_ctx *ctx, struct inv_node *node)
{
	int failed = 0;

	for (int i = 0; inv_probe_registry[i]; i++)
		if (inv_probe_registry[i]->absent)
			list_add(node->probes_missing, sizeof node->probes_missing, inv_probe_registry[i]->name,
				 inv_probe_registry[i]->absent);
	for (int i = 0; inv_probe_registry[i]; i++) {
		const struct inv_probe_ops *p = inv_probe_registry[i];
		char why[INV_NOTE_MAX] = "";
		int rc;

		if (p->absent)
			continue;
		rc = p->probe(ctx, node, why, sizeof why);
		if (rc == 0)
			list_add(node->probes_used, sizeof node->probes_used, p->name, NULL);
		else
			list_add(node->probes_missing, sizeof node->probes_missing, p->name,
				 why[0] ? why : rc > 0 ? "not applicable" : "failed");
		failed += rc < 0;
	}
	inv_node_check_ranges(node);
	inv_locality(node);
	return failed;
}
