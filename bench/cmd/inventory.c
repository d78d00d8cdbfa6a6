/* inventory.c — `fabprobe inventory`: options, usage, and the stage under run_command. */
#include <getopt.h>
#include <string.h>

#include "cmd.h"
#include "coll/coll.h"
#include "inventory/inv_stage.h"

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
	      "Output:\n"
	      RESULTS_HELP
	      "  -h, --help\n"
	      "\n"
	      "Writes nodes.csv, nics.csv, gpus.csv, paths.csv, inventory_mismatch.csv, meta.json.\n"
	      "Exit: 0 the nodes agree, 1 some node differs from the majority, 2 usage error,\n"
	      "3 runtime error.\n",
	      f);
}

enum { O_SYSFS = 256, O_XML };

static const struct option long_opts[] = {
	{ "sysfs-root", required_argument, NULL, O_SYSFS },
	{ "hwloc-xml", required_argument, NULL, O_XML },
	RESULTS_LONG_OPTIONS,
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

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
	*o = (struct inv_opts){ .gpu_path = coll_gpu_backend() };
}

int inv_opts_parse(int argc, char **argv, struct inv_opts *o, char *err)
{
	int c, rc = 0;

	inv_opts_default(o);
	optind = 0;
	opterr = 0;
	while (rc == 0 && (c = getopt_long(argc, argv, ":o:h", long_opts, NULL)) != -1) {
		switch (c) {
		case O_SYSFS: o->sysfs_root = optarg; rc = opts_value("--sysfs-root", optarg, err); break;
		case O_XML: o->hwloc_xml = optarg; rc = opts_value("--hwloc-xml", optarg, err); break;
		case 'o': rc = results_where_opt(&o->where, RESULTS_OPT_OUTPUT, optarg, err); break;
		RESULTS_OPT_CASES:
			rc = results_where_opt(&o->where, c, optarg, err);
			break;
		case 'h': return 1;
		case ':': OPTS_FAIL("option %s needs a value", argv[optind - 1]);
		default: OPTS_FAIL("unknown option %s (see fabprobe inventory --help)", argv[optind - 1]);
		}
	}
	if (rc)
		return rc;
	if (optind < argc)
		OPTS_FAIL("unexpected argument '%s' (see fabprobe inventory --help)", argv[optind]);
	if (o->sysfs_root && !pattern_ok(o->sysfs_root))
		OPTS_FAIL("--sysfs-root: '%s' is empty or has a %% sequence other than %%h, %%r, %%%%", o->sysfs_root);
	if (o->hwloc_xml && strstr(FP_FEATURES, "hwloc=no"))
		OPTS_FAIL("--hwloc-xml: this build has no hwloc (WITH_HWLOC=no or libhwloc-dev missing)");
	if (o->hwloc_xml && !pattern_ok(o->hwloc_xml))
		OPTS_FAIL("--hwloc-xml: '%s' is empty or has a %% sequence other than %%h, %%r, %%%%", o->hwloc_xml);
	if ((rc = results_where_check(&o->where, err)))
		return rc;
	return 0;
}

int cmd_inventory(int argc, char **argv)
{
	static const struct cmd_stage stage = { .name = "inventory", .usage = inv_usage, .check = inventory_check,
						.body = inventory_stage };
	struct inv_opts o;
	char err[OPTS_ERR_MAX];
	int rc = inv_opts_parse(argc, argv, &o, err);

	return cmd_measure(&stage, argc, argv, rc, err, &o.where, 0, &o);
}
