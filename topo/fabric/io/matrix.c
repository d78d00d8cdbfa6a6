/* matrix.c — see matrix.h. */
#include "matrix.h"
#include "matrix_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "core/results.h"
#include "csv_read.h"
#include "p2p_csv.h"

/* in the square reader: an input error, or out of memory */
#define FAIL(...) do { snprintf(err, MATRIX_ERR_MAX, __VA_ARGS__); goto out; } while (0)
#define OOM(...) do { snprintf(err, MATRIX_ERR_MAX, __VA_ARGS__); ret = FP_ERUNTIME; goto out; } while (0)

/* csv_read_split, its count capped at max */
static int csv_split(char *line, char **fields, int max)
{
	int n = csv_read_split(line, fields, max);

	return n < max ? n : max;
}

/* A cell as csv_read_number reads it (empty = NAN), as a float: 0, -1, -2 as there. */
static int cell(const char *s, float *out)
{
	double v;
	int rc = csv_read_number(s, &v);

	if (!rc)
		*out = (float)v;
	return rc;
}

/* ---------------------------------------------------------------- lines */

/* A file read line by line (a square matrix; p2p.csv is read through p2p_csv.h). Blank lines
 * are accepted at the end only (with a warning); a final line without a newline is accepted,
 * and said. */
struct lines {
	FILE *f;
	const char *file;
	char *buf;
	size_t cap;
	int no;       /* line number of buf */
	int nl;       /* buf ended in a newline */
	off_t size;   /* bytes in the file */
};

/* Opened as every input is (core/results.h's results_input_open): without blocking, then
 * checked before a byte is read; a FIFO is refused, never waited on (fopen blocked on one). */
static int lines_open(struct lines *l, const char *file, char *err)
{
	struct stat st;
	char why[128];
	int fd;

	memset(l, 0, sizeof *l);
	l->file = file;
	if ((fd = results_input_open(file, 0, &st, NULL, why, sizeof why)) < 0) {
		snprintf(err, MATRIX_ERR_MAX, "%s: %s", file, why);
		return FP_EUSAGE;
	}
	if (!(l->f = fdopen(fd, "r"))) {
		close(fd);
		snprintf(err, MATRIX_ERR_MAX, "%s: out of memory", file);
		return FP_ERUNTIME;
	}
	l->size = st.st_size;
	return 0;
}

static void lines_close(struct lines *l)
{
	free(l->buf);
	if (l->f)
		fclose(l->f);
	l->buf = NULL;
	l->f = NULL;
}

/* The next line that holds something, in l->buf. 1, 0 at the end, or FP_EUSAGE with err (a
 * blank line with rows after it; a NUL byte). */
static int lines_next(struct lines *l, char *err)
{
	int blanks = 0, blank_at = 0;

	for (;;) {
		ssize_t n = results_getline(&l->buf, &l->cap, l->f);

		if (n < -1) {
			snprintf(err, MATRIX_ERR_MAX, "%s:%d: %s", l->file, l->no + 1,
				 n == -2 ? "a line of more than 64 MiB (not a matrix)" : "out of memory");
			return n == -2 ? FP_EUSAGE : FP_ERUNTIME;
		}
		if (n < 0) {
			if (blanks)
				LOG_WARN("%s:%d: %d blank line%s at the end of the file, ignored", l->file, blank_at,
					 blanks, blanks == 1 ? "" : "s");
			return 0;
		}
		l->no++;
		l->nl = l->buf[n - 1] == '\n';
		if ((ssize_t)strlen(l->buf) != n) {
			snprintf(err, MATRIX_ERR_MAX, "%s:%d: a NUL byte: not a text file", l->file, l->no);
			return FP_EUSAGE;
		}
		if (!l->buf[strspn(l->buf, " \t\r\n")]) {
			if (!blanks++)
				blank_at = l->no;
			continue;
		}
		if (blanks) {
			snprintf(err, MATRIX_ERR_MAX, "%s:%d: blank line inside the table (rows follow at line %d)",
				 l->file, blank_at, l->no);
			return FP_EUSAGE;
		}
		return 1;
	}
}

/* the header line: a UTF-8 byte order mark (what spreadsheets write) is skipped */
static char *skip_bom(char *s)
{
	return !strncmp(s, "\xef\xbb\xbf", 3) ? s + 3 : s;
}

int matrix_is_square(const char *first_line)
{
	const char *s = !strncmp(first_line, "\xef\xbb\xbf", 3) ? first_line + 3 : first_line;

	/* the corner cell: "host" as fabprobe writes it, "HOST", or empty (pandas) */
	return s[0] == ',' || (!strncasecmp(s, "host", 4) && s[4] == ',');
}

/* ---------------------------------------------------------------- checks both readers share */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names that two rows or columns share make the files disagree: an input error. */
int matrix_names_unique(const struct p2p_matrices *m, const char *file, char *err)
{
	char **v = malloc(sizeof *v * (size_t)m->n);
	int rc = 0;

	if (!v) {
		snprintf(err, MATRIX_ERR_MAX, "%s: out of memory", file);
		return FP_ERUNTIME;
	}
	memcpy(v, m->names, sizeof *v * (size_t)m->n);
	qsort(v, (size_t)m->n, sizeof *v, cmp_str);
	for (int i = 1; i < m->n && !rc; i++)
		if (!strcmp(v[i], v[i - 1])) {
			snprintf(err, MATRIX_ERR_MAX, "%s: host '%.200s' appears twice: every row and column "
				 "must be a different host", file, v[i]);
			rc = FP_EUSAGE;
		}
	free(v);
	return rc;
}

