/* report_tables.c — the latency map's tables (tiers.csv, the tree of groups from
 * topology.csv, suspects.csv), every scheduler file with its install line, and the inventory
 * (nodes.csv, nics.csv, gpus.csv, paths.csv, inventory_mismatch.csv). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/results.h"
#include "fabric/emit/emit.h"
#include "fabric/io/check_csv.h"
#include "fabric/io/ctr_csv.h"
#include "fabric/io/hostlist.h"
#include "html.h"
#include "report_int.h"

/* ---------------------------------------------------------------- tiers, tree, suspects */

static void members(FILE *f, const char *const *names, int n)
{
	char *list = NULL, err[256];

	if (hostlist_compress(names, n, &list, err, sizeof err) == 0) {
		html_text_max(f, list, 20000);
		free(list);
		return;
	}
	for (int i = 0; i < n && i < 256; i++) { /* names a hostlist cannot carry: as they are */
		fputs(i ? ", " : "", f);
		html_text_max(f, names[i], 200);
	}
	if (n > 256)
		fprintf(f, ", … %d more", n - 256);
}

/* hosts [s, e) of topology.csv, grouped at tier and below */
static void tree(FILE *f, const struct rpt_topo *t, int tier, int s, int e)
{
	fputs("<ul class=\"tree\">\n", f);
	for (int a = s; a < e;) {
		const char *g = t->group[(size_t)tier * t->n + a];
		int b = a + 1;

		while (b < e && !strcmp(t->group[(size_t)tier * t->n + b], g))
			b++;
		fputs("<li><b>", f);
		html_text_max(f, *g ? g : "(no group)", 100);
		fprintf(f, "</b> (%d host%s)", b - a, b - a == 1 ? "" : "s");
		if (tier > 0)
			tree(f, t, tier - 1, a, b);
		else {
			fputs(": ", f);
			members(f, t->host + a, b - a);
		}
		fputs("</li>\n", f);
		a = b;
	}
	fputs("</ul>\n", f);
}

/* <p class="muted">, the text escaped */
static void __attribute__((format(printf, 2, 3))) muted(FILE *f, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	fputs("<p class=\"muted\">", f);
	html_text(f, buf);
	fputs("</p>\n", f);
}

/* a path's heading, where the run drew a map per path */
static void map_heading(FILE *f, const char *path)
{
	if (!path)
		return;
	fputs("<h3>Path ", f);
	html_text(f, path);
	fputs("</h3>\n", f);
}

/* one map's tiers and groups: tiers<suffix>.csv, topology<suffix>.csv */
static void map_tiers(struct rpt *r, const struct rpt_map *m, const char *path, void *arg)
{
	char name[160];
	struct rtab t;

	(void)arg;
	map_heading(r->out, path);
	snprintf(name, sizeof name, "tiers%s.csv", m->suffix);
	if (rpt_table_load(r, name, 64, &t, "no tier table") == 0) {
		rpt_table_html(r->out, &t, NULL, 64, "tiers");
		rtab_free(&t);
	} else
		muted(r->out, "No %s.", name);
	fputs(path ? "<h4>Groups and their hosts</h4>\n" : "<h3>Groups and their hosts</h3>\n", r->out);
	if (m->have_topo && m->topo.n && m->topo.ntiers)
		tree(r->out, &m->topo, m->topo.ntiers - 1, 0, m->topo.n);
	else
		muted(r->out, "No topology%s.csv with tiers.", m->suffix);
}

/* one map's suspects: suspects<suffix>.csv */
static void map_suspects(struct rpt *r, const struct rpt_map *m, const char *path, void *arg)
{
	long k = m->suspects.total_rows;

	(void)arg;
	map_heading(r->out, path);
	if (!m->have_suspects)
		muted(r->out, "No suspects%s.csv.", m->suffix);
	else if (!k)
		fputs("<p>None: every pair agrees with its tier, no node stands out.</p>\n", r->out);
	else {
		fputs("<p>", r->out);
		html_textf(r->out, "%ld suspect%s from the latency map (suspects%s.csv): slow nodes, low-bandwidth "
			   "nodes, links off their tier, pairs never measured.", k, k == 1 ? "" : "s", m->suffix);
		fputs("</p>\n", r->out);
		rpt_table_html(r->out, &m->suspects, NULL, RPT_ROWS_MAX, "suspects");
	}
}

