/* compare.c — `fabprobe compare BASE NEW`: two results directories side by side, offline (no
 * MPI): what got better, worse, new or gone, and what moved on the map. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "core/escape.h"
#include "core/log.h"
#include "core/opts.h"
#include "core/results.h"
#include "run/checks.h"

static void compare_usage(FILE *f)
{
	fputs("usage: fabprobe compare BASE NEW [options]\n"
	      "\n"
	      "Compare two results directories (an earlier run BASE, a later run NEW). No MPI needed.\n"
	      "Pairs are matched by path, source, destination and size: latency (min, p50) and\n"
	      "bandwidth before and after, the change in %, and a class: better, same, worse, new,\n"
	      "gone (changed: inventory text such as firmware). A change counts only beyond a\n"
	      "tolerance derived from each run's own noise (the spread of each tier's pairs once node\n"
	      "offsets are taken out) and is confirmed by NEW's retests where it has any. Collectives\n"
	      "per backend, op, datatype and size (busbw); inventory per node and NIC (rate, width,\n"
	      "MTU, firmware, GPUs, kernel); the map: groups matched by overlap at every tier, the\n"
	      "nodes that moved, groups split or merged, nodes added or missing, the number of tiers.\n"
	      "\n"
	      "  -o, --output DIR        write into DIR (new or empty; default: into NEW)\n"
	      "      --tolerance PCT     a change counts beyond PCT % (default: from the noise, at least 5)\n"
	      "  -h, --help\n"
	      "\n"
	      "Writes compare.csv (kind,path,src,dst,size_B,metric,tier,before,after,retest,change_pct,\n"
	      "tolerance_pct,class,note) and compare_topology.csv (tier,switch,host,before,after,\n"
	      "after_matches,change). Exit: 0 nothing worse or gone, 1 something is, 2 usage or input\n"
	      "error, 3 runtime error.\n", f);
}

struct compare_opts {
	const char *base, *cur, *output;
	double tolerance_pct;
};

static int compare_parse(int argc, char **argv, struct compare_opts *o, char *err)
{
	static const struct option lo[] = {
		{ "output", required_argument, NULL, 'o' }, { "tolerance", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct compare_opts){ 0 };
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", lo, NULL)) != -1) {
		switch (c) {
		case 'o': o->output = optarg; break;
		case 'T':
			if (opts_percent("--tolerance", optarg, 1000, &o->tolerance_pct, err))
				return FP_EUSAGE;
			break;
		case 'h': return 1;
		case ':': OPTS_FAIL("option %s needs a value", argv[optind - 1]);
		default: OPTS_FAIL("unknown option %s (see fabprobe compare --help)", argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		OPTS_FAIL("expected two results directories, BASE and NEW (got %d)", argc - optind);
	o->base = argv[optind];
	o->cur = argv[optind + 1];
	return 0;
}

/* Where the files go: -o DIR (new or empty), or NEW itself when it holds no comparison yet. */
static int compare_out(const struct compare_opts *o, char *dir, size_t len, char *err)
{
	char f[RESULTS_PATH_MAX + 32];

	if (o->output)
		return results_dir_create(NULL, NULL, o->output, time(NULL), dir, len, err, OPTS_ERR_MAX);
	snprintf(f, sizeof f, "%s/compare.csv", o->cur);
	if (access(f, F_OK) == 0)
		OPTS_FAIL("%.200s already holds a comparison: give -o DIR for a new one", o->cur);
	snprintf(dir, len, "%s", o->cur);
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_opts o;
	struct rundir cur, base;
	char err[RUNDIR_ERR_MAX], dir[RESULTS_PATH_MAX];
	struct verdict v = { 0 };
	int rc = compare_parse(argc, argv, &o, err);

	if (rc == 1) {
		compare_usage(stdout);
		return FP_EXIT_OK;
	}
	if (rc == 0 && (rc = rundir_load(o.cur, &cur, err)) == 0) {
		/* both read once, before anything is written: a run that does not read is refused */
		if ((rc = rundir_load(o.base, &base, err)) == 0 && (rc = compare_out(&o, dir, sizeof dir, err)))
			rundir_free(&base);
		if (rc)
			rundir_free(&cur);
	}
	if (rc) {
		escape_term_line(stderr, "fabprobe compare: %s", err);
		return rc == FP_EUSAGE ? FP_EXIT_USAGE : FP_EXIT_RUNTIME;
	}
	for (int k = 0; k < 2; k++) { /* a run that did not end well: say so before its figures */
		char why[512];
		const char *d = k ? o.cur : o.base, *state = results_run_state(d, why, sizeof why);

		if (!strcmp(state, "running") || !strcmp(state, "incomplete") || !strcmp(state, "interrupted"))
			escape_term_line(stdout, "%s %s: %s (%s); compared as far as its rows go", k ? "NEW" : "BASE", d,
					 state, why);
	}
	struct cmp_opts co = { .tolerance_pct = o.tolerance_pct };
	rc = checks_write_compare(o.base, &base, o.cur, &cur, dir, &co, &v);
	rundir_free(&cur);
	rundir_free(&base);
	verdict_free(&v);
	if (rc >= 0)
		escape_term_line(stdout, "results: %s", dir);
	if (fflush(stdout) || ferror(stdout))
		return FP_EXIT_RUNTIME;
	return rc == 0 ? FP_EXIT_OK : rc == 1 ? FP_EXIT_CHECK : rc == FP_EUSAGE ? FP_EXIT_USAGE : FP_EXIT_RUNTIME;
}
