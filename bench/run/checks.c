/* checks.c — see checks.h: the judging options, and the offline judges (files and summaries). */
#include "checks.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/csv.h"
#include "core/escape.h"
#include "core/log.h"
#include "core/opts.h"
#include "core/results.h"
#include "fabric/io/check_csv.h"
#include "fabric/judge/accept.h"
#include "fabric/judge/declared.h"
#include "fabric/judge/expect.h"

void checks_usage(FILE *f, int with_baseline)
{
	if (with_baseline)
		fputs("Judging (after the measurements; docs/judging.md):\n"
		      "      --baseline DIR      compare with an earlier run: compare.csv, compare_topology.csv;\n"
		      "                          fails on anything worse or gone\n"
		      "      --tolerance PCT     a change counts beyond PCT % (default: from each run's noise, at least 5)\n"
		      "      --retests N         measurements of each pair worse than the baseline or failing a\n"
		      "                          rule, in the confirmation pass (default 2; 0 = none)\n", f);
	else
		fputs("Judging:\n", f);
	fputs("      --expect FILE       judge against expectations (key = value; docs/judging.md):\n"
	      "                          acceptance.csv; fails on any failed rule. `preset = NAME` in FILE\n"
	      "                          takes a preset's rules (the file's own override them);\n"
	      "                          --expect preset:NAME[,NAME] the presets alone:\n", f);
	for (int i = 0; exp_presets[i].name; i++)
		fprintf(f, "                            %-12s %s\n", exp_presets[i].name, exp_presets[i].summary);
	fputs("      --accept            the same with the default line-rate rules (RDMA >= 90%, TCP >= 80%)\n"
	      "      --allow-unjudged    what nothing in the run could judge does not fail it: a rule of the\n"
	      "                          --expect file (gpus_per_node without an inventory), --min-pct with\n"
	      "                          no line rate known, a path with no direction, a run of one endpoint\n"
	      "      --declared FILE     check the measured grouping against a Slurm topology.conf or a CSV\n"
	      "                          host,leaf[,spine]: declared_mismatch.csv; fails on any mismatch\n", f);
}

int checks_wanted(const struct checks_opts *jo)
{
	return jo->baseline || jo->accept || jo->declared;
}

/* Read the files named (before anything is measured), once: a pipe cannot be read twice. */
static int checks_read_files_(struct checks_opts *jo, char *err)
{
	char why[DECL_ERR_MAX > EXPECT_ERR_MAX ? DECL_ERR_MAX : EXPECT_ERR_MAX];
	struct stat st;

	if (jo->expect && exp_parse_file(jo->expect, &jo->rules, why))
		OPTS_FAIL("--expect: %.240s", why);
	if (jo->accept && exp_defaults(&jo->rules))
		OPTS_FAIL("out of memory");
	if (jo->declared && decl_read(jo->declared, &jo->decl, why))
		OPTS_FAIL("--declared: %.240s", why);
	if (jo->baseline) {
		char f[RESULTS_PATH_MAX + 32];

		if (stat(jo->baseline, &st) || !S_ISDIR(st.st_mode))
			OPTS_FAIL("--baseline: %.200s is not a results directory", jo->baseline);
		snprintf(f, sizeof f, "%s/p2p.csv", jo->baseline);
		if (access(f, R_OK))
			OPTS_FAIL("--baseline: %.150s has no readable p2p.csv", jo->baseline);
	}
	return 0;
}

void checks_opts_free(struct checks_opts *jo)
{
	exp_free(&jo->rules);
	decl_free(&jo->decl);
	if (jo->base)
		rundir_free(jo->base);
	free(jo->base);
	jo->base = NULL;
}

/* checks_read_files_, and on failure what it read freed: a good --expect met by a bad
 * --declared left its rules behind (LeakSanitizer found them). */
static int checks_read_files(struct checks_opts *jo, char *err)
{
	int rc = checks_read_files_(jo, err);

	if (rc)
		checks_opts_free(jo);
	return rc;
}

enum { CHECKS_OPT_EXPECT = 1, CHECKS_OPT_ACCEPT, CHECKS_OPT_DECLARED, CHECKS_OPT_BASELINE, CHECKS_OPT_TOLERANCE,
       CHECKS_OPT_RETESTS, CHECKS_OPT_ALLOW_UNJUDGED };

/* One judging option (ctx: struct checks_opts *). 0, or FP_EUSAGE with err. */
static int checks_take(void *ctx, int opt, const char *arg, char *err)
{
	struct checks_opts *jo = ctx;

	switch (opt) {
	case CHECKS_OPT_EXPECT: /* (given twice: refused by opts_parse, as every option with a value) */
		jo->expect = arg;
		jo->accept = 1;
		return 0;
	case CHECKS_OPT_ACCEPT: jo->accept = 1; return 0;
	case CHECKS_OPT_DECLARED:
		jo->declared = arg;
		return 0;
	case CHECKS_OPT_BASELINE:
		jo->baseline = arg;
		return 0;
	case CHECKS_OPT_ALLOW_UNJUDGED: jo->allow_unjudged = 1; return 0;
	case CHECKS_OPT_TOLERANCE: return opts_percent("--tolerance", arg, 1000, &jo->tolerance_pct, err);
	case CHECKS_OPT_RETESTS: return opts_long("--retests", arg, 0, 10, &jo->retests, err);
	default: OPTS_FAIL("internal: option %d is not a judging one", opt);
	}
}