void rpt_topology(struct rpt *r)
{
	rpt_section(r->out, "topology", "Tiers and switch groups");
	fputs("<p>Inferred from latencies alone: tier 0 is the leaf switch, tier 1 the spine. p50 latency and "
	      "bandwidth over the pairs that meet at that tier; threshold is the latency boundary between "
	      "this tier and the next.", r->out);
	fputs(rpt_maps_per_path(r) ? " One map per path: each network has its switches; topology.csv, tiers.csv and "
	      "suspects.csv are the copies of the path the scheduler files come from.</p>\n" : "</p>\n", r->out);
	rpt_each_map(r, map_tiers, NULL);
	fputs("</section>\n", r->out);
	rpt_section(r->out, "suspects", "Suspects");
	rpt_each_map(r, map_suspects, NULL);
	fputs("</section>\n", r->out);
}

/* ---------------------------------------------------------------- scheduler files */

/* The first lines of a scheduler file, read as every file of a results directory is (a regular
 * file, no link followed, no FIFO or device opened blocking) and bounded: at most `lines` lines
 * and FILE_HEAD_MAX bytes, a longer line cut ("…"). */
#define FILE_HEAD_MAX 8192
static void file_head(FILE *f, const char *path, int lines)
{
	struct stat st;
	char buf[FILE_HEAD_MAX + 1], why[128];
	int fd = results_input_open(path, RESULTS_IN_NOLINK, &st, NULL, why, sizeof why), k = 0;
	ssize_t got = 0, n;
	char *p, *end;

	if (fd < 0)
		return;
	while (got < FILE_HEAD_MAX && (n = read(fd, buf + got, (size_t)(FILE_HEAD_MAX - got))) > 0)
		got += n;
	close(fd);
	buf[got] = 0;
	fputs("<details><summary>first lines</summary><pre>", f);
	for (p = buf, end = buf + got; p < end && k < lines; k++) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (len > 200) { /* one long line does not fill the page */
			p[200] = 0;
			html_text(f, p);
			fputs("…\n", f);
		} else {
			char save = p[len];

			p[len] = 0;
			html_text(f, p);
			p[len] = save;
			fputc('\n', f);
		}
		p = nl ? nl + 1 : end;
	}
	if (p < end || got == FILE_HEAD_MAX)
		fputs("…\n", f);
	fputs("</pre></details>", f);
}

/* the written ring's busbw in one order of order_check.csv (NAN: no such row) */
static double ring_busbw(const struct rtab *t, const char *order)
{
	const struct csv_col *oc = order_csv_cols;
	int o = rtab_col(t, oc[ORDER_COL_ORDER].name), b = rtab_col(t, oc[ORDER_COL_BACKEND].name);
	int v = rtab_col(t, oc[ORDER_COL_BUSBW].name);

	for (int i = 0; i < t->nrows; i++)
		if (!strcmp(rtab_get(t, i, o), order) && !strcmp(rtab_get(t, i, b), "ring")) {
			char *end;
			double x = strtod(rtab_get(t, i, v), &end);

			return end != rtab_get(t, i, v) && x > 0 ? x : NAN;
		}
	return NAN;
}

/* `run`'s order stage: the all-reduce in the written, the launch and a random order */
static void order_check(struct rpt *r)
{
	const struct csv_col *oc = order_csv_cols;
	const char *const cols[] = { oc[ORDER_COL_ORDER].name, oc[ORDER_COL_BACKEND].name, oc[ORDER_COL_BUSBW].name,
				     oc[ORDER_COL_PREDICTED].name, oc[ORDER_COL_WRONG].name, oc[ORDER_COL_HOSTS].name, NULL };
	struct rtab t;
	double w, l;

	if (rpt_table_load(r, "order_check.csv", 16, &t, NULL))
		return;
	w = ring_busbw(&t, "written"), l = ring_busbw(&t, "launch");
	fputs("<h3>The node order, proven</h3>\n<p>An all-reduce over one rank per node in the order written "
	      "above, in the launch order and in a random one (order_check.csv); busbw beside what the map "
	      "predicts for a ring in that order.", r->out);
	if (!isnan(w) && !isnan(l))
		fprintf(r->out, " The ring in the written order: %.3f GB/s, in the launch order: %.3f GB/s (x%.2f).", w,
			l, w / l);
	fputs("</p>\n", r->out);
	rpt_table_html(r->out, &t, cols, 16, "order");
	rtab_free(&t);
}

