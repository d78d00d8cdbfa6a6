/* emit_junit.c — junit.xml (run_model.h): the run's checks as JUnit test cases, for the CI
 * systems that show them red or green. One suite per stage: the inventory, each path's
 * nodes (a node fails on a path where its pairs were not all measured or a finding on it
 * held) and links (each finding on a pair that held), each path's map (a case per tier),
 * the collectives (a case per sweep: a wrong element, or below --min-pct), the judges, and
 * the verdict. Written from the run's model; every text through the one XML rule
 * (core/escape.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/escape.h"
#include "core/log.h"
#include "fabric/io/coll_csv.h"
#include "run_model.h"
#include "topo_csv.h"

/* one test case: name, the failure's message (NULL: passed) and what it measured (NULL: none,
 * as system-out: the name stays the same from run to run, so that a CI keeps its history) */
static void tcase_out(FILE *f, const char *cls, const char *name, const char *failure, const char *out)
{
	fputs("    <testcase classname=\"", f);
	escape_xml_write(f, cls);
	fputs("\" name=\"", f);
	escape_xml_write(f, name);
	if (!failure && !out) {
		fputs("\"/>\n", f);
		return;
	}
	fputs("\">\n", f);
	if (failure) {
		fputs("      <failure message=\"", f);
		escape_xml_write(f, failure);
		fputs("\"/>\n", f);
	}
	if (out) {
		fputs("      <system-out>", f);
		escape_xml_write(f, out);
		fputs("</system-out>\n", f);
	}
	fputs("    </testcase>\n", f);
}

static void tcase(FILE *f, const char *cls, const char *name, const char *failure)
{
	tcase_out(f, cls, name, failure, NULL);
}

static void suite_open(FILE *f, const char *name, int tests, int failures)
{
	fputs("  <testsuite name=\"", f);
	escape_xml_write(f, name);
	fprintf(f, "\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"0\">\n", tests, failures);
}

/* direction x of m has no figure at all (neither a latency nor a bandwidth: -s none measures
 * no bandwidth, and a direction it measured is not missing) */
static int dir_missing(const struct run_model_path *m, size_t x)
{
	return !(m->lat_min && !isnan(m->lat_min[x])) && !(m->bw && !isnan(m->bw[x]));
}

/* the directions of node a on m not measured (either way, with any peer) */
static int node_unmeasured(const struct run_model_path *m, int a)
{
	int k = 0;

	for (int b = 0; b < m->n; b++)
		if (b != a && (dir_missing(m, (size_t)a * m->n + b) || dir_missing(m, (size_t)b * m->n + a)))
			k++;
	return k;
}

/* the reason of the first finding on node a of path p that held, into why; 0 when none */
static int node_finding(const struct emit_topo *t, const struct run_model_path *p, int a, char *why, size_t len)
{
	for (int k = 0; k < p->held->n; k++) {
		const struct suspect *s = &p->held->s[k];
		char hosts[600];
		const char *metric;

		if (s->state == SUSP_HELD && susp_on_node(s) && s->a == a) {
			topo_suspect_text(t, s, hosts, sizeof hosts, &metric, why, len);
			return 1;
		}
	}
	return 0;
}

static void path_suites(FILE *f, const struct run_model *m)
{
	for (int i = 0; i < m->npaths; i++) {
		const struct run_model_path *p = &m->path[i];
		const struct infer_result *r = p->map;
		struct emit_topo t = { .n = m->n, .hosts = m->hosts, .tree = r };
		char suite[128], why[1400];
		int links = 0, fails = 0;

		for (int k = 0; k < p->held->n; k++)
			links += p->held->s[k].state == SUSP_HELD && !susp_on_node(&p->held->s[k]);
		for (int a = 0; a < m->n; a++)
			fails += node_unmeasured(p, a) > 0 || (r && node_finding(&t, p, a, why, sizeof why));
		snprintf(suite, sizeof suite, "pairs %s", p->path);
		suite_open(f, suite, m->n + links, fails + links);
		for (int a = 0; a < m->n; a++) {
			int un = node_unmeasured(p, a);

			if (r && node_finding(&t, p, a, why, sizeof why))
				tcase(f, suite, m->hosts[a], why);
			else if (un) {
				snprintf(why, sizeof why, "%s: %d direction%s with its peers not measured on %s (p2p.csv says why)",
					 m->hosts[a], un, un == 1 ? "" : "s", p->path);
				tcase(f, suite, m->hosts[a], why);
			} else {
				tcase(f, suite, m->hosts[a], NULL);
			}
		}
		for (int k = 0; k < p->held->n && r; k++) {
			const struct suspect *s = &p->held->s[k];
			char hosts[600], name[700];
			const char *metric;

			if (s->state != SUSP_HELD || susp_on_node(s))
				continue;
			topo_suspect_text(&t, s, hosts, sizeof hosts, &metric, why, sizeof why);
			snprintf(name, sizeof name, "%s %s", susp_kind_name(s->kind), hosts);
			tcase(f, suite, name, why);
		}
		fputs("  </testsuite>\n", f);
		if (!r)
			continue;
		snprintf(suite, sizeof suite, "map %s", p->path);
		suite_open(f, suite, r->ntiers, 0);
		for (int k = 0; k < r->ntiers; k++) {
			char kind[EMIT_NAME_MAX], name[64], fig[200];

			emit_tier_kind(k, kind);
			snprintf(name, sizeof name, "tier %d (%s)", k, kind);
			snprintf(fig, sizeof fig, "%d group%s, %lld pairs, p50 %.2f us, %.4f GB/s", r->ngroups[k],
				 r->ngroups[k] == 1 ? "" : "s", r->npairs[k], r->lat_p50_us[k], r->bw_p50_GBps[k]);
			tcase_out(f, suite, name, NULL, fig);
		}
		fputs("  </testsuite>\n", f);
	}
}