int checks_opts_finish(struct checks_opts *jo, char *err)
{
	if (jo->tolerance_pct > 0 && !jo->baseline)
		OPTS_FAIL("--tolerance needs --baseline");
	return checks_read_files(jo, err);
}

/* checks_opts_finish as a group's finish. */
static int checks_finish(void *ctx, char *err)
{
	return checks_opts_finish(ctx, err);
}

struct opts_group checks_opts_group(struct checks_opts *jo, int with_baseline)
{
	static const struct option lo[] = { /* run's three first, then the offline three */
		{ "baseline", required_argument, NULL, CHECKS_OPT_BASELINE },
		{ "tolerance", required_argument, NULL, CHECKS_OPT_TOLERANCE },
		{ "retests", required_argument, NULL, CHECKS_OPT_RETESTS },
		{ "expect", required_argument, NULL, CHECKS_OPT_EXPECT },
		{ "accept", no_argument, NULL, CHECKS_OPT_ACCEPT },
		{ "declared", required_argument, NULL, CHECKS_OPT_DECLARED },
		{ "allow-unjudged", no_argument, NULL, CHECKS_OPT_ALLOW_UNJUDGED },
		{ NULL, 0, NULL, 0 },
	};

	*jo = (struct checks_opts){ .retests = 2 };
	return (struct opts_group){ .longopts = with_baseline ? lo : lo + 3, .take = checks_take,
				    .finish = checks_finish, .ctx = jo };
}

/* ---------------------------------------------------------------- comparing */

int checks_cmp(const struct rundir *base, const struct rundir *cur, const struct cmp_opts *co, FILE *csv, FILE *map,
	      struct cmp_report *rep, struct cmp_skip *sk)
{
	cmp_report_init(rep, csv, map);
	if (cmp_p2p(base, cur, co, cmp_report_item, rep, sk) || cmp_coll(base, cur, co, cmp_report_item, rep, sk) ||
	    cmp_inventory(base, cur, cmp_report_item, rep) ||
	    (base->has_topo && cur->has_topo && cmp_map(base, cur, cmp_report_map, rep)) || rep->oom) {
		LOG_ERROR("out of memory comparing runs");
		return FP_ERUNTIME;
	}
	return 0;
}

int checks_write_compare(const char *base_dir, const struct rundir *base, const char *cur_dir, const struct rundir *cur,
			const char *out, const struct cmp_opts *co, struct verdict *v)
{
	struct results_file csv, map;
	struct cmp_report rep;
	struct cmp_skip sk;
	int rc = results_tmp_open(&csv, out, "compare.csv") | results_tmp_open(&map, out, "compare_topology.csv")
		 ? FP_ERUNTIME : 0, failed;

	if (rc || (rc = checks_cmp(base, cur, co, csv.f, map.f, &rep, &sk))) {
		results_tmp_abort(&csv);
		results_tmp_abort(&map);
		return rc;
	}
	if (results_tmp_commit(&csv) | results_tmp_commit(&map))
		rc = FP_ERUNTIME;
	cmp_report_print(stdout, &rep, &sk, base_dir, cur_dir);
	/* a side without p2p.csv: no pair was compared, and the summary says so (it printed no
	 * "pairs" line at all, and passed as if every pair had been) */
	const char *no_p2p = !base->has_p2p && !cur->has_p2p ? "BASE and NEW" : !base->has_p2p ? "BASE"
			     : !cur->has_p2p ? "NEW" : NULL;
	if (no_p2p)
		printf("  pairs:     not compared (no p2p.csv in %s)\n", no_p2p);
	if (!base->has_topo || !cur->has_topo)
		printf("  map: not compared (no topology.csv in %s)\n", base->has_topo ? "NEW" : "BASE");
	failed = cmp_report_failed(&rep);
	long long worse = 0, gone = 0;
	for (int k = 0; k < CMP_NKIND; k++) {
		worse += rep.count[k][CMP_WORSE];
		gone += rep.count[k][CMP_GONE];
	}
	long long moved = rep.map_count[CMP_MAP_MOVED] + rep.map_count[CMP_MAP_SPLIT] + rep.map_count[CMP_MAP_MERGED];
	printf("compare: %s (%lld worse, %lld gone, %lld moved%s; compare.csv, compare_topology.csv)\n",
	       failed ? "FAIL" : "PASS", worse, gone, moved, no_p2p ? "; pairs not compared" : "");
	verdict_add(v, VERDICT_BASELINE, failed, "baseline: %lld worse, %lld gone, %lld moved%s", worse, gone, moved,
		    no_p2p ? ", pairs not compared" : "");
	cmp_report_free(&rep);
	return rc ? rc : failed;
}

