/* rundir.c — see rundir.h. */
#include "core/results.h"
#include "rundir.h"

#include <ctype.h>
#include <stddef.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "coll_csv.h"
#include "csv_read.h"
#include "inv_csv.h"
#include "map_csv.h"
#include "p2p_csv.h"
#include "strtab.h"

/* ---------------------------------------------------------------- interned strings */

int rundir_find(const struct rundir *rd, const char *s)
{
	return strtab_find(&rd->tab, s);
}

int rundir_intern(struct rundir *rd, const char *s)
{
	return strtab_intern(&rd->tab, s);
}

/* ---------------------------------------------------------------- reading cells */

struct keyline {
	int key, line;  /* a row's key (an interned string) and where it was */
};

struct rd_reader {
	struct rundir *rd;
	struct csv_read r;
	char *err;
	int oom;
	struct keyline *keys; /* rows that must be unique (a host in topology.csv...) */
	int nkeys, kcap;
};

/* Note the current row's key, given as text (fields joined by tabs). */
static void key_note_text(struct rd_reader *x, const char *key)
{
	if (x->nkeys == x->kcap) {
		struct keyline *q = realloc(x->keys, sizeof *q * (size_t)(x->kcap = x->kcap * 2 + 64));

		if (!q) {
			x->oom = 1;
			return;
		}
		x->keys = q;
	}
	int id = rundir_intern(x->rd, key);
	x->oom |= id < 0;
	x->keys[x->nkeys++] = (struct keyline){ id, x->r.line };
}

/* Note the current row's key: its fields (n of them) as written, joined by tabs. */
static void key_note(struct rd_reader *x, const int *cols, int n)
{
	char key[1024] = "";
	size_t len = 0;

	for (int i = 0; i < n && len < sizeof key; i++)
		len += (size_t)snprintf(key + len, sizeof key - len, "%s%s", i ? "\t" : "", csv_read_get(&x->r, cols[i]));
	key_note_text(x, key);
}

static int cmp_keyline(const void *a, const void *b)
{
	const struct keyline *p = a, *q = b;

	return p->key != q->key ? (p->key < q->key ? -1 : 1) : p->line - q->line;
}

/* A key seen twice is refused: which row would a comparison take? */
static int keys_unique(struct rd_reader *x)
{
	if (x->nkeys > 1)
		qsort(x->keys, (size_t)x->nkeys, sizeof *x->keys, cmp_keyline);
	for (int i = 1; i < x->nkeys; i++)
		if (x->keys[i].key == x->keys[i - 1].key) {
			char shown[200];

			snprintf(shown, sizeof shown, "%s", x->rd->tab.str[x->keys[i].key]);
			for (char *t = shown; (t = strchr(t, '\t'));)
				*t = ' ';
			snprintf(x->err, RUNDIR_ERR_MAX, "%s:%d: '%s' is listed twice (first on line %d)", x->r.file,
				 x->keys[i].line, shown, x->keys[i - 1].line);
			return FP_EUSAGE;
		}
	return 0;
}

static int cell_str(struct rd_reader *x, int col)
{
	int id = rundir_intern(x->rd, csv_read_get(&x->r, col));

	x->oom |= id < 0;
	return id < 0 ? 0 : id;
}

/* A number, or NAN for an empty cell; junk is an error naming the file, line and column. */
static int cell_num(struct rd_reader *x, int col, double *out)
{
	const char *s = csv_read_get(&x->r, col);
	char *end;

	if (!*s) {
		*out = NAN;
		return 0;
	}
	errno = 0;
	*out = strtod(s, &end);
	if (*end || errno || !isfinite(*out)) {
		snprintf(x->err, RUNDIR_ERR_MAX, "%s:%d: column '%s': '%.60s' is not a number", x->r.file,
			 x->r.line, x->r.head[col], s);
		return FP_EUSAGE;
	}
	return 0;
}

/* A count: empty (-1), or a whole number in [lo, hi]. */
static int cell_count(struct rd_reader *x, int col, double lo, double hi, long long *out)
{
	double v;

	if (cell_num(x, col, &v))
		return FP_EUSAGE;
	if (isnan(v)) {
		*out = -1;
		return 0;
	}
	if (!(v >= lo && v <= hi && v == floor(v))) {
		snprintf(x->err, RUNDIR_ERR_MAX, "%s:%d: column '%s': '%.60s' is not a whole number in %.0f..%.0f",
			 x->r.file, x->r.line, x->r.head[col], csv_read_get(&x->r, col), lo, hi);
		return FP_EUSAGE;
	}
	*out = (long long)v;
	return 0;
}

/* A measured figure: empty (NAN), or a number in [0, 1e30] (rates, times, sizes we keep as
 * float). */
static int cell_fig(struct rd_reader *x, int col, double *out)
{
	if (cell_num(x, col, out))
		return FP_EUSAGE;
	if (isnan(*out) || (*out >= 0 && *out <= 1e30))
		return 0;
	snprintf(x->err, RUNDIR_ERR_MAX, "%s:%d: column '%s': '%.60s' is not a figure in 0..1e30", x->r.file, x->r.line,
		 x->r.head[col], csv_read_get(&x->r, col));
	return FP_EUSAGE;
}

