/* topo.c — `fabprobe topo`: the latency map offline, from a results directory or a
 * matrix file, with no MPI; and topo_outputs_write, which `run` shares. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "core/escape.h"
#include "core/log.h"
#include "core/opts.h"
#include "core/results.h"
#include "fabric/emit/emit.h"
#include "fabric/infer/infer.h"
#include "fabric/io/inv_csv.h"
#include "fabric/io/matrix.h"
#include "fabric/emit/topo_csv.h"
#include "run/checks.h"

static void topo_usage(FILE *f)
{
	fputs("usage: fabprobe topo <results-dir | p2p.csv | latency-matrix.csv> [options]\n"
	      "\n"
	      "Infer which nodes share a leaf switch and which cross a spine from measured latencies,\n"
	      "order the nodes, and write the files schedulers consume. No MPI, no cluster needed.\n"
	      "\n"
	      "  -o, --output DIR        write here (new or empty; default: into the results directory\n"
	      "                          given, or a new results/<time>-topo for a matrix file)\n"
	      "      --path PATH         which path of p2p.csv to use (default: the first)\n"
	      "      --slots N           ranks per node in the host files (default 1)\n"
	      "      --label-prefix P    Kubernetes label prefix (default fabprobe)\n"
	      "      --topograph         also the files marked (topograph) below\n"
	      "      --gpus FILE         the inventory's gpus.csv: each node's NVLink domain (its GPUs'\n"
	      "                          nvlink_domain), the Slurm blocks and a Kubernetes level (default:\n"
	      "                          the results directory's gpus.csv, when there is one)\n"
	      "      --noise-us X        latency noise at the lowest tier to assume at least (default:\n"
	      "                          measured from the rows of nearest neighbours; 3% assumed\n"
	      "                          where too few nodes say otherwise)\n"
	      "  -h, --help\n", f);
	checks_usage(f, 0);
	fputs("\nWrites topology.csv, tiers.csv, suspects.csv and:\n", f);
	for (int i = 0; emit_registry[i]; i++)
		fprintf(f, "  %-24s %s%s\n", emit_registry[i]->name, emit_registry[i]->opt_in ? "(topograph) " : "",
			emit_registry[i]->summary);
}

struct topo_opts {
	const char *input, *output, *path, *label_prefix, *gpus;
	long slots;
	double noise_us;
	int topograph;
};

/* One of topo's own options into o. */
static int topo_take(void *ctx, int c, const char *arg, char *err)
{
	struct topo_opts *o = ctx;

	switch (c) {
	case 'o': o->output = arg; return opts_value("-o/--output", arg, err);
	case 'p': o->path = arg; return opts_value("--path", arg, err);
	case 's': return opts_long("--slots", arg, 1, 4096, &o->slots, err);
	case 'L':
		o->label_prefix = arg;
		if (!emit_label_prefix_ok(arg))
			OPTS_FAIL("--label-prefix: '%.100s' is not a DNS subdomain (lower case letters, digits, '-' "
				  "and '.')", arg);
		return 0;
	case 'N': return opts_seconds("--noise-us", arg, 1e6, &o->noise_us, err);
	case 'T': o->topograph = 1; return 0;
	case 'G': o->gpus = arg; return opts_value("--gpus", arg, err);
	default: OPTS_FAIL("internal: option %d is not one of topo's", c);
	}
}

