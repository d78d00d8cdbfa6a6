/* csv_read.c — see csv_read.h. */
#include "csv_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"

/* past the quoted field that starts after the opening quote at p: at its closing quote, or at
 * the end of the text when the quote is left open (a doubled quote is one quote of data) */
static const char *quoted_end(const char *p)
{
	while (*p && !(*p == '"' && p[1] != '"'))
		p += *p == '"' ? 2 : 1;
	return p;
}

int csv_read_split(char *line, char **fields, int max)
{
	size_t len = strlen(line);
	int n = 0;
	char *p = line;

	if (len && line[len - 1] == '\n')
		line[--len] = 0;
	if (len && line[len - 1] == '\r')
		line[--len] = 0;
	for (;;) {
		char *start = p, *w;

		if (*p == '"') {
			const char *end = quoted_end(p + 1);

			start = w = ++p;
			while (p < end) { /* the data, a doubled quote made one */
				if (*p == '"')
					p++;
				*w++ = *p++;
			}
			if (*p == '"')
				p++;
			p += strcspn(p, ","); /* junk after a closing quote: kept out */
		} else {
			p += strcspn(p, ",");
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

enum { Q_START, Q_PLAIN, Q_QUOTED, Q_AFTER }; /* where a row's text stands, by csv_read_split */

/* The state after t[from..n) from state st: Q_QUOTED when it ends inside a quoted field (the
 * row goes on to the next line). A row's text is scanned once, a line at a time: a quote left
 * open over many lines costs no more than reading them. A NUL ends the row (as it ends the
 * split). */
static int quote_state(const char *t, ssize_t from, ssize_t n, int st)
{
	for (ssize_t i = from; i < n; i++) {
		if (!t[i])
			return Q_START;
		if (st == Q_START)
			st = t[i] == '"' ? Q_QUOTED : t[i] == ',' ? Q_START : Q_PLAIN;
		else if (st != Q_QUOTED)
			st = t[i] == ',' ? Q_START : st;
		else if (t[i] == '"' && i + 1 < n && t[i + 1] == '"')
			i++; /* a doubled quote: data */
		else if (t[i] == '"')
			st = Q_AFTER;
	}
	return st;
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

/* The next non-blank row into r->buf, continued over lines while a quote is open: 1, 0 at
 * the end, -1 out of memory. */
static int row_text(struct csv_read *r)
{
	ssize_t n, k;

	do {
		r->line = r->next_line++;
		if ((n = getline(&r->buf, &r->cap, r->f)) < 0)
			return 0;
	} while (blank(r->buf));
	int st = quote_state(r->buf, 0, n, Q_START);

	while (st == Q_QUOTED && (k = getline(&r->more, &r->mcap, r->f)) >= 0) {
		r->next_line++;
		if ((size_t)(n + k) + 1 > r->cap) {
			size_t cap = 2 * ((size_t)(n + k) + 1);
			char *b = realloc(r->buf, cap);

			if (!b)
				return -1;
			r->buf = b;
			r->cap = cap;
		}
		memcpy(r->buf + n, r->more, (size_t)k + 1);
		st = quote_state(r->buf, n, n + k, Q_QUOTED);
		n += k;
	}
	r->nl = n > 0 && r->buf[n - 1] == '\n';
	return 1;
}

/* file for reading, when it is a regular file: opened without blocking (a FIFO would wait for
 * a writer for ever), then read as usual. NULL with err. */
static FILE *regular_open(const char *file, char *err)
{
	int fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC), flags;
	struct stat st;
	FILE *f;

	if (fd < 0) {
		snprintf(err, CSV_READ_ERR_MAX, "%s: %s", file, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, CSV_READ_ERR_MAX, "%s: not a regular file", file);
		close(fd);
		return NULL;
	}
	if ((flags = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) || !(f = fdopen(fd, "r"))) {
		snprintf(err, CSV_READ_ERR_MAX, "%s: %s", file, strerror(errno));
		close(fd);
		return NULL;
	}
	return f;
}

int csv_read_open(struct csv_read *r, const char *file, char *err)
{
	int got;

	*r = (struct csv_read){ .file = file, .next_line = 1 };
	if (!(r->f = regular_open(file, err)))
		return FP_EUSAGE;
	if ((got = row_text(r)) <= 0) {
		snprintf(err, CSV_READ_ERR_MAX, "%s: %s", file, got ? "out of memory" : "empty file (no header row)");
		csv_read_close(r);
		return got ? FP_ERUNTIME : FP_EUSAGE;
	}
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
	return FP_ERUNTIME;
}

int csv_read_next(struct csv_read *r, char *err)
{
	int got = row_text(r);

	if (got == 0) {
		r->nfield = 0;
		return 0;
	}
	if (got < 0 || split_row(r) < 0) {
		snprintf(err, CSV_READ_ERR_MAX, "%s:%d: out of memory", r->file, r->line);
		return FP_ERUNTIME;
	}
	if (!r->nl && r->nfield < r->nhead) {
		LOG_WARN("%s:%d: the last row is cut short (%d cells, no newline): ignored", r->file, r->line,
			 r->nfield);
		r->nfield = 0;
		return 0;
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

void csv_cols_find(char *const *head, int nhead, const struct csv_col *cols, int n, int *idx)
{
	for (int k = 0; k < n; k++) {
		idx[k] = -1;
		for (int i = nhead - 1; i >= 0; i--) { /* the first of two alike, as csv_read_col */
			const char *h = head[i];

			if (i == 0 && !strncmp(h, "\xef\xbb\xbf", 3))
				h += 3;
			if (!strcmp(h, cols[k].name))
				idx[k] = i;
		}
	}
}

void csv_read_cols(const struct csv_read *r, const struct csv_col *cols, int n, int *idx)
{
	csv_cols_find(r->head, r->nhead, cols, n, idx);
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
	free(r->more);
	if (r->f)
		fclose(r->f);
	*r = (struct csv_read){ 0 };
}
