/* csv_read.c — see csv_read.h. */
#include "csv_read.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

int csv_read_split(char *line, char **fields, int max)
{
	int n = 0;
	char *p = line;

	line[strcspn(line, "\r\n")] = 0;
	for (;;) {
		char *start = p, *w;

		if (*p == '"') {
			start = w = ++p;
			while (*p && !(*p == '"' && p[1] != '"')) {
				if (*p == '"')
					p++;
				*w++ = *p++;
			}
			if (*p == '"')
				p++;
			while (*p && *p != ',') /* junk after a closing quote: kept out */
				p++;
		} else {
			while (*p && *p != ',')
				p++;
			w = p;
		}
		char sep = *p;

		*w = 0;
		if (n < max)
			fields[n] = start;
		n++;
		if (sep != ',')
			break;
		p++;
	}
	return n;
}

/* The fields of buf into r->field, growing it; returns the count or -1 (out of memory). */
static int split_row(struct csv_read *r)
{
	int n = 1;

	for (const char *p = r->buf; *p; p++)
		n += *p == ',';
	if (n > r->fcap) {
		char **q = realloc(r->field, sizeof *q * (size_t)n);

		if (!q)
			return -1;
		r->field = q;
		r->fcap = n;
	}
	return r->nfield = csv_read_split(r->buf, r->field, r->fcap);
}

static int blank(const char *s)
{
	return !s[strspn(s, " \t\r\n")];
}

int csv_read_open(struct csv_read *r, const char *file, char *err)
{
	*r = (struct csv_read){ .file = file };
	if (!(r->f = fopen(file, "r"))) {
		snprintf(err, CSV_READ_ERR_MAX, "%s: %s", file, strerror(errno));
		return FP_EUSAGE;
	}
	do {
		r->line++;
		if (getline(&r->buf, &r->cap, r->f) < 0) {
			snprintf(err, CSV_READ_ERR_MAX, "%s: empty file (no header row)", file);
			csv_read_close(r);
			return FP_EUSAGE;
		}
	} while (blank(r->buf));
	if (split_row(r) < 0 || !(r->head = calloc((size_t)r->nfield, sizeof *r->head)))
		goto oom;
	r->nhead = r->nfield;
	for (int i = 0; i < r->nhead; i++)
		if (!(r->head[i] = strdup(r->field[i])))
			goto oom;
	r->nfield = 0;
	return 0;
oom:
	snprintf(err, CSV_READ_ERR_MAX, "%s: out of memory", file);
	csv_read_close(r);
	return FP_EUSAGE;
}

int csv_read_next(struct csv_read *r, char *err)
{
	do {
		r->line++;
		if (getline(&r->buf, &r->cap, r->f) < 0) {
			r->nfield = 0;
			return 0;
		}
	} while (blank(r->buf));
	if (split_row(r) < 0) {
		snprintf(err, CSV_READ_ERR_MAX, "%s:%d: out of memory", r->file, r->line);
		return FP_EUSAGE;
	}
	if (r->nfield > r->nhead) {
		snprintf(err, CSV_READ_ERR_MAX, "%s:%d: %d fields where the header has %d", r->file, r->line,
			 r->nfield, r->nhead);
		return FP_EUSAGE;
	}
	return 1;
}

int csv_read_col(const struct csv_read *r, const char *name)
{
	for (int i = 0; i < r->nhead; i++)
		if (!strcmp(r->head[i], name))
			return i;
	return -1;
}

const char *csv_read_get(const struct csv_read *r, int c)
{
	return c >= 0 && c < r->nfield ? r->field[c] : "";
}

void csv_read_close(struct csv_read *r)
{
	for (int i = 0; r->head && i < r->nhead; i++)
		free(r->head[i]);
	free(r->head);
	free(r->field);
	free(r->buf);
	if (r->f)
		fclose(r->f);
	*r = (struct csv_read){ 0 };
}