#define TABLE_COLS_MAX 64 /* wider than every writer's table */

/* Find the columns of a writer's table (cols, ncols) that a reader uses (used[0..n), their
 * indices in cols) into idx, or say which of the first required is missing. */
static int table_columns(struct rd_reader *x, const struct csv_col *cols, int ncols, const int *used, int *idx,
			 int n, int required)
{
	int at[TABLE_COLS_MAX];

	if (ncols > TABLE_COLS_MAX) {
		snprintf(x->err, RUNDIR_ERR_MAX, "%s: internal: a table of %d columns", x->r.file, ncols);
		return FP_EUSAGE;
	}
	csv_read_cols(&x->r, cols, ncols, at);
	for (int i = 0; i < n; i++)
		if ((idx[i] = at[used[i]]) < 0 && i < required) {
			snprintf(x->err, RUNDIR_ERR_MAX, "%s:1: no column '%s': not a file fabprobe wrote",
				 x->r.file, cols[used[i]].name);
			return FP_EUSAGE;
		}
	return 0;
}

/* Whether path is there: absent only when no entry of that name exists. A link to nothing, a
 * loop of links or an unreadable directory is an error (it was taken for absence, and a
 * comparison without the baseline's pairs passed). 0, or FP_EUSAGE with err. */
static int rd_present(const char *path, int *present, char *err)
{
	struct stat st;

	*present = 0;
	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, RUNDIR_ERR_MAX, "%s: %s", path, strerror(errno));
		return FP_EUSAGE;
	}
	*present = 1;
	if (stat(path, &st)) {
		snprintf(err, RUNDIR_ERR_MAX, "%s: a symbolic link that leads to nothing readable (%s)", path,
			 strerror(errno));
		return FP_EUSAGE;
	}
	return 0;
}

static int open_file(struct rd_reader *x, const char *dir, const char *name, char *path, size_t plen, int *present)
{
	int rc;

	snprintf(path, plen, "%s/%s", dir, name);
	if ((rc = rd_present(path, present, x->err)) || !*present)
		return rc;
	return csv_read_open_in(&x->r, path, RESULTS_IN_NOLINK, x->err);
}

/* ---------------------------------------------------------------- p2p.csv and retests */

/* One row as the judges keep it: its strings interned, its figures as floats (NAN unless the
 * row measured), no retests yet. 0 or FP_ERUNTIME. */
static int p2p_row(struct rundir *rd, const struct p2p_csv_in *in, struct rd_p2p *p)
{
	const char *s[7] = { in->path, in->kind, in->src_host, in->dst_host, in->status, in->src_dev, in->dst_dev };
	int id[7];

	for (int i = 0; i < 7; i++)
		if ((id[i] = rundir_intern(rd, s[i])) < 0)
			return FP_ERUNTIME;
	*p = (struct rd_p2p){ .path = id[0], .kind = id[1], .src = id[2], .dst = id[3], .status = id[4],
			      .src_dev = id[5], .dst_dev = id[6],
			      .size = in->size_B, .line_rate = (float)in->line_rate_Gbps, .ok = in->ok,
			      .line = in->line };
	p->v[RD_LAT_MIN] = (float)in->lat_us_min;
	p->v[RD_LAT_P50] = (float)in->lat_us_p50;
	p->v[RD_BW] = (float)in->bw_GBps;
	for (int m = 0; m < RD_NMETRIC; m++) {
		if (!p->ok)
			p->v[m] = NAN;
		p->retest[m] = NAN;
	}
	return 0;
}

/* the columns the judges need besides those every p2p.csv reader does (p2p_csv_open) */
#define RD_P2P_NEED                                                                                 \
	(P2P_CSV_NEED(P2P_COL_KIND) | P2P_CSV_NEED(P2P_COL_LAT_MIN) | P2P_CSV_NEED(P2P_COL_LAT_P50) | \
	 P2P_CSV_NEED(P2P_COL_BW_GBPS))

const char *rundir_metric_name(int metric)
{
	static const int col[RD_NMETRIC] = { [RD_LAT_MIN] = P2P_COL_LAT_MIN, [RD_LAT_P50] = P2P_COL_LAT_P50,
					     [RD_BW] = P2P_COL_BW_GBPS };

	return metric >= 0 && metric < RD_NMETRIC ? p2p_csv_cols[col[metric]].name : "?";
}

/* Read dir/name (p2p.csv, or a file of retests: the same columns), or text (len bytes) as
 * that file, into *rows (grown), *n rows so far; *present says whether there was any. 0,
 * FP_EUSAGE or FP_ERUNTIME (err). */
