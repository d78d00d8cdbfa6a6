/* matrix.c — see matrix.h. */
#include "matrix.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "p2p_csv.h"

#define FAIL(...) do { snprintf(err, MATRIX_ERR_MAX, __VA_ARGS__); goto fail; } while (0)

/* Split one CSV record (RFC 4180; no embedded newlines in what we read) in place. Returns
 * the field count, at most max; fields beyond max are dropped. */
static int csv_split(char *line, char **fields, int max)
{
	int n = 0;
	char *p = line;

	line[strcspn(line, "\r\n")] = 0;
	for (;;) {
		char *start = p, *w = p;

		if (*p == '"') {
			start = w = ++p;
			while (*p && !(*p == '"' && p[1] != '"')) {
				if (*p == '"')
					p++;
				*w++ = *p++;
			}
			if (*p == '"')
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
	return n < max ? n : max;
}

/* A cell: empty = NAN; otherwise a finite non-negative number. Plain decimals ("15.234", what
 * fabprobe writes) take a fast path: a 4096-node matrix is 16.7 million of them. */
static int cell(const char *s, float *out)
{
	char *end;
	double v;
	const char *p = s;
	uint64_t ip = 0, fp = 0, scale = 1;

	if (!*s) {
		*out = NAN;
		return 0;
	}
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
		*out = (float)((double)ip + (double)fp / (double)scale);
		return 0;
	}
	errno = 0;
	v = strtod(s, &end);
	if (*end || errno || !isfinite(v) || v < 0)
		return -1;
	*out = (float)v;
	return 0;
}

static char *read_line(FILE *f, char **buf, size_t *cap)
{
	return getline(buf, cap, f) >= 0 ? *buf : NULL;
}

int matrix_read_square(const char *file, struct matrix *m, char *err)
{
	FILE *f = fopen(file, "r");
	char *buf = NULL, **fields = NULL;
	size_t cap = 0;
	int n, line = 1;

	memset(m, 0, sizeof *m);
	if (!f)
		FAIL("%s: %s", file, strerror(errno));
	if (!read_line(f, &buf, &cap))
		FAIL("%s: empty file", file);
	n = 1;
	for (char *p = buf; *p; p++)
		n += *p == ',';
	fields = malloc(sizeof *fields * (size_t)(n + 1));
	if (!fields)
		FAIL("%s: out of memory", file);
	n = csv_split(buf, fields, n + 1) - 1;
	if (n < 1 || strcmp(fields[0], "host"))
		FAIL("%s:1: expected a header 'host,<host names…>'", file);
	m->n = n;
	m->names = calloc((size_t)n, sizeof *m->names);
	m->lat = malloc(sizeof *m->lat * (size_t)n * n);
	if (!m->names || !m->lat)
		FAIL("%s: out of memory for a %d x %d matrix", file, n, n);
	for (int j = 0; j < n; j++)
		if (!(m->names[j] = strdup(fields[j + 1])) || !*fields[j + 1])
			FAIL("%s:1: column %d has no host name", file, j + 2);
	for (int i = 0; i < n; i++) {
		line++;
		if (!read_line(f, &buf, &cap))
			FAIL("%s:%d: expected %d rows, found %d", file, line, n, i);
		int k = csv_split(buf, fields, n + 1);
		if (k != n + 1)
			FAIL("%s:%d: %d cells, expected %d", file, line, k, n + 1);
		if (strcmp(fields[0], m->names[i]))
			FAIL("%s:%d: row '%s' where the header says '%s' (rows and columns must be in the same order)",
			     file, line, fields[0], m->names[i]);
		for (int j = 0; j < n; j++)
			if (cell(fields[j + 1], &m->lat[(size_t)i * n + j]))
				FAIL("%s:%d: column %d ('%s'): '%s' is not a non-negative number", file, line, j + 2,
				     m->names[j], fields[j + 1]);
	}
	while (read_line(f, &buf, &cap)) {
		line++;
		if (buf[strspn(buf, " \t\r\n")])
			FAIL("%s:%d: more rows than columns", file, line);
	}
	free(buf);
	free(fields);
	fclose(f);
	return 0;
fail:
	free(buf);
	free(fields);
	if (f)
		fclose(f);
	matrix_free(m);
	return FP_EUSAGE;
}

void matrix_free(struct matrix *m)
{
	for (int i = 0; m->names && i < m->n; i++)
		free(m->names[i]);
	free(m->names);
	free(m->lat);
	free(m->bw);
	memset(m, 0, sizeof *m);
}

/* ---------------------------------------------------------------- p2p.csv */

/* the columns read, by their p2p_csv.h index */
enum { C_PATH, C_SRC, C_DST, C_SDEV, C_DDEV, C_SIZE, C_LMIN, C_BW, C_STATUS, C_N };
static const int p2p_need[C_N] = { P2P_COL_PATH, P2P_COL_SRC_HOST, P2P_COL_DST_HOST, P2P_COL_SRC_DEV,
				   P2P_COL_DST_DEV, P2P_COL_SIZE, P2P_COL_LAT_MIN, P2P_COL_BW_GBPS,
				   P2P_COL_STATUS };

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}


