/* inv_opts.c — the options of the inventory stage (inv_stage.h), as `fabprobe inventory` takes
 * them: usage, defaults, validation. */
#include <getopt.h>
#include <string.h>

#include "inv_stage.h"

/* `fabprobe inventory --help`. */
void inv_usage(FILE *f)
{
	fputs("usage: [mpirun ...] fabprobe inventory [options]\n"
	      "\n"
	      "Each node's CPUs, NUMA nodes and memory, GPUs, NIC ports (kind, state, line rate,\n"
	      "MTU, NUMA node, PCI address, GUID or MAC, IPv4, RoCE v2 GID), which NIC is nearest\n"
	      "to each GPU (NCCL path class), and the paths later stages test. One rank per node\n"
	      "probes it; rank 0 writes the files and lists the nodes that differ from the rest.\n"
	      "\n"
	      "Sources (for tests and offline inspection; %h = host name, %r = rank, %% = %):\n"
	      "      --sysfs-root DIR    read DIR instead of /sys (a captured tree); with %r each\n"
	      "                          rank reports as a node of its own\n"
	      "      --hwloc-xml FILE    load this topology (lstopo --of xml) instead of the machine\n"
	      "      --nvml-capture DIR  read NVML's answers for each GPU from DIR (one folder per\n"
	      "                          GPU's PCI address, as --nvml-save writes it) instead of\n"
	      "                          libnvidia-ml\n"
	      "      --nvml-save DIR     write this node's NVML answers as such a capture into DIR\n"
	      "                          (a GPU's folder that exists is refused: never overwritten)\n"
	      "      --k8s-nodes FILE    `kubectl get nodes -o json`: each listed node's label\n"
	      "                          nvidia.com/gpu.clique checked against the NVLink domain found\n"
	      "Output:\n"
	      RESULTS_HELP
	      "  -h, --help\n"
	      "\n"
	      "Writes nodes.csv, nics.csv, gpus.csv, paths.csv, inventory_mismatch.csv, meta.json.\n"
	      "Exit: 0 the nodes agree, 1 some node differs from the majority, 2 usage error,\n"
	      "3 runtime error.\n",
	      f);
}

enum { O_SYSFS = 256, O_XML, O_NVML, O_NVML_SAVE, O_K8S };

static const struct option long_opts[] = {
	{ "sysfs-root", required_argument, NULL, O_SYSFS },
	{ "hwloc-xml", required_argument, NULL, O_XML },
	{ "nvml-capture", required_argument, NULL, O_NVML },
	{ "k8s-nodes", required_argument, NULL, O_K8S },
	{ NULL, 0, NULL, 0 },
};
static const struct option inv_only_opts[] = {
	{ "nvml-save", required_argument, NULL, O_NVML_SAVE },
	{ NULL, 0, NULL, 0 },
};

/* A source pattern: not empty, no % sequence but %h, %r, %%. */
static int pattern_ok(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s == '%') {
			if (!s[1] || !strchr("hr%", s[1]))
				return 0;
			s++;
		}
	return 1;
}

void inv_opts_default(struct inv_opts *o)
{
	*o = (struct inv_opts){ 0 };
}

/* One option of long_opts into o. */
static int inv_opts_take(void *ctx, int c, const char *arg, char *err)
{
	struct inv_opts *o = ctx;

	switch (c) {
	case O_SYSFS: o->sysfs_root = arg; return opts_value("--sysfs-root", arg, err);
	case O_XML: o->hwloc_xml = arg; return opts_value("--hwloc-xml", arg, err);
	case O_NVML: o->nvml_capture = arg; return opts_value("--nvml-capture", arg, err);
	case O_NVML_SAVE: o->nvml_save = arg; return opts_value("--nvml-save", arg, err);
	case O_K8S: o->k8s_nodes = arg; return opts_value("--k8s-nodes", arg, err);
	default: OPTS_FAIL("internal: option %d is not one of the inventory's", c);
	}
}

/* After every option: the sources' patterns, hwloc in this build. */
static int inv_sources_finish(void *ctx, char *err)
{
	struct inv_opts *o = ctx;

	if (o->sysfs_root && !pattern_ok(o->sysfs_root))
		OPTS_FAIL("--sysfs-root: '%s' is empty or has a %% sequence other than %%h, %%r, %%%%", o->sysfs_root);
	if (o->hwloc_xml && strstr(FP_FEATURES, "hwloc=no"))
		OPTS_FAIL("--hwloc-xml: this build has no hwloc (WITH_HWLOC=no or libhwloc-dev missing)");
	if (o->hwloc_xml && !pattern_ok(o->hwloc_xml))
		OPTS_FAIL("--hwloc-xml: '%s' is empty or has a %% sequence other than %%h, %%r, %%%%", o->hwloc_xml);
	if (o->nvml_capture && !pattern_ok(o->nvml_capture))
		OPTS_FAIL("--nvml-capture: '%s' is empty or has a %% sequence other than %%h, %%r, %%%%", o->nvml_capture);
	if (o->nvml_save && !pattern_ok(o->nvml_save))
		OPTS_FAIL("--nvml-save: '%s' is empty or has a %% sequence other than %%h, %%r, %%%%", o->nvml_save);
	if (o->nvml_save && o->nvml_capture)
		OPTS_FAIL("--nvml-save with --nvml-capture: a capture is saved from the library itself");
	return 0;
}

/* …and the results directory */
static int inv_opts_finish(void *ctx, char *err)
{
	struct inv_opts *o = ctx;

	return inv_sources_finish(ctx, err) ? FP_EUSAGE : results_where_check(&o->where, err);
}

struct opts_group inv_sources_group(struct inv_opts *o)
{
	return (struct opts_group){ .longopts = long_opts, .take = inv_opts_take, .finish = inv_sources_finish, .ctx = o };
}

int inv_opts_parse(int argc, char **argv, struct inv_opts *o, char *err)
{
	struct opts_group g[3] = {
		{ .longopts = long_opts, .take = inv_opts_take, .finish = inv_opts_finish, .ctx = o },
		{ .longopts = inv_only_opts, .take = inv_opts_take, .ctx = o },
		results_where_group(&o->where, 1),
	};

	inv_opts_default(o);
	return opts_parse(argc, argv, g, 3, NULL, err);
}