static int p2p_part(struct rundir *rd, const char *name, const char *text, size_t len, struct rd_p2p **rows,
		    size_t *n, int *present, char *err)
{
	struct p2p_csv_reader r;
	struct p2p_csv_in in;
	char path[4200];
	size_t cap = *n;
	int rc;

	snprintf(path, sizeof path, "%s/%s", rd->dir, name);
	if (text)
		*present = 1;
	else if ((rc = rd_present(path, present, err)) || !*present)
		return rc;
	if ((rc = text ? p2p_csv_open_mem(&r, path, text, len, RD_P2P_NEED, err) : p2p_csv_open(&r, path, RD_P2P_NEED, err)))
		return rc;
	while ((rc = p2p_csv_next(&r, &in, err)) == 1) {
		if (*n == cap) {
			struct rd_p2p *q = realloc(*rows, sizeof *q * (cap = cap * 2 + 1024));

			if (!q) {
				rc = FP_ERUNTIME;
				break;
			}
			*rows = q;
		}
		if ((rc = p2p_row(rd, &in, &(*rows)[*n])))
			break;
		(*rows)[(*n)++].file = name;
	}
	if (rc == FP_ERUNTIME)
		snprintf(err, RUNDIR_ERR_MAX, "%.500s: out of memory", path);
	p2p_csv_close(&r);
	return rc;
}

static int cmp_key(const struct rundir *rd, const struct rd_p2p *a, const struct rd_p2p *b)
{
	const int *r = rd->rank;

	if (a->path != b->path)
		return r[a->path] < r[b->path] ? -1 : 1;
	if (a->src != b->src)
		return r[a->src] < r[b->src] ? -1 : 1;
	if (a->dst != b->dst)
		return r[a->dst] < r[b->dst] ? -1 : 1;
	return a->size < b->size ? -1 : a->size > b->size;
}

/* The sort of the rows: by key (cmp_key), then by endpoint (several ranks of one host share a
 * key: matched in the order of their devices), then by file (p2p.csv before p2p_bw.csv) and
 * line (a row repeated: its first first). */
static int cmp_p2p(const void *a, const void *b, void *rd)
{
	const struct rd_p2p *x = a, *y = b;
	const int *r = ((const struct rundir *)rd)->rank;
	int c = cmp_key(rd, x, y);

	if (!c && x->src_dev != y->src_dev)
		c = r[x->src_dev] < r[y->src_dev] ? -1 : 1;
	if (!c && x->dst_dev != y->dst_dev)
		c = r[x->dst_dev] < r[y->dst_dev] ? -1 : 1;
	if (!c && x->file != y->file)
		c = strcmp(x->file, y->file);
	return c ? c : x->line - y->line;
}

/* A row given twice in p2p.csv and p2p_bw.csv (path, both endpoints, size) is refused, as every reader here
 * refuses a repeated key: which of the two would a comparison take? (The second was left over
 * as "gone".) The rows are sorted. 0, or FP_EUSAGE with err. */
static int p2p_unique(const struct rundir *rd, char *err)
{
	for (size_t i = 1; i < rd->np2p; i++) {
		const struct rd_p2p *x = &rd->p2p[i - 1], *y = &rd->p2p[i];
		char *const *s = rd->tab.str;

		if (cmp_key(rd, x, y) || x->src_dev != y->src_dev || x->dst_dev != y->dst_dev)
			continue;
		snprintf(err, RUNDIR_ERR_MAX, "%.300s/%s:%d: path %.40s, %.60s%s%.30s -> %.60s%s%.30s, %lld B is "
			 "listed twice (first on line %d%s%s)", rd->dir, y->file, y->line, s[y->path], s[y->src],
			 *s[y->src_dev] ? "/" : "", s[y->src_dev], s[y->dst], *s[y->dst_dev] ? "/" : "", s[y->dst_dev],
			 y->size, x->line, x->file == y->file ? "" : " of ", x->file == y->file ? "" : x->file);
		return FP_EUSAGE;
	}
	return 0;
}

static int cmp_id(const void *a, const void *b, void *rd)
{
	const struct rundir *r = rd;

	return strcmp(r->tab.str[*(const int *)a], r->tab.str[*(const int *)b]);
}

static int ranks_make(struct rundir *rd)
{
	int *ids = malloc(sizeof *ids * (size_t)rd->tab.n);

	free(rd->rank);
	rd->rank = malloc(sizeof *rd->rank * (size_t)rd->tab.n);
	if (!ids || !rd->rank) {
		free(ids);
		return FP_ERUNTIME;
	}
	for (int i = 0; i < rd->tab.n; i++)
		ids[i] = i;
	qsort_r(ids, (size_t)rd->tab.n, sizeof *ids, cmp_id, rd);
	for (int i = 0; i < rd->tab.n; i++)
		rd->rank[ids[i]] = i;
	free(ids);
	return 0;
}

static struct rd_p2p *p2p_lookup(const struct rundir *rd, const struct rd_p2p *key)
{
	size_t lo = 0, hi = rd->np2p;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_key(rd, &rd->p2p[mid], key);

