/* matrix_p2p.c — the matrices of one path read from a p2p.csv (matrix.h): the endpoints found
 * in a first pass, the cells filled in a second, each through the one p2p.csv row reader. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "matrix.h"
#include "matrix_int.h"
#include "p2p_csv.h"

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
static int p2p_scan(struct p2p_csv_reader *r, const char *path, struct p2p_matrices *m, struct ep **eps_out,
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
static int p2p_names(struct p2p_matrices *m, const struct ep *eps, size_t neps, size_t rows, const char *file,
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
	m->lat_min = malloc(sizeof *m->lat_min * neps * neps);
	m->bw = malloc(sizeof *m->bw * neps * neps);
	m->lat_hi = malloc(sizeof *m->lat_hi * neps * neps);
	if (!m->names || !m->lat_min || !m->bw || !m->lat_hi) {
		snprintf(err, MATRIX_ERR_MAX, "%s: out of memory for %zu endpoints", file, neps);
		return FP_ERUNTIME;
	}
	m->n = (int)neps;
	for (size_t i = 0; i < neps * neps; i++)
		m->lat_min[i] = m->bw[i] = m->lat_hi[i] = NAN;
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
static int p2p_cells(struct p2p_csv_reader *r, struct p2p_matrices *m, const struct ep *eps, long long lat_size,
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
			m->lat_min[c] = (float)row.lat_us_min;
			m->lat_hi[c] = (float)row.lat_us_min_hi;
		}
		if (row.size_B == bw_size && !isnan(row.bw_GBps))
			m->bw[c] = (float)row.bw_GBps;
	}
	return rc;
}

static int read_p2p(const char *file, const char *path, int need_lat, struct p2p_matrices *m, char *err)
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
	    (rc = p2p_cells(&r, m, eps, lat_size, bw_size, err)) || (rc = matrix_usable(m, file, need_lat, err)))
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

int matrix_read_p2p(const char *file, const char *path, struct p2p_matrices *m, char *err)
{
	return read_p2p(file, path, 1, m, err);
}

int matrix_read_p2p_bw(const char *file, const char *path, struct p2p_matrices *m, char *err)
{
	return read_p2p(file, path, 0, m, err);
}

int matrix_add_bw(struct p2p_matrices *m, const struct p2p_matrices *b)
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
