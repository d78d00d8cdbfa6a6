/* fabprobe.c — main: the registry of subcommands (core/registry.h). Each handler parses its
 * own options and initialises MPI only if it needs it; it returns the process exit code. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/escape.h"
#include "core/log.h"
#include "core/registry.h"

#define COMMAND(n, fn, what) static const struct command n##_command = { .name = #n, .summary = what, .main = fn }

COMMAND(run, cmd_run, "the whole job: inventory, p2p map, collectives, topology, verdicts");
COMMAND(p2p, cmd_p2p, "latency and bandwidth between every pair of nodes, per path");
COMMAND(coll, cmd_coll, "collective benchmarks (all-reduce…) through MPI and NCCL");
COMMAND(inventory, cmd_inventory, "each node's CPUs, NUMA, GPUs, NICs and their locality");
COMMAND(topo, cmd_topo, "infer switch tiers from a latency matrix; write scheduler files");
COMMAND(report, cmd_report, "render a results directory as one HTML page (report.html)");
COMMAND(compare, cmd_compare, "compare two runs: regressions, improvements, what moved");

REGISTRY_SHAPE(struct command);

const struct command *const command_registry[] = {
	&run_command, &p2p_command, &coll_command, &inventory_command, &topo_command,
	&compare_command, &report_command, NULL,
};

static void usage(FILE *f)
{
	fputs("usage: fabprobe <command> [options]     (under mpirun or srun for measurements)\n"
	      "       fabprobe <command> --help\n"
	      "       fabprobe --version\n\ncommands:\n", f);
	for (int i = 0; command_registry[i]; i++)
	{
		const struct command *c = command_registry[i];

		fprintf(f, "  %-10s %s%s%s%s\n", c->name, c->summary, c->absent ? " (" : "",
			c->absent ? c->absent : "", c->absent ? ")" : "");
	}
}

int main(int argc, char **argv)
{
	static struct escape_term_state out_state, err_state;
	FILE *out = escape_term_stream(&out_state, STDOUT_FILENO, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF),
	     *err = escape_term_stream(&err_state, STDERR_FILENO, _IONBF);

	if (out && err) /* every message, whoever prints it: no control byte reaches the terminal */
		stdout = out, stderr = err;
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
	const struct command *c = REGISTRY_FIND(struct command, command_registry, argv[1], (size_t)-1);

	if (c && c->absent) {
		escape_term_line(stderr, "fabprobe: '%s' is %s", argv[1], c->absent);
		return FP_EXIT_USAGE;
	}
	if (c)
		return c->main(argc - 1, argv + 1);
	escape_term_line(stderr, "fabprobe: unknown command '%s'", argv[1]);
	usage(stderr);
	return FP_EXIT_USAGE;
}