		if (c == 0)
			return &rd->p2p[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Fold the retest rows into their first measurement: the best of all retests per metric (from
 * scratch: a model indexed again after more retests folds them all once). */
static void retests_fold(struct rundir *rd, const struct rd_p2p *t, size_t nt)
{
	for (size_t i = 0; i < rd->np2p; i++)
		for (int m = 0; m < RD_NMETRIC; m++)
			rd->p2p[i].retest[m] = NAN;
	for (size_t i = 0; i < nt; i++) {
		struct rd_p2p *hit = p2p_lookup(rd, &t[i]);

		if (!hit)
			continue;
		for (int m = 0; m < RD_NMETRIC; m++) {
			float v = t[i].v[m], *best = &hit->retest[m];

			if (isnan(v))
				continue;
			if (isnan(*best) || (m == RD_BW ? v > *best : v < *best))
				*best = v;
		}
	}
}

/* ---------------------------------------------------------------- the other files */

/* Tier k's name from one of its group labels (emit_group_name writes "leaf03", "spine00",
 * "tier3-07"): the label less its group number (the trailing digits) and a '-' before them, so
 * "tier3-07" is "tier3"; at most 15 bytes; "tier<k>" when nothing is left. */
static void tier_name(const char *label, int k, char out[16])
{
	size_t len = strlen(label);

	while (len && label[len - 1] >= '0' && label[len - 1] <= '9')
		len--;
	if (len && label[len - 1] == '-')
		len--;
	if (len > 15)
		len = 15;
	if (len)
		snprintf(out, 16, "%.*s", (int)len, label);
	else
		snprintf(out, 16, "tier%d", k);
}

static int topo_read(struct rd_reader *x)
{
	struct rd_topo *t = &x->rd->topo;
	int tiers[RUNDIR_TIERS_MAX], hc = csv_read_col(&x->r, map_topo_cols[MAP_TOPO_HOST].name), rc, cap = 0;

	for (t->ntiers = 0; t->ntiers < RUNDIR_TIERS_MAX; t->ntiers++) {
		char name[16];

		snprintf(name, sizeof name, MAP_CSV_TIER_FMT, t->ntiers);
		if ((tiers[t->ntiers] = csv_read_col(&x->r, name)) < 0)
			break;
	}
	if (hc < 0 || t->ntiers == 0) {
		snprintf(x->err, RUNDIR_ERR_MAX, "%s:1: expected columns host, tier0[, tier1...]", x->r.file);
		return FP_EUSAGE;
	}
	while ((rc = csv_read_next(&x->r, x->err)) == 1) {
		if (t->n == cap) {
			int *h = realloc(t->host, sizeof *h * (size_t)(cap = cap * 2 + 64));
			int *g = h ? realloc(t->group, sizeof *g * (size_t)cap * RUNDIR_TIERS_MAX) : NULL;

			if (h)
				t->host = h;
			if (!g)
				return FP_ERUNTIME;
			t->group = g;
		}
		t->host[t->n] = cell_str(x, hc);
		for (int k = 0; k < t->ntiers; k++)
			if (!(t->group[(size_t)t->n * RUNDIR_TIERS_MAX + k] = cell_str(x, tiers[k])) || !t->host[t->n]) {
				snprintf(x->err, RUNDIR_ERR_MAX, "%s:%d: a host or its tier%d group is empty", x->r.file,
					 x->r.line, k);
				return FP_EUSAGE;
			}
		key_note(x, &hc, 1);
		t->n++;
	}
	if (rc)
		return rc;
	/* [i * TIERS_MAX + k] while reading, [k * n + i] from here on */
	int *g = malloc(sizeof *g * (size_t)(t->n ? t->n : 1) * (size_t)t->ntiers);
	if (!g)
		return FP_ERUNTIME;
	for (int i = 0; i < t->n; i++)
		for (int k = 0; k < t->ntiers; k++)
			g[(size_t)k * t->n + i] = t->group[(size_t)i * RUNDIR_TIERS_MAX + k];
	free(t->group);
	t->group = g;
	for (int k = 0; k < t->ntiers; k++)
		tier_name(t->n ? x->rd->tab.str[g[(size_t)k * t->n]] : "", k, t->tier_name[k]);
	return 0;
}

/* the columns coll_read reads, in its order; all but the last two are required (root, path:
 * files of older versions have no path) */
static const int coll_used[] = { COLL_COL_BACKEND, COLL_COL_OP, COLL_COL_DTYPE, COLL_COL_REDOP, COLL_COL_STATUS,
				 COLL_COL_SIZE, COLL_COL_IN_PLACE, COLL_COL_NRANKS, COLL_COL_BUSBW, COLL_COL_WRONG,
				 COLL_COL_ROOT, COLL_COL_PATH };

static int coll_read(struct rd_reader *x)
{
	struct rundir *rd = x->rd;
	int c[12], rc, cap = rd->ncoll; /* rows add to those given before (rundir_add_text) */

	if (table_columns(x, coll_csv_cols, COLL_NCOLS, coll_used, c, 12, 10))
		return FP_EUSAGE;
	while ((rc = csv_read_next(&x->r, x->err)) == 1) {
		struct rd_coll *q;
		double v[5];

		if (rd->ncoll == cap) {
			if (!(q = realloc(rd->coll, sizeof *q * (size_t)(cap = cap * 2 + 64))))
				return FP_ERUNTIME;
			rd->coll = q;
		}
		long long size, in_place, nranks, wrong;

		if (cell_count(x, c[5], 1, 1e15, &size) || cell_count(x, c[6], 0, 1, &in_place) ||
		    cell_count(x, c[7], 1, 1e8, &nranks) || cell_fig(x, c[8], &v[3]) || cell_count(x, c[9], 0, 1e18, &wrong))
			return FP_EUSAGE;
		if (size < 0 || in_place < 0) {
			snprintf(x->err, RUNDIR_ERR_MAX, "%s:%d: no size_B or in_place", x->r.file, x->r.line);
			return FP_EUSAGE;
		}
		q = &rd->coll[rd->ncoll++];
		*q = (struct rd_coll){ .backend = cell_str(x, c[0]), .op = cell_str(x, c[1]), .dtype = cell_str(x, c[2]),
				       .redop = cell_str(x, c[3]), .status = cell_str(x, c[4]), .size = size,
				       .in_place = (int)in_place, .nranks = (int)nranks, .busbw = v[3], .wrong = wrong,
				       .root = cell_str(x, c[10]), .path = cell_str(x, c[11]) };
		if (strcmp(csv_read_get(&x->r, c[4]), "ok"))
			q->busbw = NAN;
		/* the key as the row is matched: its strings, and its numbers as read ("01" and "1"
		 * are one in_place, 1e3 and 1000 one size: two such rows were both kept) */
		char key[1024];
		const char *path = csv_read_get(&x->r, c[11]); /* a path, when there is one */

		snprintf(key, sizeof key, "%.150s\t%.150s\t%.150s\t%.150s\t%lld\t%lld\t%.150s%s%.150s",
			 csv_read_get(&x->r, c[0]), csv_read_get(&x->r, c[1]), csv_read_get(&x->r, c[2]),
			 csv_read_get(&x->r, c[3]), size, in_place, csv_read_get(&x->r, c[10]), *path ? "\t" : "", path);
		key_note_text(x, key);
	}
	return rc;
}

/* the columns nodes_read reads, in its order; the first is required */
static const int node_used[] = { INV_CSV_NODE_HOST, INV_CSV_NODE_GPUS, INV_CSV_NODE_NICS, INV_CSV_NODE_KERNEL,
				 INV_CSV_NODE_MPI_VERSION, INV_CSV_NODE_CPU_MODEL };

static int nodes_read(struct rd_reader *x)
{
	struct rundir *rd = x->rd;
	int c[6], rc, cap = 0;

	if (table_columns(x, inv_csv_node_cols, INV_CSV_NODE_NCOLS, node_used, c, 6, 1))
		return FP_EUSAGE;
	while ((rc = csv_read_next(&x->r, x->err)) == 1) {
		struct rd_node *q;

		if (rd->nnode == cap) {
			if (!(q = realloc(rd->node, sizeof *q * (size_t)(cap = cap * 2 + 64))))
				return FP_ERUNTIME;
			rd->node = q;
		}
		long long g, n;

		if (cell_count(x, c[1], 0, 1e6, &g) || cell_count(x, c[2], 0, 1e6, &n))
			return FP_EUSAGE;
		key_note(x, c, 1);
		rd->node[rd->nnode++] = (struct rd_node){ .host = cell_str(x, c[0]), .kernel = cell_str(x, c[3]),
							  .mpi = cell_str(x, c[4]), .cpu = cell_str(x, c[5]),
							  .gpus = g, .nics = n };
	}
	return rc;
}

/* the columns nics_read reads, in its order; the first six are required */
static const int nic_used[] = { INV_CSV_NIC_HOST, INV_CSV_NIC_DEVICE, INV_CSV_NIC_PORT, INV_CSV_NIC_NETDEV,
				INV_CSV_NIC_KIND, INV_CSV_NIC_STATE, INV_CSV_NIC_VIRTUAL, INV_CSV_NIC_FW_VER,
				INV_CSV_NIC_RATE, INV_CSV_NIC_WIDTH, INV_CSV_NIC_MTU };

static int nics_read(struct rd_reader *x)
{
	struct rundir *rd = x->rd;
	int c[11], rc, cap = 0;

	if (table_columns(x, inv_csv_nic_cols, INV_CSV_NIC_NCOLS, nic_used, c, 11, 6))
		return FP_EUSAGE;
	while ((rc = csv_read_next(&x->r, x->err)) == 1) {
		struct rd_nic *q;
		char name[256];
		const char *dev = csv_read_get(&x->r, c[1]);

		if (rd->nnic == cap) {
			if (!(q = realloc(rd->nic, sizeof *q * (size_t)(cap = cap * 2 + 64))))
				return FP_ERUNTIME;
			rd->nic = q;
		}
		if (*dev)
			snprintf(name, sizeof name, "%.120s:%.60s", dev, csv_read_get(&x->r, c[2]));
		else
			snprintf(name, sizeof name, "%.200s", csv_read_get(&x->r, c[3]));
		q = &rd->nic[rd->nnic++];
		int k[3] = { c[0], c[1], c[2] }; /* host, device, port: netdev when there is no device */
		if (!*dev)
			k[1] = k[2] = c[3];
		key_note(x, k, 3);
		*q = (struct rd_nic){ .host = cell_str(x, c[0]), .name = rundir_intern(rd, name), .kind = cell_str(x, c[4]),
				      .fw = cell_str(x, c[7]), .up = !strcmp(csv_read_get(&x->r, c[5]), "up"),
				      .is_virtual = !strcmp(csv_read_get(&x->r, c[6]), "1") };
		x->oom |= q->name < 0;
		if (cell_fig(x, c[8], &q->rate) || cell_fig(x, c[9], &q->width) || cell_fig(x, c[10], &q->mtu))
			return FP_EUSAGE;
	}
	return rc;
}

/* ---------------------------------------------------------------- loading */

/* Read dir/name, or text (len bytes) as that file, with fn; *present says whether there was one. */
static int part(struct rundir *rd, char *err, const char *name, const char *text, size_t len,
		int (*fn)(struct rd_reader *), int *present)
{
	struct rd_reader x = { .rd = rd, .err = err };
	char path[4200];
	int rc;

	if (text) {
		snprintf(path, sizeof path, "%s/%s", rd->dir, name);
		*present = 1;
		rc = csv_read_open_mem(&x.r, path, text, len, err);
	} else {
		rc = open_file(&x, rd->dir, name, path, sizeof path, present);
	}
	if (rc || !*present)
		return rc;
	rc = fn(&x);
	if (rc == 0 && !x.oom)
		rc = keys_unique(&x);
	free(x.keys);
	if (x.oom || rc == FP_ERUNTIME) {
		snprintf(err, RUNDIR_ERR_MAX, "%.500s: out of memory", path);
		rc = FP_ERUNTIME;
	}
	csv_read_close(&x.r);
	return rc;
}

static int topo_index(struct rundir *rd)
{
	free(rd->topo_of);
	if (!(rd->topo_of = malloc(sizeof *rd->topo_of * (size_t)rd->tab.n)))
		return FP_ERUNTIME;
	for (int i = 0; i < rd->tab.n; i++)
		rd->topo_of[i] = -1;
	for (int i = 0; i < rd->topo.n; i++)
		rd->topo_of[rd->topo.host[i]] = i;
	return 0;
}

int rundir_index(struct rundir *rd, char *err)
{
	if (ranks_make(rd))
		goto oom;
	if (rd->np2p) /* no rows: no array (qsort must not be given NULL) */
		qsort_r(rd->p2p, rd->np2p, sizeof *rd->p2p, cmp_p2p, rd);
	retests_fold(rd, rd->rt, rd->nrt);
	rd->nretest = (int)rd->nrt;
	if (topo_index(rd))
		goto oom;
	return p2p_unique(rd, err);
oom:
	snprintf(err, RUNDIR_ERR_MAX, "%.600s: out of memory", rd->dir);
	return FP_ERUNTIME;
}

int rundir_load_topology(struct rundir *rd, const char *dir, const char *name, char *err)
{
	char saved[sizeof rd->dir];
	int rc;

	free(rd->topo.host);
	free(rd->topo.group);
	memset(&rd->topo, 0, sizeof rd->topo);
	memcpy(saved, rd->dir, sizeof saved);
	snprintf(rd->dir, sizeof rd->dir, "%s", dir);
	rc = part(rd, err, name ? name : "topology.csv", NULL, 0, topo_read, &rd->has_topo);
	memcpy(rd->dir, saved, sizeof saved);
	if (rc == 0 && (ranks_make(rd) || topo_index(rd)))
		rc = FP_ERUNTIME;
	return rc;
}

int rundir_set_topology(struct rundir *rd, int n, const char *const *hosts, int ntiers, const char *const *labels)
{
	struct rd_topo t = { .n = n, .ntiers = ntiers };

	if (n < 0 || ntiers < 1 || ntiers > RUNDIR_TIERS_MAX)
		return FP_EUSAGE;
	t.host = malloc(sizeof *t.host * (size_t)(n ? n : 1));
	t.group = malloc(sizeof *t.group * (size_t)(n ? n : 1) * (size_t)ntiers);
	if (!t.host || !t.group)
		goto oom;
	for (int i = 0; i < n; i++)
		if ((t.host[i] = rundir_intern(rd, hosts[i])) < 0)
			goto oom;
	for (size_t x = 0; x < (size_t)n * (size_t)ntiers; x++)
		if ((t.group[x] = rundir_intern(rd, labels[x])) < 0)
			goto oom;
	for (int k = 0; k < ntiers; k++)
		tier_name(n ? labels[(size_t)k * n] : "", k, t.tier_name[k]);
	free(rd->topo.host);
	free(rd->topo.group);
	rd->topo = t;
	rd->has_topo = 1;
	return ranks_make(rd) || topo_index(rd) ? FP_ERUNTIME : 0;
oom:
	free(t.host);
	free(t.group);
	return FP_ERUNTIME;
}

/* The files of a results directory the model is made of, in the order they are read: the first
 * measurements (p2p.csv, then a planned run's bandwidth), the retests, the map and the rest.
 * fn NULL: p2p rows; retest: into the retest rows. has: the flag its presence sets (or -1). */
static const struct rd_file {
	const char *name;
	unsigned bit;
	int (*fn)(struct rd_reader *);
	int retest;
	long has;
} rd_files[] = {
	{ "p2p.csv", RD_FILE_P2P, NULL, 0, offsetof(struct rundir, has_p2p) },
	{ "p2p_bw.csv", RD_FILE_P2P, NULL, 0, -1 },
	{ "p2p_retest.csv", RD_FILE_RETESTS, NULL, 1, -1 },
	{ "p2p_confirm.csv", RD_FILE_RETESTS, NULL, 1, -1 }, /* run's confirmation pass: pairs measured alone */
	{ "topology.csv", RD_FILE_TOPO, topo_read, 0, offsetof(struct rundir, has_topo) },
	{ "collectives.csv", RD_FILE_COLL, coll_read, 0, offsetof(struct rundir, has_coll) },
	{ "nodes.csv", RD_FILE_NODES, nodes_read, 0, offsetof(struct rundir, has_nodes) },
	{ "nics.csv", RD_FILE_NICS, nics_read, 0, offsetof(struct rundir, has_nics) },
};

/* Forget what rd holds of f's kind: a map, nodes or NICs given again replace those given before;
 * p2p, retest and collectives rows add up (their writers hand them over a part at a time). */
static void file_reset(struct rundir *rd, const struct rd_file *f)
{
	if (f->fn == topo_read) {
		free(rd->topo.host);
		free(rd->topo.group);
		memset(&rd->topo, 0, sizeof rd->topo);
	} else if (f->fn == nodes_read) {
		free(rd->node);
		rd->node = NULL;
		rd->nnode = 0;
	} else if (f->fn == nics_read) {
		free(rd->nic);
		rd->nic = NULL;
		rd->nnic = 0;
	}
}

/* f, from dir or from text (len bytes). */
static int file_read(struct rundir *rd, const struct rd_file *f, const char *text, size_t len, char *err)
{
	int present = 0, rc;

	file_reset(rd, f);
	if (f->fn)
		rc = part(rd, err, f->name, text, len, f->fn, &present);
	else if (f->retest)
		rc = p2p_part(rd, f->name, text, len, &rd->rt, &rd->nrt, &present, err);
	else
		rc = p2p_part(rd, f->name, text, len, &rd->p2p, &rd->np2p, &present, err);
	if (present && f->has >= 0)
		*(int *)((char *)rd + f->has) = 1;
	return rc;
}

int rundir_init(struct rundir *rd, const char *dir)
{
	memset(rd, 0, sizeof *rd);
	snprintf(rd->dir, sizeof rd->dir, "%s", dir);
	return rundir_intern(rd, "") == 0 ? 0 : FP_ERUNTIME;
}

int rundir_reads(const char *name)
{
	for (size_t i = 0; i < sizeof rd_files / sizeof *rd_files; i++)
		if (!strcmp(rd_files[i].name, name))
			return 1;
	return 0;
}

int rundir_add_text(struct rundir *rd, const char *name, const char *text, size_t len, char *err)
{
	for (size_t i = 0; i < sizeof rd_files / sizeof *rd_files; i++)
		if (!strcmp(rd_files[i].name, name))
			return file_read(rd, &rd_files[i], text, len, err);
	snprintf(err, RUNDIR_ERR_MAX, "%s: internal: not a file of the model", name);
	return FP_EUSAGE;
}

int rundir_load_files(const char *dir, unsigned files, struct rundir *rd, char *err)
{
	struct stat st;
	int rc = 0;

	memset(rd, 0, sizeof *rd);
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, RUNDIR_ERR_MAX, "%s: not a results directory", dir);
		return FP_EUSAGE;
	}
	if (rundir_init(rd, dir)) {
		snprintf(err, RUNDIR_ERR_MAX, "%s: out of memory", dir);
		rc = FP_ERUNTIME;
	}
	for (size_t i = 0; !rc && i < sizeof rd_files / sizeof *rd_files; i++)
		if (files & rd_files[i].bit)
			rc = file_read(rd, &rd_files[i], NULL, 0, err);
	if (!rc)
		rc = rundir_index(rd, err);
	if (rc)
		rundir_free(rd);
	return rc;
}