void rpt_schedulers(struct rpt *r)
{
	rpt_section(r->out, "schedulers", "Scheduler files");
	fputs("<p>Written from the inferred tree, hosts in its order. Each line says how to install the file.</p>\n"
	      "<table class=\"schedulers\"><thead><tr><th>file</th><th>what</th><th>install</th><th>size</th>"
	      "</tr></thead><tbody>\n", r->out);
	for (int i = 0; emit_registry[i]; i++) {
		const struct emit_file *e = emit_registry[i];
		char path[4096];
		struct stat st;
		int there;

		rpt_file(r, e->name, path, sizeof path);
		there = stat(path, &st) == 0;
		fprintf(r->out, "<tr><td><code>%s</code></td><td>%s", e->name, e->summary);
		if (there)
			file_head(r->out, path, 30);
		fprintf(r->out, "</td><td><code>%s</code></td><td class=\"n\">", e->install ? e->install : "");
		if (there)
			fprintf(r->out, "%lld B", (long long)st.st_size);
		else
			fprintf(r->out, "%s%s", e->absent ? e->absent : e->opt_in ? "only with " : "not written",
				e->absent || !e->opt_in ? "" : e->opt_in);
		fputs("</td></tr>\n", r->out);
	}
	fputs("</tbody></table>\n<p class=\"muted\">A file the format cannot hold the host names in is not written "
	      "(the run said why); on one node no scheduler file is written.</p>\n", r->out);
	order_check(r);
	fputs("</section>\n", r->out);
}

/* ---------------------------------------------------------------- link counters */

/* counters.csv: the findings first, then the counters that moved without being judged
 * (congestion, retransmissions, a virtual port's errors): what explains a slow pair */
void rpt_links(struct rpt *r)
{
	const struct csv_col *k = ctr_csv_cols;
	const char *const cols[] = { k[CTR_COL_NODE].name, k[CTR_COL_PORT].name, k[CTR_COL_KIND].name,
				     k[CTR_COL_COUNTER].name, k[CTR_COL_CLASS].name, k[CTR_COL_BEFORE].name,
				     k[CTR_COL_AFTER].name, k[CTR_COL_DELTA].name, k[CTR_COL_FINDING].name,
				     k[CTR_COL_NOTE].name, NULL };
	struct rtab t, show;
	int cf, cc, cd, cj, nf = 0, nm = 0;

	if (rpt_table_load(r, "counters.csv", 1 << 20, &t, NULL))
		return;
	rpt_section(r->out, "links", "Link counters");
	cf = rtab_col(&t, k[CTR_COL_FINDING].name), cc = rtab_col(&t, k[CTR_COL_CLASS].name);
	cd = rtab_col(&t, k[CTR_COL_DELTA].name), cj = rtab_col(&t, k[CTR_COL_JUDGED].name);
	show = t;
	if (!(show.cell = malloc(sizeof *show.cell * (size_t)(t.nrows ? t.nrows : 1) * (size_t)(t.ncols ? t.ncols : 1)))) {
		rtab_free(&t);
		fputs("</section>\n", r->out);
		return;
	}
	for (int pass = 0; pass < 2; pass++) {
		show.nrows = 0;
		for (int i = 0; i < t.nrows; i++) {
			const char *cls = rtab_get(&t, i, cc), *d = rtab_get(&t, i, cd);
			int found = rtab_get(&t, i, cf)[0] != 0;
			int moved = !found && d[0] && strcmp(d, "0") && strcmp(cls, "traffic") &&
				    (strcmp(cls, "errors") && strcmp(cls, "flap") ? 1 : !strcmp(rtab_get(&t, i, cj), "0"));

			if (pass == 0 ? found : moved)
				memcpy(show.cell + (size_t)show.nrows++ * t.ncols, t.cell + (size_t)i * t.ncols,
				       sizeof *t.cell * (size_t)t.ncols);
		}
		show.total_rows = show.nrows;
		*(pass == 0 ? &nf : &nm) = show.nrows;
		if (pass == 0 && nf) {
			fputs("<h3 class=\"bad\">Findings: a flap or error counter that rose on a judged port</h3>\n", r->out);
			rpt_table_html(r->out, &show, cols, RPT_ROWS_MAX, "links");
		} else if (pass == 0) {
			fprintf(r->out, "<p>No flap or error counter rose on a judged port between the read before the first "
				"pair and the read after the last transfer (%ld counters in counters.csv).</p>\n", t.total_rows);
		} else if (nm) {
			fputs("<h3>Other counters that moved (not judged: congestion, retransmissions, a port no path "
			      "uses)</h3>\n", r->out);
			rpt_table_html(r->out, &show, cols, RPT_ROWS_MAX, "links");
		}
	}
	free(show.cell);
	rtab_free(&t);
	fputs("</section>\n", r->out);
}