/* ---------------------------------------------------------------- expectations, declared */

int checks_acc(const struct rundir *cur, const struct exp_set *s, FILE *csv, struct acc_report *rep)
{
	if (acc_report_init(rep, s, csv) || acc_evaluate(cur, s, acc_report_row, rep) || rep->oom) {
		LOG_ERROR("out of memory judging expectations");
		return FP_ERUNTIME;
	}
	return 0;
}

int checks_write_accept(const struct rundir *cur, const struct exp_set *s, int allow_unjudged, const char *out,
			struct verdict *v)
{
	struct results_file csv;
	struct acc_report rep;
	int rc = results_tmp_open(&csv, out, "acceptance.csv"), failed, unjudged, warned;
	char band[48] = "";

	if (rc || (rc = checks_acc(cur, s, csv.f, &rep))) {
		results_tmp_abort(&csv);
		return rc;
	}
	rc = results_tmp_commit(&csv);
	acc_report_print(stdout, &rep);
	failed = acc_report_failed_rules(&rep);
	unjudged = acc_report_unjudged_rules(&rep);
	if ((warned = acc_report_warned_rules(&rep)))
		snprintf(band, sizeof band, ", %d in the warn band", warned);
	/* a rule asked for and never judged is no pass: a spec for GPUs on a run without an
	 * inventory proves nothing about them */
	if (unjudged)
		verdict_add(v, VERDICT_ACCEPTANCE, failed > 0 || !allow_unjudged,
			    "acceptance: %d of %d rules failed%s, %d unjudged%s", failed, s->n, band, unjudged,
			    allow_unjudged ? " (allowed)" : "");
	else
		verdict_add(v, VERDICT_ACCEPTANCE, failed > 0, "acceptance: %d of %d rules failed%s", failed, s->n, band);
	acc_report_free(&rep);
	return rc ? rc : failed > 0 || (unjudged && !allow_unjudged);
}

struct decl_out {
	FILE *csv;
	int shown;
};

static void decl_row_out(void *ctx, const struct decl_row *r)
{
	struct decl_out *o = ctx;

	csv_row(o->csv, decl_csv_cols, DECL_NCOLS, &(struct decl_csv_row){
		.host = r->host, .tier = r->tier, .sw = r->tier_name, .problem = decl_problem_name(r->problem),
		.declared = r->declared, .measured = r->measured, .measured_matches = r->matches, .how = r->how });
	if (o->shown++ >= 20)
		return;
	if (r->problem == DECL_MISSING)
		escape_term_line(stdout, "  %s: declared under %s, not in this run", r->host, r->declared);
	else if (r->problem == DECL_UNDECLARED)
		escape_term_line(stdout, "  %s: measured (with %s), not declared", r->host, r->measured);
	else
		escape_term_line(stdout, "  %s: declared %s %s, measured in %s, which matches declared %s (%s)", r->host,
				 r->tier_name, r->declared, r->measured, r->matches[0] ? r->matches : "no declared group",
				 r->how);
}

int checks_write_declared(const char *file, const struct decl *d, const struct rundir *cur, const char *out,
			 struct verdict *v)
{
	struct results_file csv;
	struct decl_out o = { .csv = NULL };
	int n, rc;

	if (!cur->has_topo) {
		fprintf(stderr, "fabprobe: --declared: this run has no topology.csv (no latency map) to check\n");
		return FP_EUSAGE;
	}
	if (results_tmp_open(&csv, out, "declared_mismatch.csv"))
		return FP_ERUNTIME;
	o.csv = csv.f;
	csv_header(o.csv, decl_csv_cols, DECL_NCOLS);
	putchar('\n');
	escape_term_line(stdout, "declared topology (%s, %s: %d nodes, %d tier%s):", file, d->format, d->n,
			 d->ntiers, d->ntiers == 1 ? "" : "s");
	n = decl_check(d, cur, decl_row_out, &o);
	rc = results_tmp_commit(&csv);
	if (n < 0)
		rc = n;
	printf("declared: %s (%d mismatch%s; declared_mismatch.csv)\n", n ? "FAIL" : "PASS", n, n == 1 ? "" : "es");
	verdict_add(v, VERDICT_DECLARED, n != 0, "declared: %d mismatch%s", n, n == 1 ? "" : "es");
	return rc ? rc : n > 0;
}

int checks_run(const struct checks_opts *jo, const struct rundir *cur, const char *out, struct verdict *v)
{
	int rc = 0, r;

	if (jo->accept) {
		r = checks_write_accept(cur, &jo->rules, jo->allow_unjudged, out, v);
		rc = r < 0 ? r : rc | r;
	}
	if (jo->declared) {
		r = checks_write_declared(jo->declared, &jo->decl, cur, out, v);
		rc = rc < 0 ? rc : r < 0 ? r : rc | r;
	}
	return rc;
}