/* topo's options and the offline judges'; one input. 0, 1 for --help, or FP_EUSAGE with err. */
static int topo_parse(int argc, char **argv, struct topo_opts *o, struct checks_opts *jo, char *err)
{
	static const struct option lo[] = {
		{ "output", required_argument, NULL, 'o' }, { "path", required_argument, NULL, 'p' },
		{ "slots", required_argument, NULL, 's' }, { "label-prefix", required_argument, NULL, 'L' },
		{ "noise-us", required_argument, NULL, 'N' }, { "topograph", no_argument, NULL, 'T' },
		{ "gpus", required_argument, NULL, 'G' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts_group g[2] = { { .longopts = lo, .shortopts = "o:", .take = topo_take, .ctx = o },
				   checks_opts_group(jo, 0) };
	int rc, first;

	*o = (struct topo_opts){ .label_prefix = "fabprobe", .slots = 1 };
	g[1].finish = NULL; /* the files are read once the input is known to be one */
	if ((rc = opts_parse(argc, argv, g, 2, &first, err)))
		return rc;
	if (first != argc - 1)
		OPTS_FAIL(first >= argc ? "expected a results directory or a matrix file" : "expected one input, got '%s' too",
			  argv[first + 1 < argc ? first + 1 : first]);
	o->input = argv[first];
	return checks_opts_finish(jo, err);
}

/* A results directory whose run did not end well: say so before its map. */
static void topo_run_state_say(const char *dir)
{
	char why[512];
	const char *state = results_run_state(dir, why, sizeof why);

	if (!strcmp(state, "running") || !strcmp(state, "incomplete") || !strcmp(state, "interrupted"))
		printf("run %s: %s (%s); the map is of the rows it wrote\n", dir, state, why);
}

/* Load the matrices; choose where the output goes. */
static int topo_load(const struct topo_opts *o, struct p2p_matrices *m, char *dir, size_t dlen, char *err)
{
	struct stat st;
	char file[RESULTS_PATH_MAX], head[16] = "";
	int is_dir, rc;

	if (stat(o->input, &st) != 0) {
		snprintf(err, MATRIX_ERR_MAX, "%s: no such file or directory", o->input);
		return FP_EUSAGE;
	}
	is_dir = S_ISDIR(st.st_mode);
	if (!is_dir && !S_ISREG(st.st_mode)) {
		snprintf(err, MATRIX_ERR_MAX, "%s: not a regular file or a directory", o->input);
		return FP_EUSAGE;
	}
	snprintf(file, sizeof file, is_dir ? "%s/p2p.csv" : "%s", o->input);
	if (is_dir)
		topo_run_state_say(o->input);
	/* its first bytes tell a square matrix from p2p.csv: peeked at as every input is opened (a
	 * FIFO at DIR/p2p.csv hung here, in fopen, before any reader could refuse it) */
	char why[128];
	struct stat fst;
	int fd = results_input_open(file, 0, &fst, NULL, why, sizeof why);
	if (fd < 0) {
		snprintf(err, MATRIX_ERR_MAX, "%.380s: %s", file, why);
		return FP_EUSAGE;
	}
	ssize_t got = read(fd, head, sizeof head - 1);
	head[got > 0 ? got : 0] = 0;
	head[strcspn(head, "\n")] = 0;
	close(fd);
	rc = matrix_is_square(head) ? matrix_read_square(file, m, err) : matrix_read_p2p(file, o->path, m, err);
	if (rc)
		return rc;
	/* a planned run (run --plan map): the bandwidth of the planned pairs, measured after the map */
	snprintf(file, sizeof file, "%s/p2p_bw.csv", o->input);
	if (is_dir && access(file, F_OK) == 0) {
		struct p2p_matrices b = { 0 };

		if ((rc = matrix_read_p2p_bw(file, m->path[0] ? m->path : o->path, &b, err)) == 0 && matrix_add_bw(m, &b))
			rc = FP_ERUNTIME;
		matrix_free(&b);
		if (rc)
			return rc;
	}
	if (o->output)
		return results_dir_create(NULL, NULL, o->output, time(NULL), dir, dlen, err, MATRIX_ERR_MAX);
	if (is_dir) {
		snprintf(file, sizeof file, "%s/topology.csv", o->input);
		if (access(file, F_OK) == 0) {
			snprintf(err, MATRIX_ERR_MAX, "%s already holds a topology: give -o DIR for a new one", o->input);
			return FP_EUSAGE;
		}
		snprintf(dir, dlen, "%s", o->input);
		return 0;
	}
	return results_dir_create("results", "topo", NULL, time(NULL), dir, dlen, err, MATRIX_ERR_MAX);
}

/* --expect, --accept, --declared on what was just written into dir (from input). */
static int topo_checks(const struct checks_opts *jo, const char *input, const char *dir)
{
	struct rundir rd;
	struct stat st;
	char err[RUNDIR_ERR_MAX], *line;
	struct verdict v = { 0 };
	int from_input = stat(input, &st) == 0 && S_ISDIR(st.st_mode), rc;

	rc = rundir_load(from_input ? input : dir, &rd, err);
	if (rc == 0 && from_input && strcmp(input, dir))
		rc = rundir_load_topology(&rd, dir, NULL, err);
	if (rc) {
		escape_term_line(stderr, "fabprobe topo: %s", err);
		return rc;
	}
	rc = checks_run(jo, &rd, dir, &v);
	rundir_free(&rd);
	if ((line = verdict_line(&v, rc == 0 ? "PASS" : rc == 1 ? "FAIL" : "ERROR")))
		escape_term_line(stdout, "%s", line);
	free(line);
	verdict_free(&v);
	return rc;
}

/* The nodes' NVLink domains: --gpus FILE, else the input directory's gpus.csv when there is
 * one; *domain NULL when none. 0 or an error with err. */
static int topo_domains(const struct topo_opts *o, const struct p2p_matrices *m, char ***domain, char *err)
{
	char file[RESULTS_PATH_MAX + 16];
	struct stat st;

	*domain = NULL;
	if (!o->gpus && (stat(o->input, &st) || !S_ISDIR(st.st_mode)))
		return 0;
	snprintf(file, sizeof file, "%s%s", o->gpus ? o->gpus : o->input, o->gpus ? "" : "/gpus.csv");
	if (!o->gpus && access(file, F_OK))
		return 0;
	return inv_csv_domains(file, (const char *const *)m->names, m->n, domain, err);
}

int cmd_topo(int argc, char **argv)
{
	char **domain = NULL;
	struct topo_opts o;
	struct checks_opts jo;
	struct p2p_matrices m = { 0 };
	struct infer_result r;
	struct infer_opts io;
	char err[MATRIX_ERR_MAX], dir[RESULTS_PATH_MAX], how[RESULTS_PATH_MAX + 160], when[32];
	int rc = topo_parse(argc, argv, &o, &jo, err);
	time_t now = time(NULL);

	if (rc == 1) {
		topo_usage(stdout);
		return FP_EXIT_OK;
	}
	if (rc == 0)
		rc = topo_load(&o, &m, dir, sizeof dir, err);
	if (rc) {
		escape_term_line(stderr, "fabprobe topo: %s", err);
		matrix_free(&m);
		checks_opts_free(&jo);
		return rc == FP_EUSAGE ? FP_EXIT_USAGE : FP_EXIT_RUNTIME;
	}
	infer_opts_default(&io);
	io.noise_us = o.noise_us;
	io.lat_again = m.lat_hi;
	if (infer_tiers(m.lat_min, m.bw, m.n, (const char *const *)m.names, &io, &r)) {
		matrix_free(&m);
		checks_opts_free(&jo);
		return FP_EXIT_RUNTIME;
	}
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	snprintf(how, sizeof how, "fabprobe %s topo, from %.*s%s%s, on %s", FP_VERSION, RESULTS_PATH_MAX, o.input,
		 m.path[0] ? ", path " : "", m.path, when);
	if ((rc = topo_domains(&o, &m, &domain, err))) {
		escape_term_line(stderr, "fabprobe topo: %s", err);
		infer_result_free(&r);
		matrix_free(&m);
		checks_opts_free(&jo);
		return rc == FP_EUSAGE ? FP_EXIT_USAGE : FP_EXIT_RUNTIME;
	}
	struct emit_topo t = { .n = m.n, .hosts = (const char *const *)m.names, .tree = &r,
			       .slots = (int)o.slots, .label_prefix = o.label_prefix, .how = how,
			       .topograph = o.topograph, .domain = (const char *const *)domain };
	rc = topo_outputs_write(dir, &t, 1);
	topo_summary_print(stdout, &t);
	free(domain);
	infer_result_free(&r);
	matrix_free(&m);
	if (rc != FP_ERUNTIME && checks_wanted(&jo)) {
		int jrc = topo_checks(&jo, o.input, dir);

		rc = jrc < 0 ? jrc : rc ? rc : jrc;
	}
	if (rc != FP_ERUNTIME) /* written there (a file a format refused was said on stderr) */
		printf("results: %s\n", dir);
	checks_opts_free(&jo);
	return rc == 0 ? FP_EXIT_OK : rc == 1 ? FP_EXIT_CHECK : rc == FP_EUSAGE ? FP_EXIT_USAGE : FP_EXIT_RUNTIME;
}