/* A map needs two hosts and at least one measured pair between them. */
/* need_lat 0: a bandwidth cell does (a planned run's p2p_bw.csv holds no latency) */
int matrix_usable(const struct p2p_matrices *m, const char *file, int need_lat, char *err)
{
	if (m->n < 2) {
		snprintf(err, MATRIX_ERR_MAX, "%s: one host only (%.200s): a latency map needs two or more",
			 file, m->n ? m->names[0] : "");
		return FP_EUSAGE;
	}
	for (size_t i = 0; i < (size_t)m->n; i++)
		for (size_t j = 0; j < (size_t)m->n; j++)
			if (i != j && (!isnan(m->lat_min[i * (size_t)m->n + j]) ||
				       (!need_lat && m->bw && !isnan(m->bw[i * (size_t)m->n + j]))))
				return matrix_names_unique(m, file, err);
	snprintf(err, MATRIX_ERR_MAX, "%s: no measured pair (every latency cell is empty)%s", file,
		 m->path[0] ? ": was every pair of this path skipped or failed?" : "");
	return FP_EUSAGE;
}

/* ---------------------------------------------------------------- square matrices */

int matrix_read_square(const char *file, struct p2p_matrices *m, char *err)
{
	struct lines l;
	char **fields = NULL, *head;
	int n, rc, ret = FP_EUSAGE;

	memset(m, 0, sizeof *m);
	if ((rc = lines_open(&l, file, err))) {
		ret = rc;
		goto out;
	}
	if ((rc = lines_next(&l, err)) <= 0) {
		if (rc == 0)
			FAIL("%s: empty file", file);
		goto out;
	}
	head = skip_bom(l.buf);
	n = 1;
	for (char *p = head; *p; p++)
		n += *p == ',';
	if (!(fields = malloc(sizeof *fields * (size_t)(n + 1))))
		OOM("%s: out of memory", file);
	n = csv_split(head, fields, n + 1) - 1;
	if (n < 1 || !(!*fields[0] || !strcasecmp(fields[0], "host")))
		FAIL("%s:1: expected a header 'host,<host names…>'", file);
	/* n rows of n cells are at least n x n bytes: a short file cannot ask for n² memory */
	if ((double)n * n > (double)l.size)
		FAIL("%s:1: %d hosts in the header, but the file (%lld bytes) is too short for %d rows of "
		     "%d cells", file, n, (long long)l.size, n, n);
	m->n = n;
	m->names = calloc((size_t)n, sizeof *m->names);
	m->lat_min = malloc(sizeof *m->lat_min * (size_t)n * n);
	if (!m->names || !m->lat_min)
		OOM("%s: out of memory for a %d x %d matrix", file, n, n);
	for (int j = 0; j < n; j++)
		if (!(m->names[j] = strdup(fields[j + 1])) || !*fields[j + 1])
			FAIL("%s:1: column %d has no host name", file, j + 2);
	for (int i = 0; i < n; i++) {
		if ((rc = lines_next(&l, err)) < 0)
			goto out;
		if (rc == 0)
			FAIL("%s:%d: expected %d rows, found %d", file, l.no + 1, n, i);
		int k = csv_split(l.buf, fields, n + 1);
		if (k != n + 1)
			FAIL("%s:%d: %d cells, expected %d", file, l.no, k, n + 1);
		if (strcmp(fields[0], m->names[i]))
			FAIL("%s:%d: row '%.200s' where the header says '%.200s' (rows and columns must be in "
			     "the same order)", file, l.no, fields[0], m->names[i]);
		for (int j = 0; j < n; j++)
			if ((rc = cell(fields[j + 1], &m->lat_min[(size_t)i * n + j])))
				FAIL("%s:%d: column %d ('%.100s'): '%.100s' %s", file, l.no, j + 2, m->names[j],
				     fields[j + 1], csv_read_number_why(rc));
	}
	if (!l.nl)
		LOG_WARN("%s:%d: no newline at the end of the file", file, l.no);
	if ((rc = lines_next(&l, err)) < 0)
		goto out;
	if (rc > 0)
		FAIL("%s:%d: more rows than columns", file, l.no);
	ret = matrix_usable(m, file, 1, err);
out:
	free(fields);
	lines_close(&l);
	if (ret)
		matrix_free(m);
	return ret;
}

int matrix_init(struct p2p_matrices *m, const char *path, int n)
{
	size_t cells = (size_t)n * (size_t)n;

	memset(m, 0, sizeof *m);
	snprintf(m->path, sizeof m->path, "%s", path);
	m->n = n;
	m->lat_min = malloc(sizeof *m->lat_min * (cells + 1));
	m->lat_p50 = malloc(sizeof *m->lat_p50 * (cells + 1));
	m->lat_p99 = malloc(sizeof *m->lat_p99 * (cells + 1));
	m->lat_hi = malloc(sizeof *m->lat_hi * (cells + 1));
	m->bw = malloc(sizeof *m->bw * (cells + 1));
	if (!m->lat_min || !m->lat_p50 || !m->lat_p99 || !m->lat_hi || !m->bw) {
		LOG_ERROR("out of memory for the matrices of %d endpoints", n);
		matrix_free(m);
		return FP_ERUNTIME;
	}
	for (size_t i = 0; i < cells; i++)
		m->lat_min[i] = m->lat_p50[i] = m->lat_p99[i] = m->lat_hi[i] = m->bw[i] = NAN;
	return 0;
}

void matrix_free(struct p2p_matrices *m)
{
	for (int i = 0; m->names && i < m->n; i++)
		free(m->names[i]);
	free(m->names);
	free(m->lat_min);
	free(m->lat_p50);
	free(m->lat_p99);
	free(m->lat_hi);
	free(m->bw);
	memset(m, 0, sizeof *m);
}
