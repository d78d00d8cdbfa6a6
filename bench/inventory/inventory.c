/* inventory.c — `fabprobe inventory`: one leader rank per node probes it, rank 0 gathers the
 * inventories (MPI_Gatherv of struct inv_node bytes), writes the CSVs, prints the table and
 * judges the nodes against the majority. Without a launcher it inventories this node (MPI
 * singleton). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "inventory_cmd.h"
#include "core/launcher.h"
#include "core/log.h"
#include "core/mpi_util.h"
#include "core/run.h"
#include "core/world.h"

#define MISMATCH_MAX 4096

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
	      "  -o, --output DIR        write into DIR (new or empty)\n"
	      "      --name NAME         add -NAME to the default directory name\n"
	      "      --results-root DIR  where default directories go (default results)\n"
	      "  -h, --help\n"
	      "\n"
	      "Writes nodes.csv, nics.csv, gpus.csv, paths.csv, inventory_mismatch.csv, meta.json.\n"
	      "Exit: 0 the nodes agree, 1 some node differs from the majority, 2 usage error,\n"
	      "3 runtime error.\n",
	      f);
}

enum { O_SYSFS = 256, O_XML, O_NAME, O_ROOT };

static const struct option long_opts[] = {
	{ "sysfs-root", required_argument, NULL, O_SYSFS },
	{ "hwloc-xml", required_argument, NULL, O_XML },
	{ "output", required_argument, NULL, 'o' },
	{ "name", required_argument, NULL, O_NAME },
	{ "results-root", required_argument, NULL, O_ROOT },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

#define FAIL(...) do { snprintf(err, OPTS_ERR_MAX, __VA_ARGS__); return FP_EUSAGE; } while (0)

int inv_expand(const char *pattern, const char *host, int rank, char *out, size_t len)
{
	size_t o = 0;

	for (const char *p = pattern; *p; p++) {
		char num[16];
		const char *add = num;

		if (*p != '%') {
			num[0] = *p, num[1] = 0;
		} else if (p[1] == 'h') {
			add = host, p++;
		} else if (p[1] == 'r') {
			snprintf(num, sizeof num, "%d", rank), p++;
		} else if (p[1] == '%') {
			strcpy(num, "%"), p++;
		} else {
			return FP_EUSAGE;
		}
		if (o + strlen(add) >= len)
			return FP_EUSAGE;
		strcpy(out + o, add);
		o += strlen(add);
	}
	out[o] = 0;
	return 0;
}

/* Non-empty, and every % starts %h, %r or %%. */
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

int inv_opts_parse(int argc, char **argv, struct inv_opts *o, char *err)
{
	int c, rc = 0;

	*o = (struct inv_opts){ .root = "results", .have_nccl = strstr(FP_FEATURES, "nccl=yes") != NULL };
	optind = 0;
	opterr = 0;
	while (rc == 0 && (c = getopt_long(argc, argv, ":o:h", long_opts, NULL)) != -1) {
		switch (c) {
		case O_SYSFS: o->sysfs_root = optarg; break;
		case O_XML: o->hwloc_xml = optarg; break;
		case 'o': o->output = optarg; break;
		case O_NAME: rc = opts_name("--name", optarg, err); o->name = optarg; break;
		case O_ROOT: o->root = optarg; break;
		case 'h': return 1;
		case ':': FAIL("option %s needs a value", argv[optind - 1]);
		default: FAIL("unknown option %s (see fabprobe inventory --help)", argv[optind - 1]);
		}
	}
	if (rc)
		return rc;
	if (optind < argc)
		FAIL("unexpected argument '%s' (see fabprobe inventory --help)", argv[optind]);
	if (o->sysfs_root && !pattern_ok(o->sysfs_root))
		FAIL("--sysfs-root: '%s' is empty or has a %% sequence other than %%h, %%r, %%%%", o->sysfs_root);
	if (o->hwloc_xml && !pattern_ok(o->hwloc_xml))
		FAIL("--hwloc-xml: '%s' is empty or has a %% sequence other than %%h, %%r, %%%%", o->hwloc_xml);
	if (o->output && (o->name || strcmp(o->root, "results")))
		FAIL("-o/--output names the directory itself; it cannot be combined with --name or --results-root");
	if (o->output && !*o->output)
		FAIL("-o/--output: empty directory name");
	if (!*o->root)
		FAIL("--results-root: empty directory name");
	return 0;
}

/* ------------------------------------------------------------------ probing and gathering */

/* This rank probes when it is the lowest rank of its node, or when the sources name the
 * rank (%r): then every rank is a node of its own, "host/r<rank>". */
static int per_rank(const struct inv_opts *o)
{
	return (o->sysfs_root && strstr(o->sysfs_root, "%r")) || (o->hwloc_xml && strstr(o->hwloc_xml, "%r"));
}

static int is_leader(const struct world *w, int per)
{
	if (per)
		return 1;
	for (int r = 0; r < w->rank; r++)
		if (!strcmp(w->hosts[r], w->host))
			return 0;
	return 1;
}

