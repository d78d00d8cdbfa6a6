/* matrix.c — see matrix.h. */
#include "matrix.h"

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
static int names_unique(const struct matrix *m, const char *file, char *err)
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
static int usable(const struct matrix *m, const char *file, int need_lat, char *err)
{
	if (m->n < 2) {
		snprintf(err, MATRIX_ERR_MAX, "%s: one host only (%.200s): a latency map needs two or more",
			 file, m->n ? m->names[0] : "");
		return FP_EUSAGE;
	}
	for (size_t i = 0; i < (size_t)m->n; i++)
		for (size_t j = 0; j < (size_t)m->n; j++)
			if (i != j && (!isnan(m->lat[i * (size_t)m->n + j]) ||
				       (!need_lat && m->bw && !isnan(m->bw[i * (size_t)m->n + j]))))
				return names_unique(m, file, err);
	snprintf(err, MATRIX_ERR_MAX, "%s: no measured pair (every latency cell is empty)%s", file,
		 m->path[0] ? ": was every pair of this path skipped or failed?" : "");
	return FP_EUSAGE;
}

/* ---------------------------------------------------------------- square matrices */

int matrix_read_square(const char *file, struct matrix *m, char *err)
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
	m->lat = malloc(sizeof *m->lat * (size_t)n * n);
	if (!m->names || !m->lat)
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
			if ((rc = cell(fields[j + 1], &m->lat[(size_t)i * n + j])))
				FAIL("%s:%d: column %d ('%.100s'): '%.100s' %s", file, l.no, j + 2, m->names[j],
				     fields[j + 1], csv_read_number_why(rc));
	}
	if (!l.nl)
		LOG_WARN("%s:%d: no newline at the end of the file", file, l.no);
	if ((rc = lines_next(&l, err)) < 0)
		goto out;
	if (rc > 0)
		FAIL("%s:%d: more rows than columns", file, l.no);
	ret = usable(m, file, 1, err);
out:
	free(fields);
	lines_close(&l);
	if (ret)
		matrix_free(m);
	return ret;
}

void matrix_free(struct matrix *m)
{
	for (int i = 0; m->names && i < m->n; i++)
		free(m->names[i]);
	free(m->names);
	free(m->lat);
	free(m->bw);
	free(m->lat_hi);
	memset(m, 0, sizeof *m);
}

/* ---------------------------------------------------------------- p2p.csv */

/* the columns this reader needs besides those every p2p.csv reader does (p2p_csv_open) */
#define P2P_NEED                                                                                       \
	(P2P_CSV_NEED(P2P_COL_SRC_DEV) | P2P_CSV_NEED(P2P_COL_DST_DEV) | P2P_CSV_NEED(P2P_COL_LAT_MIN) | \
	 P2P_CSV_NEED(P2P_COL_BW_GBPS))

/* Beyond this many endpoints, a path must have rows enough to fill its matrices: at most
 * P2P_CELLS_PER_ROW cells per row, so that a sparse file cannot ask for N² memory. */
#define P2P_EP_FREE 4096
#define P2P_CELLS_PER_ROW 1024

/* One endpoint: a host and its device (the rank, for mpi), compared as a pair. */
struct ep {
	char *host, *dev;
};

static int ep_cmp(const void *a, const void *b)
{
	const struct ep *x = a, *y = b;
	int c = strcmp(x->host, y->host);

	return c ? c : strcmp(x->dev, y->dev);
}

/* Sort endpoints and drop (and free) duplicates; returns the new count. */
static size_t ep_sort_unique(struct ep *v, size_t n)
{
	size_t k = 0;

	if (n == 0)
		return 0;
	qsort(v, n, sizeof *v, ep_cmp);
	for (size_t i = 0; i < n; i++)
		if (k && !ep_cmp(&v[k - 1], &v[i])) {
			free(v[i].host);
			free(v[i].dev);
		} else {
			v[k++] = v[i];
		}
	return k;
}

static void ep_free(struct ep *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].host);
		free(v[i].dev);
	}
	free(v);
}

/* Endpoint list *eps (*neps of *cap) with both sides of row added; deduplicated as it grows
 * past *dedup_at, so that the list stays short. 0 or FP_ERUNTIME. */