int rundir_load(const char *dir, struct rundir *rd, char *err)
{
	int rc = rundir_load_files(dir, RD_FILE_ALL, rd, err);

	if (!rc && !(rd->has_p2p | rd->has_topo | rd->has_coll | rd->has_nodes)) {
		snprintf(err, RUNDIR_ERR_MAX, "%s: holds none of p2p.csv, topology.csv, collectives.csv, nodes.csv: "
			 "not a fabprobe results directory", dir);
		rundir_free(rd);
		rc = FP_EUSAGE;
	}
	return rc;
}

void rundir_free(struct rundir *rd)
{
	strtab_free(&rd->tab);
	free(rd->rank);
	free(rd->p2p);
	free(rd->rt);
	free(rd->coll);
	free(rd->node);
	free(rd->nic);
	free(rd->topo.host);
	free(rd->topo.group);
	free(rd->topo_of);
	memset(rd, 0, sizeof *rd);
}

/* ---------------------------------------------------------------- two models alike */

/* floats alike: both NAN, or equal */
static int same_f(double x, double y)
{
	return (isnan(x) && isnan(y)) || x == y;
}

#define SAME_STR(f) (!strcmp(a->tab.str[p->f], b->tab.str[q->f]))

static int same_p2p(const struct rundir *a, const struct rd_p2p *p, const struct rundir *b, const struct rd_p2p *q)
{
	int ok = SAME_STR(path) && SAME_STR(kind) && SAME_STR(src) && SAME_STR(dst) && SAME_STR(status) &&
		 SAME_STR(src_dev) && SAME_STR(dst_dev) && p->size == q->size && p->ok == q->ok &&
		 same_f(p->line_rate, q->line_rate) && !strcmp(p->file, q->file);

	for (int m = 0; ok && m < RD_NMETRIC; m++)
		ok = same_f(p->v[m], q->v[m]) && same_f(p->retest[m], q->retest[m]);
	return ok;
}