/* Sort strings and drop (and free) duplicates; returns the new count. */
static size_t sort_unique(char **v, size_t n)
{
	size_t k = 0;

	qsort(v, n, sizeof *v, cmp_str);
	for (size_t i = 0; i < n; i++)
		if (k && !strcmp(v[k - 1], v[i]))
			free(v[i]);
		else
			v[k++] = v[i];
	return k;
}

/* the endpoint name of one side of a row: the host, or host/dev when a host has several */
static void ep_name(char *out, size_t len, char **f, int side, int by_dev)
{
	if (by_dev)
		snprintf(out, len, "%s/%s", f[side ? C_DST : C_SRC], f[side ? C_DDEV : C_SDEV]);
	else
		snprintf(out, len, "%s", f[side ? C_DST : C_SRC]);
}

int matrix_read_p2p(const char *file, const char *path, struct matrix *m, char *err)
{
	FILE *f = fopen(file, "r");
	char *buf = NULL, *fields[64], *col[C_N] = { 0 }, name[600];
	char **eps = NULL;
	size_t cap = 0, neps = 0, epcap = 0, dedup_at = 1 << 16;
	int idx[C_N], line = 1, by_dev = 0, nf;
	long long lat_size = -1, bw_size = -1;

	memset(m, 0, sizeof *m);
	if (!f)
		FAIL("%s: %s", file, strerror(errno));
	if (!read_line(f, &buf, &cap))
		FAIL("%s: empty file", file);
	nf = csv_split(buf, fields, 64);
	for (int c = 0; c < C_N; c++) {
		idx[c] = -1;
		for (int k = 0; k < nf; k++)
			if (!strcmp(fields[k], p2p_csv_cols[p2p_need[c]].name))
				idx[c] = k;
		if (idx[c] < 0)
			FAIL("%s:1: no column '%s': not a fabprobe p2p.csv", file, p2p_csv_cols[p2p_need[c]].name);
	}
	/* pass 1: the path, the endpoints, the sizes */
	while (read_line(f, &buf, &cap)) {
		line++;
		nf = csv_split(buf, fields, 64);
		for (int c = 0; c < C_N; c++) {
			if (idx[c] >= nf)
				FAIL("%s:%d: %d cells, expected at least %d", file, line, nf, idx[c] + 1);
			col[c] = fields[idx[c]];
		}
		if (!path && !m->path[0])
			snprintf(m->path, sizeof m->path, "%s", col[C_PATH]);
		if (strcmp(col[C_PATH], path ? path : m->path))
			continue;
		long long size = atoll(col[C_SIZE]);
		if (size <= 0)
			FAIL("%s:%d: size_B '%s' is not a positive number", file, line, col[C_SIZE]);
		if (*col[C_LMIN] && (lat_size < 0 || size < lat_size))
			lat_size = size;
		if (*col[C_BW] && size > bw_size)
			bw_size = size;
		for (int side = 0; side < 2; side++) {
			if (neps == epcap) {
				char **q = realloc(eps, sizeof *eps * (epcap = epcap * 2 + 64));
				if (!q)
					FAIL("%s: out of memory", file);
				eps = q;
			}
			snprintf(name, sizeof name, "%s\t%s", col[side ? C_DST : C_SRC], col[side ? C_DDEV : C_SDEV]);
			if (!(eps[neps++] = strdup(name)))
				FAIL("%s: out of memory", file);
		}
		if (neps > dedup_at) { /* keep the list short: deduplicate as it grows */
			neps = sort_unique(eps, neps);
			dedup_at = 2 * neps + (1 << 16);
		}
	}
	if (path)
		snprintf(m->path, sizeof m->path, "%s", path);
	if (!neps)
		FAIL("%s: no rows for path '%s'", file, m->path[0] ? m->path : "(any)");
	neps = sort_unique(eps, neps);
	/* a host with several endpoints (one node, every rank): name them host/dev */
	for (size_t i = 1; i < neps; i++)
		if (!strncmp(eps[i], eps[i - 1], strcspn(eps[i], "\t") + 1))
			by_dev = 1;
	m->n = (int)neps;
	m->names = calloc(neps, sizeof *m->names);
	m->lat = malloc(sizeof *m->lat * neps * neps);
	m->bw = malloc(sizeof *m->bw * neps * neps);
	if (!m->names || !m->lat || !m->bw)
		FAIL("%s: out of memory for %zu endpoints", file, neps);
	for (size_t i = 0; i < neps * neps; i++)
		m->lat[i] = m->bw[i] = NAN;
	for (size_t i = 0; i < neps; i++) {
		char *tab = strchr(eps[i], '\t');

		*tab = by_dev ? '/' : 0;
		m->names[i] = eps[i];
		eps[i] = NULL;
	}
	/* pass 2: the cells (names are sorted: bsearch) */
	rewind(f);
	read_line(f, &buf, &cap);
	line = 1;
	while (read_line(f, &buf, &cap)) {
		int ij[2];
		char *key = name;

		line++;
		nf = csv_split(buf, fields, 64);
		for (int c = 0; c < C_N; c++)
			col[c] = fields[idx[c]];
		if (strcmp(col[C_PATH], m->path) || strcmp(col[C_STATUS], "ok"))
			continue;
		for (int side = 0; side < 2; side++) {
			ep_name(name, sizeof name, col, side, by_dev);
			char **hit = bsearch(&key, m->names, neps, sizeof *m->names, cmp_str);
			ij[side] = (int)(hit - m->names);
		}
		size_t c = (size_t)ij[0] * neps + (size_t)ij[1];
		long long size = atoll(col[C_SIZE]);
		float v;
		if (size == lat_size && *col[C_LMIN]) {
			if (cell(col[C_LMIN], &v))
				FAIL("%s:%d: latency '%s' is not a non-negative number", file, line, col[C_LMIN]);
			m->lat[c] = v;
		}
		if (size == bw_size && *col[C_BW]) {
			if (cell(col[C_BW], &v))
				FAIL("%s:%d: bandwidth '%s' is not a non-negative number", file, line, col[C_BW]);
			m->bw[c] = v;
		}
	}
	if (bw_size < 0) {
		free(m->bw);
		m->bw = NULL;
	}
	free(eps);
	free(buf);
	fclose(f);
	return 0;
fail:
	for (size_t i = 0; eps && i < neps; i++)
		free(eps[i]);
	free(eps);
	free(buf);
	if (f)
		fclose(f);
	matrix_free(m);
	return FP_EUSAGE;
}
