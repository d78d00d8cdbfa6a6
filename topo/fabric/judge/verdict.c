/* verdict.c — see verdict.h. */
#include "verdict.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/escape.h"
#include "core/log.h"

static const char *const about_name[VERDICT_NABOUT] = {
	[VERDICT_UNJUDGED] = "unjudged", [VERDICT_NODES] = "nodes", [VERDICT_PAIRS] = "pairs",
	[VERDICT_COLLECTIVES] = "collectives", [VERDICT_SUSPECTS] = "suspects", [VERDICT_LINKS] = "links",
	[VERDICT_BASELINE] = "baseline", [VERDICT_ACCEPTANCE] = "acceptance", [VERDICT_DECLARED] = "declared", [VERDICT_RAILS] = "rails",
	[VERDICT_MAP] = "map",
};

const char *verdict_about_name(enum verdict_about about)
{
	return about >= 0 && about < VERDICT_NABOUT ? about_name[about] : "?";
}

static int add_text(struct verdict *v, enum verdict_about about, int fails, char *text)
{
	if (!text || (v->n == v->cap && (v->cap = v->cap ? 2 * v->cap : 16,
					  !(v->c = realloc(v->c, sizeof *v->c * (size_t)v->cap))))) {
		free(text);
		v->oom = 1;
		if (!v->c)
			v->n = v->cap = 0;
		return FP_ERUNTIME;
	}
	v->c[v->n++] = (struct verdict_clause){ .about = about, .fails = fails != 0, .text = text };
	return 0;
}

int verdict_add(struct verdict *v, enum verdict_about about, int fails, const char *fmt, ...)
{
	va_list ap;
	char *text = NULL;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	return add_text(v, about, fails, text);
}

int verdict_append(struct verdict *v, const struct verdict *from)
{
	int rc = 0;

	for (int i = 0; i < from->n; i++)
		rc |= add_text(v, from->c[i].about, from->c[i].fails, strdup(from->c[i].text));
	if (from->oom)
		v->oom = 1;
	return rc ? FP_ERUNTIME : 0;
}

int verdict_fails(const struct verdict *v)
{
	for (int i = 0; i < v->n; i++)
		if (v->c[i].fails)
			return 1;
	return v->oom;
}

char *verdict_join(const struct verdict *v, enum verdict_about lo, enum verdict_about hi, char *out, size_t len)
{
	out[0] = 0;
	for (int i = 0; i < v->n; i++)
		if (v->c[i].about >= lo && v->c[i].about <= hi)
			text_add(out, len, "; ", "%s", v->c[i].text);
	return out;
}

char *verdict_line(const struct verdict *v, const char *word)
{
	char *line = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&line, &n);

	if (!f)
		return NULL;
	fprintf(f, "verdict: %s (", word ? word : verdict_fails(v) ? "FAIL" : "PASS");
	for (int i = 0; i < v->n; i++)
		fprintf(f, "%s%s", i ? "; " : "", v->c[i].text);
	if (v->oom)
		fprintf(f, "%sa clause was lost: out of memory", v->n ? "; " : "");
	fputc(')', f);
	if (fclose(f)) {
		free(line);
		return NULL;
	}
	return line;
}

void verdict_free(struct verdict *v)
{
	for (int i = 0; i < v->n; i++)
		free(v->c[i].text);
	free(v->c);
	*v = (struct verdict){ 0 };
}
