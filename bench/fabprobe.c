/* fabprobe.c — main: the table of subcommands. Each handler parses its own options and
 * initialises MPI only if it needs it; it returns the process exit code (log.h). */
#include <stdio.h>
#include <string.h>

#include "coll/coll.h"
#include "core/log.h"
#include "inventory/inventory_cmd.h"
#include "p2p/p2p.h"
#include "cmd/cmd.h"

int cmd_run(int argc, char **argv); /* run_cmd.c */

struct subcommand {
	const char *name;
	int (*run)(int argc, char **argv); /* NULL: not in this version yet */
	const char *summary;
};

static const struct subcommand subcommands[] = {
	{ "run", cmd_run, "the whole job: inventory, p2p map, collectives, topology, verdicts" },
	{ "p2p", cmd_p2p, "latency and bandwidth between every pair of nodes, per path" },
	{ "coll", cmd_coll, "collective benchmarks (all-reduce…) through MPI and NCCL" },
	{ "inventory", cmd_inventory, "each node's CPUs, NUMA, GPUs, NICs and their locality" },
	{ "topo", cmd_topo, "infer switch tiers from a latency matrix; write scheduler files" },
	{ "compare", NULL, "compare two runs: regressions and improvements" },
	{ "report", NULL, "render a results directory as a report" },
};
#define NSUB ((int)(sizeof subcommands / sizeof subcommands[0]))

static void usage(FILE *f)
{
	fputs("usage: fabprobe <command> [options]     (under mpirun or srun for measurements)\n"
	      "       fabprobe <command> --help\n"
	      "       fabprobe --version\n\ncommands:\n", f);
	for (int i = 0; i < NSUB; i++)
		fprintf(f, "  %-10s %s%s\n", subcommands[i].name, subcommands[i].summary,
			subcommands[i].run ? "" : " (not in this version yet)");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return FP_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return FP_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("fabprobe %s (%s)\n", FP_VERSION, FP_FEATURES);
		return FP_EXIT_OK;
	}
	for (int i = 0; i < NSUB; i++) {
		if (strcmp(argv[1], subcommands[i].name))
			continue;
		if (!subcommands[i].run) {
			fprintf(stderr, "fabprobe: '%s' is not in this version yet\n", argv[1]);
			return FP_EXIT_USAGE;
		}
		return subcommands[i].run(argc - 1, argv + 1);
	}
	fprintf(stderr, "fabprobe: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return FP_EXIT_USAGE;
}
