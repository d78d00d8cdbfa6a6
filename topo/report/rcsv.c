/* rcsv.c — see rcsv.h. */
#include "rcsv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

int rcsv_open(struct rcsv *r, const char *path)
{
	memset(r, 0, sizeof *r);
	r->next_line = 1;
	r->f = fopen(path, "r");
	return r->f ? 0 : -1;
}

void rcsv_close(struct rcsv *r)
{
	if (r->f)
		fclose(r->f);
	free(r->line);
	free(r->buf);
	free(r->start);
	memset(r, 0, sizeof *r);
}

static int put(struct rcsv *r, size_t *len, char c)
{
	if (*len + 1 >= r->cap) {
		size_t cap = r->cap * 2 + 256;
		char *b = realloc(r->buf, cap);

		if (!b)
			return FP_ERUNTIME;
		r->buf = b;
		r->cap = cap;
	}
	r->buf[(*len)++] = c;
	return 0;
}

static int field_begin(struct rcsv *r, size_t at)
{
	if (r->nfield == r->fcap) {
		int cap = r->fcap * 2 + 16;
		size_t *s = realloc(r->start, sizeof *s * (size_t)cap);

		if (!s)
			return FP_ERUNTIME;
		r->start = s;
		r->fcap = cap;
	}
	r->start[r->nfield++] = at;
	return 0;
}

/* One record from as many lines as its quotes span. */
int rcsv_next(struct rcsv *r)
{
	size_t len = 0;
	int quoted = 0, at_start = 1;
	ssize_t n;

	r->nfield = 0;
	if ((n = getline(&r->line, &r->line_cap, r->f)) < 0)
		return 0;
	r->line_no = r->next_line++;
	if (field_begin(r, 0))
		return FP_ERUNTIME;
	for (;;) {
		for (ssize_t i = 0; i < n; i++) {
			char c = r->line[i];

			if (quoted) {
				if (c != '"')
					;
				else if (i + 1 < n && r->line[i + 1] == '"')
					i++;
				else {
					quoted = 0;
					continue;
				}
			} else if (c == '"' && at_start) {
				quoted = 1;
				at_start = 0;
				continue;
			} else if (c == ',') {
				if (put(r, &len, 0) || field_begin(r, len))
					return FP_ERUNTIME;
				at_start = 1;
				continue;
			} else if (c == '\n' || (c == '\r' && i + 1 < n && r->line[i + 1] == '\n')) {
				break;
			}
			at_start = 0;
			if (put(r, &len, c))
				return FP_ERUNTIME;
		}
		if (!quoted || (n = getline(&r->line, &r->line_cap, r->f)) < 0)
			break;
		r->next_line++;
	}
	return put(r, &len, 0) ? FP_ERUNTIME : r->nfield;
}

const char *rcsv_field(const struct rcsv *r, int i)
{
	return i >= 0 && i < r->nfield ? r->buf + r->start[i] : "";
}

/* ---------------------------------------------------------------- whole tables */

static char *dup_or_null(const char *s, int *oom)
{
	char *d = strdup(s);

	*oom |= !d;
	return d;
}

static int tab_grow(struct rtab *t, int *cap)
{
	int c = *cap * 2 + 16;
	char **cell = realloc(t->cell, sizeof *cell * (size_t)c * (size_t)t->ncols);
	long *line;

	if (!cell)
		return FP_ERUNTIME;
	t->cell = cell;
	if (!(line = realloc(t->line, sizeof *line * (size_t)c)))
		return FP_ERUNTIME;
	t->line = line;
	*cap = c;
	return 0;
}

static int tab_rows(struct rcsv *r, int max_rows, struct rtab *t, const char *path)
{
	int cap = 0, oom = 0, k;

	while ((k = rcsv_next(r)) > 0) {
		if (k == 1 && !*rcsv_field(r, 0))
			continue; /* a blank line */
		t->total_rows++;
		if (k != t->ncols && !t->bad[0])
			snprintf(t->bad, sizeof t->bad, "%s:%ld: %d cells, expected %d", path, r->line_no, k, t->ncols);
		if (t->nrows >= max_rows)
			continue;
		if (t->nrows == cap && tab_grow(t, &cap))
			return FP_ERUNTIME;
		for (int c = 0; c < t->ncols; c++)
			t->cell[(size_t)t->nrows * t->ncols + c] = dup_or_null(rcsv_field(r, c), &oom);
		t->line[t->nrows++] = r->line_no;
		if (oom)
			return FP_ERUNTIME;
	}
	return k < 0 ? k : 0;
}

int rtab_load(const char *path, int max_rows, struct rtab *t, char *err)
{
	struct rcsv r;
	int k, oom = 0, rc;

	memset(t, 0, sizeof *t);
	if (rcsv_open(&r, path)) {
		snprintf(err, RCSV_ERR_MAX, "%s: %s", path, strerror(errno));
		return -1;
	}
	k = rcsv_next(&r);
	if (k <= 0 || (k == 1 && !*rcsv_field(&r, 0))) {
		snprintf(err, RCSV_ERR_MAX, "%s: %s", path, k < 0 ? "out of memory" : "empty, no header");
		rcsv_close(&r);
		return k < 0 ? FP_ERUNTIME : FP_EUSAGE;
	}
	t->ncols = k;
	if (!(t->head = calloc((size_t)k, sizeof *t->head)))
		oom = 1;
	for (int c = 0; !oom && c < k; c++)
		t->head[c] = dup_or_null(rcsv_field(&r, c), &oom);
	rc = oom ? FP_ERUNTIME : tab_rows(&r, max_rows, t, path);
	rcsv_close(&r);
	if (rc) {
		snprintf(err, RCSV_ERR_MAX, "%s: out of memory", path);
		rtab_free(t);
	}
	return rc;
}

int rtab_col(const struct rtab *t, const char *name)
{
	for (int c = 0; c < t->ncols; c++)
		if (!strcmp(t->head[c], name))
			return c;
	return -1;
}

const char *rtab_get(const struct rtab *t, int row, int col)
{
	if (col < 0 || col >= t->ncols || row < 0 || row >= t->nrows)
		return "";
	const char *s = t->cell[(size_t)row * t->ncols + col];
	return s ? s : "";
}

void rtab_free(struct rtab *t)
{
	for (int c = 0; t->head && c < t->ncols; c++)
		free(t->head[c]);
	for (size_t i = 0; t->cell && i < (size_t)t->nrows * t->ncols; i++)
		free(t->cell[i]);
	free(t->head);
	free(t->cell);
	free(t->line);
	memset(t, 0, sizeof *t);
}
