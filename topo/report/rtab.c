/* rtab.c — see rtab.h. */
#include "core/results.h"
#include "rtab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"

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

/* every row after the header: kept up to max_rows, padded or cut to the header's width */
static int tab_rows(struct csv_read *r, int max_rows, struct rtab *t, char *err)
{
	int cap = 0, oom = 0, k;

	while ((k = csv_read_next(r, err)) != 0) {
		if (k == FP_ERUNTIME)
			return k;
		t->total_rows++;
		if (r->nfield != t->ncols && !t->bad[0])
			snprintf(t->bad, sizeof t->bad, "%s:%d: %d cells, expected %d", r->file, r->line, r->nfield,
				 t->ncols);
		if (t->nrows >= max_rows)
			continue;
		if (t->nrows == cap && tab_grow(t, &cap))
			return FP_ERUNTIME;
		for (int c = 0; c < t->ncols; c++)
			t->cell[(size_t)t->nrows * t->ncols + c] = dup_or_null(csv_read_get(r, c), &oom);
		t->line[t->nrows++] = r->line;
		if (oom)
			return FP_ERUNTIME;
	}
	return 0;
}

int rtab_load(const char *path, int max_rows, struct rtab *t, char *err)
{
	struct csv_read r;
	int oom = 0, rc;

	memset(t, 0, sizeof *t);
	if (access(path, F_OK)) {
		snprintf(err, RTAB_ERR_MAX, "%s: %s", path, strerror(errno));
		return -1;
	}
	if ((rc = csv_read_open_in(&r, path, RESULTS_IN_NOLINK, err)))
		return rc;
	t->ncols = r.nhead;
	if (!(t->head = calloc((size_t)r.nhead, sizeof *t->head)))
		oom = 1;
	for (int c = 0; !oom && c < r.nhead; c++)
		t->head[c] = dup_or_null(r.head[c], &oom);
	rc = oom ? FP_ERUNTIME : tab_rows(&r, max_rows, t, err);
	csv_read_close(&r);
	if (rc) {
		snprintf(err, RTAB_ERR_MAX, "%s: out of memory", path);
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