static int same_coll(const struct rundir *a, const struct rd_coll *p, const struct rundir *b, const struct rd_coll *q)
{
	return SAME_STR(backend) && SAME_STR(op) && SAME_STR(dtype) && SAME_STR(redop) && SAME_STR(status) &&
	       SAME_STR(root) && SAME_STR(path) && p->size == q->size && p->in_place == q->in_place &&
	       p->nranks == q->nranks && same_f(p->busbw, q->busbw) && p->wrong == q->wrong;
}

static int same_node(const struct rundir *a, const struct rd_node *p, const struct rundir *b, const struct rd_node *q)
{
	return SAME_STR(host) && SAME_STR(kernel) && SAME_STR(mpi) && SAME_STR(cpu) && p->gpus == q->gpus &&
	       p->nics == q->nics;
}

static int same_nic(const struct rundir *a, const struct rd_nic *p, const struct rundir *b, const struct rd_nic *q)
{
	return SAME_STR(host) && SAME_STR(name) && SAME_STR(kind) && SAME_STR(fw) && p->up == q->up &&
	       p->is_virtual == q->is_virtual && same_f(p->rate, q->rate) && same_f(p->width, q->width) &&
	       same_f(p->mtu, q->mtu);
}

/* the topologies hold the same hosts in the same groups, tier by tier (in any row order) */
static int same_topo(const struct rundir *a, const struct rundir *b)
{
	const struct rd_topo *t = &a->topo, *u = &b->topo;

	if (t->n != u->n || t->ntiers != u->ntiers)
		return 0;
	for (int k = 0; k < t->ntiers; k++)
		if (strcmp(t->tier_name[k], u->tier_name[k]))
			return 0;
	for (int i = 0; i < t->n; i++) {
		int id = rundir_find(b, a->tab.str[t->host[i]]), j = id < 0 ? -1 : b->topo_of[id];

		if (j < 0)
			return 0;
		for (int k = 0; k < t->ntiers; k++)
			if (strcmp(a->tab.str[t->group[(size_t)k * t->n + i]], b->tab.str[u->group[(size_t)k * u->n + j]]))
				return 0;
	}
	return 1;
}

