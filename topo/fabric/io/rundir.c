/* rundir.c — see rundir.h. */
#include "rundir.h"

#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/log.h"
#include "csv_read.h"
#include "p2p_csv.h"
#include "rundir_int.h"
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

/* ---------------------------------------------------------------- loading */

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
	rc = rd_part(rd, err, name ? name : "topology.csv", NULL, 0, rd_topo_read, &rd->has_topo);
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
		rd_tier_name(n ? labels[(size_t)k * n] : "", k, t.tier_name[k]);
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
	{ "topology.csv", RD_FILE_TOPO, rd_topo_read, 0, offsetof(struct rundir, has_topo) },
	{ "collectives.csv", RD_FILE_COLL, rd_coll_read, 0, offsetof(struct rundir, has_coll) },
	{ "nodes.csv", RD_FILE_NODES, rd_nodes_read, 0, offsetof(struct rundir, has_nodes) },
	{ "nics.csv", RD_FILE_NICS, rd_nics_read, 0, offsetof(struct rundir, has_nics) },
};

/* Forget what rd holds of f's kind: a map, nodes or NICs given again replace those given before;
 * p2p, retest and collectives rows add up (their writers hand them over a part at a time). */
static void file_reset(struct rundir *rd, const struct rd_file *f)
{
	if (f->fn == rd_topo_read) {
		free(rd->topo.host);
		free(rd->topo.group);
		memset(&rd->topo, 0, sizeof rd->topo);
	} else if (f->fn == rd_nodes_read) {
		free(rd->node);
		rd->node = NULL;
		rd->nnode = 0;
	} else if (f->fn == rd_nics_read) {
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
		rc = rd_part(rd, err, f->name, text, len, f->fn, &present);
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
