/* csv_read.c — see csv_read.h. */
#include "csv_read.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "core/results.h"

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
			p = strchrnul(p, ','); /* junk after a closing quote: kept out */
		} else {
			p = strchrnul(p, ',');
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

/* where a row's text stands, by csv_read_split; Q_NUL: at a NUL byte */
enum { Q_START, Q_PLAIN, Q_QUOTED, Q_AFTER, Q_NUL };

/* The state after t[from..n) from state st: Q_QUOTED when it ends inside a quoted field (the
 * row goes on to the next line). A row's text is scanned once, a line at a time: a quote left
 * open over many lines costs no more than reading them. A NUL ends the row (as it ends the
 * split): Q_NUL. */
static int quote_state(const char *t, ssize_t from, ssize_t n, int st)
{
	/* a line without quotes or NULs (nearly every one) is decided by its last byte alone */
	if ((st == Q_START || st == Q_QUOTED) && n > from && !memchr(t + from, '"', (size_t)(n - from)) &&
	    strlen(t + from) == (size_t)(n - from))
		return st == Q_QUOTED ? Q_QUOTED : t[n - 1] == ',' ? Q_START : Q_PLAIN;
	for (ssize_t i = from; i < n; i++) {
		if (!t[i])
			return Q_NUL;
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

#define SPLIT_BY_LEN 4096 /* bytes: a longer row's fields are counted */

/* The fields of buf into r->field, growing it; returns the count or -1 (out of memory). A row
 * has at most a field a byte, plus one: a short row's fields need no counting. */
static int split_row(struct csv_read *r)
{
	int n = r->len < SPLIT_BY_LEN ? (int)r->len + 1 : 1;

	if (r->len >= SPLIT_BY_LEN)
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
 * the end, -1 out of memory, -2 a row longer than RESULTS_LINE_MAX (the input rule). */
static int row_text(struct csv_read *r)
{
	ssize_t n, k;

	do {
		r->line = r->next_line++;
		if ((n = results_getline(&r->buf, &r->cap, r->f)) < 0)
			return n == -1 ? 0 : n == -2 ? -2 : -1;
	} while (blank(r->buf));
	int st = quote_state(r->buf, 0, n, Q_START);

	while (st == Q_QUOTED && (k = results_getline(&r->more, &r->mcap, r->f)) >= 0) {
		r->next_line++;
		if ((size_t)(n + k) > RESULTS_LINE_MAX)
			return -2;
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
	r->nul = st == Q_NUL;
	r->len = (size_t)n;
	return 1;
}

/* file for reading, when it is a regular file: opened without blocking (a FIFO would wait for
 * a writer for ever), then read as usual. NULL with err. */
static FILE *regular_open(const char *file, unsigned flags, struct stat *stp, char *err)
{
	char why[128];
	int fd = results_input_open(file, flags, stp, NULL, why, sizeof why);
	FILE *f = NULL;

	if (fd < 0)
		snprintf(err, CSV_READ_ERR_MAX, "%s: %s", file, why);
	else if (!(f = fdopen(fd, "r"))) {
		snprintf(err, CSV_READ_ERR_MAX, "%s: %s", file, strerror(errno));
		close(fd);
	}
	return f;
}

/* a file's modification time, in ns */
static long long mtime_ns(const struct stat *st)
{
	return (long long)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
}

int csv_read_open(struct csv_read *r, const char *file, char *err)
{
	return csv_read_open_in(r, file, 0, err);
}

/* r->f open: its header row read and kept. 0, or FP_EUSAGE / FP_ERUNTIME with err (r closed). */
static int header_read(struct csv_read *r, char *err)
{
	int got = row_text(r);

	if (got <= 0) {
		snprintf(err, CSV_READ_ERR_MAX, "%s: %s", r->file, got == -2 ? "a row of more than 64 MiB (not a CSV file)"
			 : got ? "out of memory" : "empty file (no header row)");
		csv_read_close(r);
		return got == -1 ? FP_ERUNTIME : FP_EUSAGE;
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
	snprintf(err, CSV_READ_ERR_MAX, "%s: out of memory", r->file);
	csv_read_close(r);
	return FP_ERUNTIME;
}

int csv_read_open_in(struct csv_read *r, const char *file, unsigned flags, char *err)
{
	struct stat st;

	*r = (struct csv_read){ .file = file, .next_line = 1 };
	if (!(r->f = regular_open(file, flags, &st, err)))
		return FP_EUSAGE;
	r->size = (long long)st.st_size;
	r->mtime_ns = mtime_ns(&st);
	return header_read(r, err);
}

int csv_read_open_mem(struct csv_read *r, const char *name, const char *text, size_t len, char *err)
{
	*r = (struct csv_read){ .file = name, .next_line = 1, .size = (long long)len };
	if (!len) {
		snprintf(err, CSV_READ_ERR_MAX, "%s: empty file (no header row)", name);
		return FP_EUSAGE;
	}
	if (!(r->f = fmemopen((void *)text, len, "r"))) {
		snprintf(err, CSV_READ_ERR_MAX, "%s: out of memory", name);
		return FP_ERUNTIME;
	}
	return header_read(r, err);
}

int csv_read_next(struct csv_read *r, char *err)
{
	int got = row_text(r);

	if (got == 0) {
		r->nfield = 0;
		return 0;
	}
	if (got == -2) {
		snprintf(err, CSV_READ_ERR_MAX, "%s:%d: a row of more than 64 MiB (not a CSV file)", r->file, r->line);
		return FP_EUSAGE;
	}
	if (got < 0 || split_row(r) < 0) {
		snprintf(err, CSV_READ_ERR_MAX, "%s:%d: out of memory", r->file, r->line);
		return FP_ERUNTIME;
	}
	if (!r->nl && r->nfield < r->nhead) {
		if (!r->quiet)
			LOG_WARN("%s:%d: the last row is cut short (%d cells, no newline): ignored", r->file,
				 r->line, r->nfield);
		r->nfield = 0;
		r->torn = 1;
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

int csv_read_rewind(struct csv_read *r, char *err)
{
	struct stat st;
	int same;

	if (fstat(fileno(r->f), &st) || (long long)st.st_size != r->size || mtime_ns(&st) != r->mtime_ns ||
	    fseek(r->f, 0, SEEK_SET))
		goto changed;
	r->next_line = 1;
	r->torn = 0;
	r->quiet = 1;
	if (row_text(r) <= 0 || split_row(r) != r->nhead)
		goto changed;
	same = 1;
	for (int i = 0; i < r->nhead; i++)
		same &= !strcmp(r->field[i], r->head[i]);
	r->nfield = 0;
	if (same)
		return 0;
changed:
	snprintf(err, CSV_READ_ERR_MAX, "%s: the file changed while it was read", r->file);
	return FP_EUSAGE;
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

/* the slow path of csv_read_number, for s not blank: 0, -1, -2 as there */
static int number_slow(const char *s, double *out)
{
	const char *p;
	char buf[128], *end;
	size_t len;
	int digits = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	len = strlen(s);
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (len >= sizeof buf)
		return -1;
	memcpy(buf, s, len);
	buf[len] = 0;
	for (p = buf; *p >= '0' && *p <= '9'; p++)
		digits++;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			digits++;
	if (!digits)
		return -1;
	if (*p == 'e' || *p == 'E') {
		p += p[1] == '+' || p[1] == '-' ? 2 : 1;
		if (!(*p >= '0' && *p <= '9'))
			return -1;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p)
		return -1;
	*out = strtod(buf, &end);
	if (*end || !isfinite(*out) || *out > FLT_MAX)
		return -2; /* ERANGE on underflow is fine: the value is 0 or tiny */
	return 0;
}

int csv_read_number(const char *s, double *out)
{
	const char *p = s;
	uint64_t ip = 0, fp = 0, scale = 1;

	while (*p >= '0' && *p <= '9' && ip < (1ULL << 50))
		ip = ip * 10 + (uint64_t)(*p++ - '0');
	if (*p == '.' && p > s) {
		p++;
		while (*p >= '0' && *p <= '9' && scale < 1000000000ULL) {
			fp = fp * 10 + (uint64_t)(*p++ - '0');
			scale *= 10;
		}
	}
	if (!*p && p > s && p[-1] != '.') {
		*out = (double)ip + (double)fp / (double)scale;
		return 0;
	}
	if (!s[strspn(s, " \t")]) {
		*out = NAN;
		return 0;
	}
	return number_slow(s, out);
}

const char *csv_read_number_why(int rc)
{
	return rc == -2 ? "is too large (above 3.4e38)" : "is not a non-negative number";
}
