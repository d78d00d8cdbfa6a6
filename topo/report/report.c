/* report.c — see report.h: the page, its verdict banner and metadata (the helpers the sections
 * share: report_util.c). Sections are written to a memory stream first, so that what they could not
 * show is listed at the top. */
#include "report.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "fabric/io/coll_csv.h"
#include "fabric/io/hostlist.h"
#include "html.h"
#include "fabric/io/map_csv.h"
#include "report_int.h"
#include "report_page.h"

/* ---------------------------------------------------------------- verdict */

struct bullet {
	char text[512];
	int bad;
};

struct bullets {
	int n;
	struct bullet f[2 * RPT_PATHS_MAX + 8];
};

static void find(struct bullets *v, int bad, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void find(struct bullets *v, int bad, const char *fmt, ...)
{
	va_list ap;

	if (v->n == (int)(sizeof v->f / sizeof v->f[0]))
		return;
	va_start(ap, fmt);
	vsnprintf(v->f[v->n].text, sizeof v->f[v->n].text, fmt, ap);
	va_end(ap);
	v->f[v->n++].bad = bad;
}

/* a latency map's suspects (path NULL: the run's one map), the first few named */
struct map_finding_arg {
	struct bullets *v;
	int one_node;
};

static void map_finding(struct rpt *r, const struct rpt_map *m, const char *path, void *arg)
{
	struct bullets *v = ((struct map_finding_arg *)arg)->v;
	int one_node = ((struct map_finding_arg *)arg)->one_node;
	const struct rtab *t = &m->suspects;
	int ck = rtab_col(t, map_finding_cols[MAP_FIND_KIND].name), ch = rtab_col(t, map_finding_cols[MAP_FIND_HOSTS].name);
	long k = t->total_rows;
	char named[200] = "", on[160] = "";

	(void)r;
	if (!m->have_suspects)
		return;
	for (int i = 0; i < t->nrows && i < 3 && ck >= 0 && ch >= 0; i++) {
		size_t l = strlen(named);

		snprintf(named + l, sizeof named - l, "%s%.40s %.60s", i ? ", " : ": ", rtab_get(t, i, ck), rtab_get(t, i, ch));
	}
	if (k > 3 && ck >= 0 && ch >= 0) {
		size_t l = strlen(named);

		snprintf(named + l, sizeof named - l, " and %ld more", k - 3);
	}
	if (path)
		snprintf(on, sizeof on, " over %.120s", path);
	if (!k)
		find(v, 0, "latency map%s: no suspects", on);
	else
		find(v, !one_node, "latency map%s: %ld suspect%s (suspects%s.csv)%s%s", on, k, k == 1 ? "" : "s", m->suffix,
		     named, one_node ? "; one node: informative, not a verdict" : "");
}

/* what the files say, one line per stage */
static void findings(struct rpt *r, struct bullets *v)
{
	struct rtab t;
	const struct rjson *nodes = rjson_get(&r->meta, "nodes");
	int one_node = nodes && nodes->type == RJSON_NUM && nodes->num == 1;

	if (rpt_table_load(r, "inventory_mismatch.csv", 0, &t, NULL) == 0) {
		find(v, t.total_rows > 0, t.total_rows ? "inventory: %ld difference%s from the majority "
		     "(inventory_mismatch.csv)" : "inventory: nodes alike", t.total_rows, t.total_rows == 1 ? "" : "s");
		rtab_free(&t);
	}
	for (int i = 0; i < r->npaths; i++) {
		const struct rpt_path *p = &r->paths[i];

		find(v, p->ok < p->rows, "pairs over %.100s: %ld of %ld measured%s", p->name, p->ok, p->rows,
		     p->ok < p->rows ? " (see p2p.csv status and note)" : "");
		if (p->ok < p->rows)
			snprintf(v->f[v->n - 1].text + strlen(v->f[v->n - 1].text), 160, ": %ld timeout, %ld error, %ld skipped",
				 p->timeout, p->error, p->skipped);
	}
	if (rpt_table_load(r, "collectives.csv", 1 << 20, &t, NULL) == 0) {
		int w = rtab_col(&t, coll_csv_cols[COLL_COL_WRONG].name);
		int s = rtab_col(&t, coll_csv_cols[COLL_COL_STATUS].name);
		long bad = 0;

		for (int i = 0; i < t.nrows; i++)
			bad += atof(rtab_get(&t, i, w)) > 0 || (s >= 0 && strcmp(rtab_get(&t, i, s), "ok"));
		if (bad)
			find(v, 1, "collectives: %ld of %d results wrong or failed (collectives.csv)", bad, t.nrows);
		else
			find(v, 0, "collectives: all %d results correct", t.nrows);
		rtab_free(&t);
	}
	rpt_each_map(r, map_finding, &(struct map_finding_arg){ v, one_node });
}

/* the verdict of summary.json: its clauses, as the terminal, junit.xml and fabprobe.prom said them */
static void clauses(const struct run_model *m, struct bullets *v)
{
	for (int i = 0; i < m->verdict->n; i++)
		find(v, m->verdict->c[i].fails, "%s", m->verdict->c[i].text);
}

static void banner(struct rpt *r, FILE *f)
{
	struct bullets v = { 0 };
	const struct rjson *code = rjson_get(&r->meta, "exit_code");
	const char *status = rjson_str(rjson_get(&r->meta, "status")), *word, *cls, *why;
	char buf[96];
	int bad = 0;

	if (r->have_model)
		clauses(&r->model.m, &v);
	else
		findings(r, &v);
	for (int i = 0; i < v.n; i++)
		bad |= v.f[i].bad;
	if (status && !strcmp(status, "running"))
		word = "INCOMPLETE", cls = "unknown", why = "the run had not finished when this was written (or it was killed)";
	else if (status && !strcmp(status, "interrupted")) {
		snprintf(buf, sizeof buf, "ended by a signal (exit code %.0f): what was measured is below",
			 code && code->type == RJSON_NUM ? code->num : 128);
		word = "INTERRUPTED", cls = "fail", why = buf;
	} else if (code && code->type == RJSON_NUM && code->num >= 0 && code->num <= 3)
		word = code->num == 0 ? "PASS" : code->num == 1 ? "FAIL" : "ERROR", cls = code->num == 0 ? "pass" : "fail",
		why = code->num == 0 ? "exit code 0: every check passed" : code->num == 1 ? "exit code 1: a check failed"
		: code->num == 2 ? "exit code 2: a usage or input error" : "exit code 3: a run-time error (MPI, I/O)";
	else if (code && code->type == RJSON_NUM) {
		snprintf(buf, sizeof buf, "exit code %.0f", code->num);
		word = "ERROR", cls = "fail", why = buf;
	} else if (r->have_model)
		word = bad ? "FAIL" : "PASS", cls = bad ? "fail" : "pass", why = "summary.json's verdict, clause by clause";
	else
		word = bad ? "FAIL" : "NO VERDICT", cls = bad ? "fail" : "unknown",
		why = "no exit code in meta.json: judged from the files below";
	fprintf(f, "<div class=\"banner %s\" id=\"verdict\"><b>%s</b>", cls, word);
	html_text(f, why);
	fputs("<ul>", f);
	for (int i = 0; i < v.n; i++) {
		fputs(v.f[i].bad ? "<li><strong>" : "<li>", f);
		html_text(f, v.f[i].text);
		fputs(v.f[i].bad ? "</strong></li>" : "</li>", f);
	}
	fputs("</ul></div>\n", f);
}

/* ---------------------------------------------------------------- metadata */

static void kv_begin(FILE *f, const char *key)
{
	fprintf(f, "<tr><th>%s</th><td>", key);
}

static void kv_json(FILE *f, const struct rjson *m, const char *key, const char *label)
{
	const struct rjson *v = rjson_get(m, key);

	if (!v || (v->type != RJSON_STR && v->type != RJSON_NUM))
		return;
	kv_begin(f, label);
	if (v->type == RJSON_STR)
		html_text_max(f, v->str, 4000);
	else
		fprintf(f, "%.15g", v->num);
	fputs("</td></tr>\n", f);
}

/* argv as a shell would need it typed */
static void command_line(FILE *f, const struct rjson *argv)
{
	if (!argv || argv->type != RJSON_ARR)
		return;
	kv_begin(f, "command line");
	fputs("<code>", f);
	for (int i = 0; i < argv->n && i < 4096; i++) {
		const char *a = rjson_str(&argv->item[i]);
		int plain = a && *a && strspn(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=,+-@%") == strlen(a);

		fputs(i ? " " : "", f);
		if (!plain)
			fputc('\'', f);
		for (const char *p = a ? a : ""; *p; p++) {
			char one[2] = { *p, 0 };
			if (*p == '\'')
				fputs("'\\''", f);
			else
				html_text(f, one);
		}
		if (!plain)
			fputc('\'', f);
	}
	fputs("</code></td></tr>\n", f);
}

static void hosts_line(FILE *f, const struct rjson *hosts)
{
	const char **names;
	char *list = NULL, err[256];

	if (!hosts || hosts->type != RJSON_ARR || !hosts->n || !(names = calloc((size_t)hosts->n, sizeof *names)))
		return;
	for (int i = 0; i < hosts->n; i++)
		names[i] = rjson_str(&hosts->item[i]) ? rjson_str(&hosts->item[i]) : "?";
	kv_begin(f, "endpoints");
	if (hostlist_compress(names, hosts->n, &list, err, sizeof err) == 0)
		html_text_max(f, list, 8000);
	else
		for (int i = 0; i < hosts->n && i < 64; i++) {
			fputs(i ? ", " : "", f);
			html_text_max(f, names[i], 200);
		}
	fputs("</td></tr>\n", f);
	free(list);
	free(names);
}

static void nccl_line(FILE *f, const struct rjson *cm)
{
	const struct rjson *be = rjson_get(cm, "backends");

	for (int i = 0; be && be->type == RJSON_ARR && i < be->n && i < 16; i++) {
		const char *name = rjson_str(rjson_get(&be->item[i], "name"));
		const char *ver = rjson_str(rjson_get(&be->item[i], "version"));
		const char *st = rjson_str(rjson_get(&be->item[i], "status"));
		const char *why = rjson_str(rjson_get(&be->item[i], "why"));

		if (!name)
			continue;
		kv_begin(f, "collective backend");
		html_text(f, name);
		fputs(": ", f);
		html_text_max(f, ver ? ver : "version unknown", 300);
		if (st) {
			fputs(" — ", f);
			html_text_max(f, st, 100);
		}
		if (why && *why) {
			fputs(" (", f);
			html_text_max(f, why, 500);
			fputs(")", f);
		}
		fputs("</td></tr>\n", f);
	}
}

static void metadata(struct rpt *r, FILE *f)
{
	const struct rjson *m = &r->meta;

	rpt_section(f, "meta", "Run");
	fputs("<table class=\"kv\">\n", f);
	kv_begin(f, "results");
	html_text(f, r->dir);
	fputs("</td></tr>\n", f);
	kv_json(f, m, "run_id", "run");
	command_line(f, rjson_get(m, "argv"));
	kv_json(f, m, "started_utc", "started (UTC)");
	kv_json(f, m, "finished_utc", "finished (UTC)");
	kv_json(f, m, "status", "status");
	kv_json(f, m, "exit_code", "exit code");
	kv_json(f, m, "version", "fabprobe version");
	kv_json(f, m, "build", "build");
	kv_json(f, m, "nodes", "nodes");
	kv_json(f, m, "ranks", "ranks");
	kv_json(f, m, "endpoints", "endpoints (count)");
	if (r->npaths) {
		kv_begin(f, "paths");
		for (int i = 0; i < r->npaths; i++) {
			fputs(i ? ", " : "", f);
			html_text(f, r->paths[i].name);
		}
		fputs("</td></tr>\n", f);
	}
	kv_json(f, m, "mpi_library", "MPI library");
	kv_json(f, m, "mpi_standard", "MPI standard");
	nccl_line(f, &r->coll_meta);
	hosts_line(f, rjson_get(m, "hosts"));
	fputs("</table>\n</section>\n", f);
}

/* ---------------------------------------------------------------- the page */

static void head(struct rpt *r, FILE *f)
{
	const char *id = rjson_str(rjson_get(&r->meta, "run_id"));

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"fabprobe " FP_VERSION "\">\n<title>fabprobe report: ", f);
	html_text_max(f, id ? id : r->dir, 200);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<div id=\"tip\"></div>\n<h1>fabprobe report: ", report_css);
	html_text_max(f, id ? id : r->dir, 200);
	fputs("</h1>\n", f);
}