int rundir_same(const struct rundir *a, const struct rundir *b, char *why, size_t len)
{
	const char *what = NULL;
	long at = -1;

	if (a->has_p2p != b->has_p2p || a->has_topo != b->has_topo || a->has_coll != b->has_coll ||
	    a->has_nodes != b->has_nodes || a->has_nics != b->has_nics)
		what = "the files held";
	else if (a->np2p != b->np2p || a->nretest != b->nretest)
		what = "the count of p2p or retest rows";
	else if (a->ncoll != b->ncoll || a->nnode != b->nnode || a->nnic != b->nnic)
		what = "the count of collectives, nodes or NICs";
	else if (a->has_topo && !same_topo(a, b))
		what = "topology";
	for (size_t i = 0; !what && i < a->np2p; i++)
		if (!same_p2p(a, &a->p2p[i], b, &b->p2p[i]))
			what = "p2p row", at = (long)i;
	for (int i = 0; !what && i < a->ncoll; i++)
		if (!same_coll(a, &a->coll[i], b, &b->coll[i]))
			what = "collectives row", at = i;
	for (int i = 0; !what && i < a->nnode; i++)
		if (!same_node(a, &a->node[i], b, &b->node[i]))
			what = "nodes row", at = i;
	for (int i = 0; !what && i < a->nnic; i++)
		if (!same_nic(a, &a->nic[i], b, &b->nic[i]))
			what = "nics row", at = i;
	if (what && at >= 0)
		snprintf(why, len, "%s %ld differs", what, at);
	else if (what)
		snprintf(why, len, "%s differ", what);
	return !what;
}

int rundir_tier(const struct rundir *rd, int a, int b)
{
	const struct rd_topo *t = &rd->topo;
	int i, j;

	if (!rd->has_topo || a < 0 || b < 0 || a >= rd->tab.n || b >= rd->tab.n)
		return -1;
	i = rd->topo_of[a];
	j = rd->topo_of[b];
	if (i < 0 || j < 0)
		return -1;
	for (int k = 0; k < t->ntiers; k++)
		if (t->group[(size_t)k * t->n + i] == t->group[(size_t)k * t->n + j])
			return k;
	return t->ntiers;
}

const char *rundir_tier_name(const struct rundir *rd, int tier)
{
	if (tier < 0)
		return "?";
	return tier < rd->topo.ntiers ? rd->topo.tier_name[tier] : "top";
}