static int ep_add(struct ep **eps, size_t *neps, size_t *cap, size_t *dedup_at, const struct p2p_csv_in *row)
{
	for (int side = 0; side < 2; side++) {
		if (*neps == *cap) {
			struct ep *q = realloc(*eps, sizeof **eps * (*cap = *cap * 2 + 64));
			if (!q)
				return FP_ERUNTIME;
			*eps = q;
		}
		struct ep *e = &(*eps)[(*neps)++];
		e->host = strdup(side ? row->dst_host : row->src_host);
		e->dev = strdup(side ? row->dst_dev : row->src_dev);
		if (!e->host || !e->dev)
			return FP_ERUNTIME;
	}
	if (*neps > *dedup_at) {
		*neps = ep_sort_unique(*eps, *neps);
		*dedup_at = 2 * *neps + (1 << 16);
	}
	return 0;
}

/* Pass 1: the path, its endpoints (sorted, unique), its sizes, its rows. 0, FP_EUSAGE,
 * FP_ERUNTIME (err said). */
static int p2p_scan(struct p2p_csv_reader *r, const char *path, struct matrix *m, struct ep **eps_out,
		    size_t *neps_out, long long *lat_size, long long *bw_size, size_t *rows, char *err)
{
	struct ep *eps = NULL;
	size_t neps = 0, cap = 0, dedup_at = 1 << 16;
	struct p2p_csv_in row;
	int rc;

	while ((rc = p2p_csv_next(r, &row, err)) > 0) {
		if (!path && !m->path[0]) {
			if (strlen(row.path) >= sizeof m->path) {
				snprintf(err, MATRIX_ERR_MAX, "%s:%d: path '%.100s…' is too long", r->r.file, row.line,
					 row.path);
				rc = FP_EUSAGE;
				break;
			}
			snprintf(m->path, sizeof m->path, "%s", row.path);
		}
		if (strcmp(row.path, path ? path : m->path))
			continue;
		if (!isnan(row.lat_us_min) && (*lat_size < 0 || row.size_B < *lat_size))
			*lat_size = row.size_B;
		if (!isnan(row.bw_GBps) && row.size_B > *bw_size)
			*bw_size = row.size_B;
		(*rows)++;
		if ((rc = ep_add(&eps, &neps, &cap, &dedup_at, &row))) {
			snprintf(err, MATRIX_ERR_MAX, "%s: out of memory", r->r.file);
			break;
		}
	}
	if (rc < 0) {
		ep_free(eps, neps);
		return rc;
	}
	*eps_out = eps;
	*neps_out = ep_sort_unique(eps, neps);
	return 0;
}

/* Names: the host, or host/dev for every endpoint when a host has several (one node, every
 * rank). The matrices, all missing. */
static int p2p_names(struct matrix *m, const struct ep *eps, size_t neps, size_t rows, const char *file,
		     char *err)
{
	int by_dev = 0;

	if (neps > P2P_EP_FREE && (double)neps * neps > (double)P2P_CELLS_PER_ROW * rows) {
		snprintf(err, MATRIX_ERR_MAX, "%s: %zu endpoints but only %zu rows for path '%s': too few to "
			 "fill a %zu x %zu matrix", file, neps, rows, m->path, neps, neps);
		return FP_EUSAGE;
	}
	for (size_t i = 1; i < neps; i++)
		if (!strcmp(eps[i].host, eps[i - 1].host))
			by_dev = 1;
	m->names = calloc(neps, sizeof *m->names);
	m->lat = malloc(sizeof *m->lat * neps * neps);
	m->bw = malloc(sizeof *m->bw * neps * neps);
	m->lat_hi = malloc(sizeof *m->lat_hi * neps * neps);
	if (!m->names || !m->lat || !m->bw || !m->lat_hi) {
		snprintf(err, MATRIX_ERR_MAX, "%s: out of memory for %zu endpoints", file, neps);
		return FP_ERUNTIME;
	}
	m->n = (int)neps;
	for (size_t i = 0; i < neps * neps; i++)
		m->lat[i] = m->bw[i] = m->lat_hi[i] = NAN;
	for (size_t i = 0; i < neps; i++) {
		size_t len = strlen(eps[i].host) + strlen(eps[i].dev) + 2;

		if (!(m->names[i] = malloc(len))) {
			snprintf(err, MATRIX_ERR_MAX, "%s: out of memory", file);
			return FP_ERUNTIME;
		}
		snprintf(m->names[i], len, by_dev ? "%s/%s" : "%s", eps[i].host, eps[i].dev);
	}
	return 0;
}

