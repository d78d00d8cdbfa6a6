/* report_util.c — the page's helpers (report_int.h): notes, a results file's path, a CSV table
 * loaded and drawn, names as JSON for the page's script, a section's heading. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/escape.h"
#include "core/jw.h"
#include "core/log.h"
#include "html.h"
#include "report_int.h"

/* ---------------------------------------------------------------- helpers */

void rpt_note(struct rpt *r, const char *fmt, ...)
{
	struct report_notes *n = r->notes;
	char buf[1024], **m;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	for (int i = 0; i < n->n; i++)
		if (!strcmp(n->msg[i], buf))
			return;
	if (!(m = realloc(n->msg, sizeof *m * (size_t)(n->n + 1))))
		return;
	n->msg = m;
	if ((m[n->n] = strdup(buf)))
		n->n++;
}

void rpt_file(const struct rpt *r, const char *name, char *out, size_t len)
{
	snprintf(out, len, "%s/%s", r->dir, name);
}

int rpt_table_load(struct rpt *r, const char *name, int max_rows, struct rtab *t, const char *costs)
{
	char path[4096], err[RTAB_ERR_MAX];
	int rc;

	rpt_file(r, name, path, sizeof path);
	rc = rtab_load(path, max_rows, t, err);
	if (rc == -1) {
		if (costs)
			rpt_note(r, "%s: %s: %s", name, errno == ENOENT ? "not in this directory" : strerror(errno), costs);
		return -1;
	}
	r->found++;
	if (rc && !costs)
		return -1;
	if (rc) {
		rpt_note(r, "%s: %s", strrchr(err, '/') ? strrchr(err, '/') + 1 : err, costs);
		return -1;
	}
	if (t->bad[0] && costs)
		rpt_note(r, "%s (shown as far as its cells go)", strrchr(t->bad, '/') ? strrchr(t->bad, '/') + 1 : t->bad);
	return 0;
}

void rpt_table_html(FILE *f, const struct rtab *t, const char *const *cols, int max, const char *cls)
{
	int idx[64], k = 0;

	for (int c = 0; cols ? cols[c] && k < 64 : c < t->ncols && k < 64; c++)
		if ((idx[k] = cols ? rtab_col(t, cols[c]) : c) >= 0)
			k++;
	fprintf(f, "<table class=\"%s\"><thead><tr>", cls);
	for (int c = 0; c < k; c++) {
		fputs("<th>", f);
		html_text(f, t->head[idx[c]]);
		fputs("</th>", f);
	}
	fputs("</tr></thead><tbody>\n", f);
	for (int i = 0; i < t->nrows && i < max; i++) {
		fputs("<tr>", f);
		for (int c = 0; c < k; c++) {
			const char *v = rtab_get(t, i, idx[c]);

			fputs(html_is_number(v) ? "<td class=\"n\">" : "<td>", f);
			html_text_max(f, v, 2000);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	long shown = t->nrows < max ? t->nrows : max;
	if (t->total_rows > shown)
		fprintf(f, "<p class=\"muted\">… %ld more rows in the file.</p>\n", t->total_rows - shown);
}

void rpt_names_json(FILE *f, const char *id, const char *const *names, int n)
{
	struct jw j;

	fprintf(f, "<script type=\"application/json\" id=\"%s\">", id);
	jw_init(&j, f);
	j.esc = ESCAPE_JSON_HTML; /* no "</script>" can end it early */
	jw_array(&j, 1);
	for (int i = 0; i < n; i++)
		jw_str(&j, names[i]);
	jw_end(&j);
	jw_done(&j); /* its line break ends inside the script, harmlessly */
	fputs("</script>\n", f);
}

void rpt_section(FILE *f, const char *id, const char *title)
{
	fprintf(f, "<section id=\"%s\">\n<h2>%s</h2>\n", id, title);
}

void report_notes_free(struct report_notes *n)
{
	for (int i = 0; i < n->n; i++)
		free(n->msg[i]);
	free(n->msg);
	n->msg = NULL;
	n->n = 0;
}