static void coll_suite(FILE *f, const struct run_model *m)
{
	const struct coll_summary *cs = m->coll;
	int fails = 0;

	for (int i = 0; i < cs->nsweeps; i++)
		fails += cs->sweep[i].wrong > 0 || cs->sweep[i].below_min_pct;
	suite_open(f, "collectives", cs->nsweeps, fails);
	for (int i = 0; i < cs->nsweeps; i++) {
		const struct coll_sweep_sum *x = &cs->sweep[i];
		char name[200], why[300] = "", fig[120];

		snprintf(name, sizeof name, "%s%s%s %s %s%s%s, %llu B", x->backend, x->path[0] ? " over " : "", x->path, x->op,
			 x->dtype, x->redop[0] ? " " : "", x->redop, (unsigned long long)x->size_B);
		snprintf(fig, sizeof fig, "busbw %.4f GB/s", x->busbw_GBps);
		if (x->wrong > 0)
			snprintf(why, sizeof why, "%lld wrong element(s) in the checked results (collectives.csv)", x->wrong);
		else if (x->below_min_pct)
			snprintf(why, sizeof why, "busbw %.1f %% of the %.1f Gbit/s line rate, below --min-pct %g",
				 coll_pct_line_rate(x->busbw_GBps, x->line_rate_Gbps), x->line_rate_Gbps, m->min_pct);
		tcase_out(f, "collectives", name, why[0] ? why : NULL, fig);
	}
	fputs("  </testsuite>\n", f);
}

/* the endpoint a link finding's node is, or -1 (one node of several ranks: no endpoint) */
static int finding_endpoint(const struct run_model *m, const struct ctr_finding *f)
{
	for (int e = 0; e < m->n; e++)
		if (!strcmp(m->hosts[e], f->node))
			return e;
	return -1;
}

/* the link counters: a case per node, failed by each counter that rose on one of its ports; a
 * finding of a node that is no endpoint as a case of its own */
static void links_suite(FILE *f, const struct run_model *m, const struct ctr_summary *l)
{
	char *why = calloc((size_t)m->n + 1, 1200);
	int fails = 0, extra = 0;

	if (!why)
		return;
	for (int i = 0; i < l->nfind; i++) {
		int e = finding_endpoint(m, &l->find[i]);
		char *s = why + (size_t)(e < 0 ? m->n : e) * 1200;
		size_t k = strlen(s);

		if (e < 0)
			extra++;
		else
			fails += k == 0;
		if (e >= 0 && k < 1200)
			snprintf(s + k, 1200 - k, "%s%s on %s: %s", k ? "; " : "", l->find[i].kind, l->find[i].port,
				 l->find[i].what);
	}
	suite_open(f, "link counters", m->n + extra, fails + extra);
	for (int e = 0; e < m->n; e++)
		tcase(f, "link counters", m->hosts[e], why[(size_t)e * 1200] ? why + (size_t)e * 1200 : NULL);
	for (int i = 0; i < l->nfind; i++)
		if (finding_endpoint(m, &l->find[i]) < 0) {
			char *s = why + (size_t)m->n * 1200;

			snprintf(s, 1200, "%s on %s: %s", l->find[i].kind, l->find[i].port, l->find[i].what);
			tcase(f, "link counters", l->find[i].node, s);
		}
	fputs("  </testsuite>\n", f);
	free(why);
}

int emit_junit(FILE *f, const struct run_model *m)
{
	const struct verdict *v = m->verdict;
	int judges_fail = 0, fails = verdict_fails(v);
	char judges[1024];

	for (int i = 0; i < v->n; i++)
		judges_fail |= v->c[i].about >= VERDICT_JUDGED && v->c[i].about <= VERDICT_JUDGES_LAST && v->c[i].fails;
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"fabprobe run ", f);
	escape_xml_write(f, m->run_id);
	fputs("\">\n", f);
	suite_open(f, "inventory", 1, m->inventoried && m->inventory_differs);
	tcase(f, "inventory", "every node alike", m->inventoried && m->inventory_differs ?
	      "the nodes differ: inventory_mismatch.csv names them" : NULL);
	fputs("  </testsuite>\n", f);
	path_suites(f, m);
	if (m->coll_run && m->coll)
		coll_suite(f, m);
	if (m->links && m->links->done)
		links_suite(f, m, m->links);
	suite_open(f, "judges", 1, judges_fail);
	tcase(f, "judges", "baseline, expectations, declared cabling and rails",
	      judges_fail ? verdict_join(v, VERDICT_JUDGED, VERDICT_JUDGES_LAST, judges, sizeof judges) : NULL);
	fputs("  </testsuite>\n", f);
	suite_open(f, "unjudged", 1, m->unjudged_fails); /* nothing is a pass that nothing judged */
	tcase(f, "unjudged", "everything judged", m->unjudged_fails ? m->unjudged : NULL);
	fputs("  </testsuite>\n", f);
	suite_open(f, "verdict", 1, fails);
	tcase(f, "verdict", "fabprobe run", fails ? m->line : NULL);
	fputs("  </testsuite>\n</testsuites>\n", f);
	return ferror(f) ? FP_ERUNTIME : 0;
}