static int probe_here(const struct inv_opts *o, const struct world *w, int per, struct inv_node *node)
{
	char sysfs[4096], xml[4096], lib[MPI_MAX_LIBRARY_VERSION_STRING];
	struct inv_probe_ctx ctx = { 0 };
	int len = 0;

	if ((o->sysfs_root && inv_expand(o->sysfs_root, w->host, w->rank, sysfs, sizeof sysfs)) ||
	    (o->hwloc_xml && inv_expand(o->hwloc_xml, w->host, w->rank, xml, sizeof xml))) {
		LOG_ERROR("--sysfs-root/--hwloc-xml: the expanded path is too long");
		return FP_EUSAGE;
	}
	ctx.sysfs_root = o->sysfs_root ? sysfs : NULL;
	ctx.hwloc_xml = o->hwloc_xml ? xml : NULL;
	inv_node_init(node);
	if (per && w->size > 1)
		snprintf(node->host, sizeof node->host, "%.200s/r%d", w->host, w->rank);
	else
		inv_copy(node->host, w->host, sizeof node->host);
	inv_probe_all(&ctx, node);
	MPI_Get_library_version(lib, &len);
	lib[strcspn(lib, "\n")] = 0;
	inv_copy(node->mpi_version, lib, sizeof node->mpi_version);
	return 0;
}

/* Rank 0 receives every leader's node, in rank order; *ranks[k] = ranks on node k. */
static int gather(const struct world *w, int per, const struct inv_node *mine, int leader,
		  struct inv_node **all, int **ranks, int *n)
{
	int *counts = NULL, *displs = NULL, bytes = leader ? (int)sizeof *mine : 0, rc = 0;

	*all = NULL, *ranks = NULL, *n = 0;
	if (w->rank == 0) {
		counts = calloc((size_t)w->size, sizeof *counts);
		displs = calloc((size_t)w->size, sizeof *displs);
		*ranks = calloc((size_t)w->size, sizeof **ranks);
		*all = calloc((size_t)w->size, sizeof **all);
		if (!counts || !displs || !*ranks || !*all) {
			LOG_ERROR("out of memory gathering %d inventories", w->size);
			rc = FP_ERUNTIME;
		}
	}
	MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (rc == 0) {
		CHECK_MPI(MPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD));
		for (int r = 0, off = 0; w->rank == 0 && r < w->size; r++)
			displs[r] = off, off += counts[r];
		CHECK_MPI(MPI_Gatherv(mine, bytes, MPI_BYTE, *all, counts, displs, MPI_BYTE, 0,
				      MPI_COMM_WORLD));
	}
	for (int r = 0; rc == 0 && w->rank == 0 && r < w->size; r++) {
		if (!counts[r])
			continue;
		for (int q = 0; q < w->size; q++)
			(*ranks)[*n] += per ? q == r : !strcmp(w->hosts[q], w->hosts[r]);
		(*n)++;
	}
	free(counts);
	free(displs);
	return rc;
}

/* Rank 0: the paths, the mismatches, the files and the table. Returns 0, 1 (mismatch) or a
 * negative code. */
static int report(const struct inv_opts *o, const struct run_out *ro, const struct inv_node *nodes,
		  const int *ranks, int n)
{
	struct inv_path paths[INV_PATHS_MAX];
	struct inv_mismatch *mm = calloc(MISMATCH_MAX, sizeof *mm);
	struct inv_report r = { .dir = ro->dir, .run_id = ro->run_id, .nodes = nodes, .ranks = ranks,
				.n = n, .paths = paths };
	int rc;

	if (!mm) {
		LOG_ERROR("out of memory");
		return FP_ERUNTIME;
	}
	r.npaths = inv_paths(nodes, n, o->have_nccl, paths, INV_PATHS_MAX);
	r.nmm = inv_mismatches(nodes, n, o->have_nccl, mm, MISMATCH_MAX);
	r.mm = mm;
	rc = inv_report_write(&r);
	inv_report_print(stdout, &r);
	free(mm);
	return rc ? rc : r.nmm > 0;
}

int inventory_stage(struct world *w, struct run_out *ro, void *arg)
{
	const struct inv_opts *o = arg;
	struct inv_node *mine = NULL, *all = NULL;
	int *ranks = NULL, n = 0, per = per_rank(o), leader = is_leader(w, per), rc = 0;

	if (leader && !(mine = malloc(sizeof *mine)))
		rc = FP_ERUNTIME;
	if (rc == 0 && leader)
		rc = probe_here(o, w, per, mine);
	MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (rc == 0)
		rc = gather(w, per, mine, leader, &all, &ranks, &n);
	if (rc == 0 && w->rank == 0)
		rc = report(o, ro, all, ranks, n);
	free(mine);
	free(all);
	free(ranks);
	return rc;
}

int cmd_inventory(int argc, char **argv)
{
	struct inv_opts o;
	char err[OPTS_ERR_MAX];
	int rc = inv_opts_parse(argc, argv, &o, err);

	if (rc == 1) {
		inv_usage(stdout);
		return FP_EXIT_OK;
	}
	if (rc)
		return launcher_usage_error("inventory", err);
	return run_command(argc, argv, "inventory", &(struct run_where){ o.output, o.name, o.root }, 0,
			   NULL, inventory_stage, &o);
}