static void nav(FILE *f, const struct rpt *r, int compare)
{
	/* the files beside the page that machines act on, each linked when the run wrote it */
	static const char *const machine[] = { "summary.json", "junit.xml", "fabprobe.prom", "counters.csv",
					       "drain-slurm.sh", "k8s-health-labels.yaml", "topograph-graph.json",
					       "topograph-model.yaml", NULL };

	fputs("<nav><a href=\"#meta\">run</a><a href=\"#maps\">heat maps</a><a href=\"#topology\">tiers and groups</a>"
	      "<a href=\"#suspects\">suspects</a><a href=\"#schedulers\">scheduler files</a>"
	      "<a href=\"#sweeps\">message sizes</a><a href=\"#collectives\">collectives</a>"
	      "<a href=\"#links\">link counters</a><a href=\"#inventory\">inventory</a>", f);
	if (compare)
		fputs("<a href=\"#compare\">compare</a>", f);
	for (int i = 0; machine[i]; i++) {
		char path[4096];
		struct stat sb;

		rpt_file(r, machine[i], path, sizeof path);
		if (lstat(path, &sb) == 0 && S_ISREG(sb.st_mode))
			fprintf(f, "<a href=\"%s\">%s</a>", machine[i], machine[i]);
	}
	fputs("</nav>\n", f);
}