/* Pass 2: the cells of the rows that measured (status ok), by endpoint (bsearch). */
static int p2p_cells(struct p2p_csv_reader *r, struct matrix *m, const struct ep *eps, long long lat_size,
		     long long bw_size, char *err)
{
	size_t n = (size_t)m->n;
	struct p2p_csv_in row;
	int rc;

	while ((rc = p2p_csv_next(r, &row, err)) > 0) {
		const struct ep *hit[2];

		if (strcmp(row.path, m->path) || !row.ok)
			continue;
		for (int side = 0; side < 2; side++) {
			struct ep key = { (char *)(side ? row.dst_host : row.src_host),
					  (char *)(side ? row.dst_dev : row.src_dev) };

			if (!(hit[side] = bsearch(&key, eps, n, sizeof *eps, ep_cmp))) {
				snprintf(err, MATRIX_ERR_MAX, "%s:%d: the file changed while it was read", r->r.file,
					 row.line);
				return FP_EUSAGE;
			}
		}
		size_t c = (size_t)(hit[0] - eps) * n + (size_t)(hit[1] - eps);
		if (row.size_B == lat_size && !isnan(row.lat_us_min)) {
			m->lat[c] = (float)row.lat_us_min;
			m->lat_hi[c] = (float)row.lat_us_min_hi;
		}
		if (row.size_B == bw_size && !isnan(row.bw_GBps))
			m->bw[c] = (float)row.bw_GBps;
	}
	return rc;
}

static int read_p2p(const char *file, const char *path, int need_lat, struct matrix *m, char *err)
{
	struct p2p_csv_reader r;
	struct ep *eps = NULL;
	size_t neps = 0, rows = 0;
	long long lat_size = -1, bw_size = -1;
	int rc;

	memset(m, 0, sizeof *m);
	if (path && strlen(path) >= sizeof m->path) {
		snprintf(err, MATRIX_ERR_MAX, "--path '%.100s…' is too long", path);
		return FP_EUSAGE;
	}
	if ((rc = p2p_csv_open(&r, file, P2P_NEED, err)))
		return rc;
	if ((rc = p2p_scan(&r, path, m, &eps, &neps, &lat_size, &bw_size, &rows, err)))
		goto out;
	if (path)
		snprintf(m->path, sizeof m->path, "%s", path);
	if (!neps) {
		snprintf(err, MATRIX_ERR_MAX, "%s: no rows for path '%s'", file, m->path[0] ? m->path : "(any)");
		rc = FP_EUSAGE;
		goto out;
	}
	if ((rc = p2p_names(m, eps, neps, rows, file, err)) || (rc = p2p_csv_rewind(&r, err)) ||
	    (rc = p2p_cells(&r, m, eps, lat_size, bw_size, err)) || (rc = usable(m, file, need_lat, err)))
		goto out;
	if (bw_size < 0) {
		free(m->bw);
		m->bw = NULL;
	}
	size_t k = 0, cells = (size_t)m->n * (size_t)m->n;
	while (k < cells && isnan(m->lat_hi[k]))
		k++;
	if (k == cells) { /* one latency pass, or a file from before the column */
		free(m->lat_hi);
		m->lat_hi = NULL;
	}
out:
	ep_free(eps, neps);
	p2p_csv_close(&r);
	if (rc)
		matrix_free(m);
	return rc;
}

int matrix_read_p2p(const char *file, const char *path, struct matrix *m, char *err)
{
	return read_p2p(file, path, 1, m, err);
}

int matrix_read_p2p_bw(const char *file, const char *path, struct matrix *m, char *err)
{
	return read_p2p(file, path, 0, m, err);
}

int matrix_add_bw(struct matrix *m, const struct matrix *b)
{
	int *at = b->bw ? malloc(sizeof *at * ((size_t)b->n + 1)) : NULL;

	if (!b->bw)
		return 0;
	if (!at)
		return FP_ERUNTIME;
	if (!m->bw) {
		if (!(m->bw = malloc(sizeof *m->bw * ((size_t)m->n * (size_t)m->n + 1)))) {
			free(at);
			return FP_ERUNTIME;
		}
		for (size_t x = 0; x < (size_t)m->n * (size_t)m->n; x++)
			m->bw[x] = NAN;
	}
	for (int i = 0; i < b->n; i++) {
		at[i] = -1;
		for (int k = 0; k < m->n && at[i] < 0; k++)
			if (!strcmp(b->names[i], m->names[k]))
				at[i] = k;
	}
	for (int i = 0; i < b->n; i++)
		for (int j = 0; j < b->n; j++) {
			float v = b->bw[(size_t)i * b->n + j];

			if (at[i] >= 0 && at[j] >= 0 && !isnan(v))
				m->bw[(size_t)at[i] * m->n + at[j]] = v;
		}
	free(at);
	return 0;
}
