/* rundir_read.c — the readers of the model's files other than p2p.csv (rundir_int.h): each
 * cell checked, a key that must be unique noted, errors naming the file, line and column. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/log.h"
#include "core/results.h"
#include "coll_csv.h"
#include "inv_csv.h"
#include "map_csv.h"
#include "rundir_int.h"

/* ---------------------------------------------------------------- reading cells */

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
int rd_present(const char *path, int *present, char *err)
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

/* ---------------------------------------------------------------- the other files */

/* Tier k's name from one of its group labels (emit_group_name writes "leaf03", "spine00",
 * "tier3-07"): the label less its group number (the trailing digits) and a '-' before them, so
 * "tier3-07" is "tier3"; at most 15 bytes; "tier<k>" when nothing is left. */
void rd_tier_name(const char *label, int k, char out[16])
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

int rd_topo_read(struct rd_reader *x)
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
		rd_tier_name(t->n ? x->rd->tab.str[g[(size_t)k * t->n]] : "", k, t->tier_name[k]);
	return 0;
}

/* the columns rd_coll_read reads, in its order; all but the last two are required (root, path:
 * files of older versions have no path) */
static const int coll_used[] = { COLL_COL_BACKEND, COLL_COL_OP, COLL_COL_DTYPE, COLL_COL_REDOP, COLL_COL_STATUS,
				 COLL_COL_SIZE, COLL_COL_IN_PLACE, COLL_COL_NRANKS, COLL_COL_BUSBW, COLL_COL_WRONG,
				 COLL_COL_ROOT, COLL_COL_PATH };

int rd_coll_read(struct rd_reader *x)
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

/* the columns rd_nodes_read reads, in its order; the first is required */
static const int node_used[] = { INV_CSV_NODE_HOST, INV_CSV_NODE_GPUS, INV_CSV_NODE_NICS, INV_CSV_NODE_KERNEL,
				 INV_CSV_NODE_MPI_VERSION, INV_CSV_NODE_CPU_MODEL };

int rd_nodes_read(struct rd_reader *x)
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

/* the columns rd_nics_read reads, in its order; the first six are required */
static const int nic_used[] = { INV_CSV_NIC_HOST, INV_CSV_NIC_DEVICE, INV_CSV_NIC_PORT, INV_CSV_NIC_NETDEV,
				INV_CSV_NIC_KIND, INV_CSV_NIC_STATE, INV_CSV_NIC_VIRTUAL, INV_CSV_NIC_FW_VER,
				INV_CSV_NIC_RATE, INV_CSV_NIC_WIDTH, INV_CSV_NIC_MTU };

int rd_nics_read(struct rd_reader *x)
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

/* Read dir/name, or text (len bytes) as that file, with fn; *present says whether there was one. */
int rd_part(struct rundir *rd, char *err, const char *name, const char *text, size_t len,
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