static void notes_html(const struct report_notes *n, FILE *f)
{
	if (!n->n)
		return;
	fputs("<section id=\"notes\" class=\"notes\"><h3>Not shown, or shown in part</h3><ul>\n", f);
	for (int i = 0; i < n->n; i++) {
		fputs("<li>", f);
		html_text(f, n->msg[i]);
		fputs("</li>\n", f);
	}
	fputs("</ul></section>\n", f);
}

static int memstream_fail(FILE *a, FILE *b, char *ba, char *bb, char *err, size_t errlen)
{
	if (a)
		fclose(a);
	if (b)
		fclose(b);
	free(ba);
	free(bb);
	snprintf(err, errlen, "out of memory");
	return FP_ERUNTIME;
}

int report_write(FILE *out, const char *dir, struct report_notes *notes, char *err, size_t errlen)
{
	struct rpt r = { .dir = dir, .notes = notes };
	char *body = NULL, *top = NULL, path[4096];
	size_t blen = 0, tlen = 0;
	FILE *b = open_memstream(&body, &blen), *t = open_memstream(&top, &tlen);

	if (!b || !t)
		return memstream_fail(b, t, body, top, err, errlen);
	rpt_load(&r);
	r.out = b;
	rpt_maps(&r);
	rpt_topology(&r);
	rpt_schedulers(&r);
	rpt_sweeps(&r);
	rpt_collectives(&r);
	rpt_links(&r);
	rpt_inventory(&r);
	rpt_compare(&r);
	banner(&r, t);
	metadata(&r, t);
	if (fclose(b) | fclose(t)) {
		rpt_unload(&r);
		return memstream_fail(NULL, NULL, body, top, err, errlen);
	}
	if (!r.found) {
		snprintf(err, errlen, "%s holds none of fabprobe's files (meta.json, p2p.csv, latency_*.csv, "
			 "topology.csv, collectives.csv, nodes.csv…)", dir);
		rpt_unload(&r);
		free(body);
		free(top);
		return FP_EUSAGE;
	}
	head(&r, out);
	rpt_file(&r, "compare.csv", path, sizeof path);
	nav(out, &r, access(path, F_OK) == 0);
	fwrite(top, 1, tlen, out);
	notes_html(notes, out);
	fwrite(body, 1, blen, out);
	fprintf(out, "<p class=\"muted\">Written by fabprobe %s (<code>fabprobe report</code>). One file: it "
		"fetches nothing.</p>\n<script>\n%s</script>\n</body>\n</html>\n", FP_VERSION, report_js);
	rpt_unload(&r);
	free(body);
	free(top);
	return 0;
}
