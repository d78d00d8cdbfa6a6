/* report_load.c — the files every section leans on: meta.json, coll_meta.json, the latency
 * maps (topology.csv, suspects.csv, and each path's own), and p2p.csv's rows summarised per path
 * and size; name look-ups and the display order of hosts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "fabric/io/rundir.h"
#include "heatmap.h"
#include "report_int.h"

#define JSON_MAX (16 << 20)

/* ---------------------------------------------------------------- name index */

struct ix_ent {
	const char *name;
	int pos;
};

static int ix_cmp(const void *a, const void *b)
{
	const struct ix_ent *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

int rpt_ix_build(struct rpt_ix *ix, const char *const *names, int n)
{
	struct ix_ent *e = malloc(sizeof *e * (size_t)(n ? n : 1));

	memset(ix, 0, sizeof *ix);
	ix->name = malloc(sizeof *ix->name * (size_t)(n ? n : 1));
	ix->pos = malloc(sizeof *ix->pos * (size_t)(n ? n : 1));
	if (!e || !ix->name || !ix->pos) {
		free(e);
		rpt_ix_free(ix);
		return FP_ERUNTIME;
	}
	for (int i = 0; i < n; i++)
		e[i] = (struct ix_ent){ names[i], i };
	qsort(e, (size_t)n, sizeof *e, ix_cmp);
	for (int i = 0; i < n; i++) {
		ix->name[i] = e[i].name;
		ix->pos[i] = e[i].pos;
	}
	ix->n = n;
	free(e);
	return 0;
}

/* the first position holding name (a duplicate name is found at its first place) */
int rpt_ix_find(const struct rpt_ix *ix, const char *name)
{
	int lo = 0, hi = ix->n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (strcmp(ix->name[mid], name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ix->n && !strcmp(ix->name[lo], name) ? ix->pos[lo] : -1;
}

void rpt_ix_free(struct rpt_ix *ix)
{
	free(ix->name);
	free(ix->pos);
	memset(ix, 0, sizeof *ix);
}

int rpt_display_order(const struct rpt_map *m, int n, char *const *names, int *order)
{
	struct rpt_ix ix;
	char *used = calloc((size_t)(n ? n : 1), 1);
	int k = 0;

	if (!used || rpt_ix_build(&ix, (const char *const *)names, n)) {
		free(used);
		return FP_ERUNTIME;
	}
	for (int t = 0; m->have_topo && t < m->topo.n; t++) {
		int i = rpt_ix_find(&ix, m->topo.host[t]);

		if (i >= 0 && !used[i]) {
			used[i] = 1;
			order[k++] = i;
		}
	}
	for (int i = 0; i < n; i++)
		if (!used[i])
			order[k++] = i;
	rpt_ix_free(&ix);
	free(used);
	return 0;
}

int rpt_blocks(const struct rpt_map *m, int n, const char *const *shown, struct hm_block **blocks, int *nblocks)
{
	const struct rpt_topo *tp = &m->topo;
	struct rpt_ix ix;
	int cap = 0;

	*blocks = NULL;
	*nblocks = 0;
	if (!m->have_topo || !tp->ntiers)
		return 0;
	if (rpt_ix_build(&ix, (const char *const *)tp->host, tp->n))
		return FP_ERUNTIME;
	for (int t = 0; t < tp->ntiers; t++)
		for (int s = 0; s < n;) {
			int h = rpt_ix_find(&ix, shown[s]), e = s + 1;
			const char *g = h >= 0 ? tp->group[(size_t)t * tp->n + h] : NULL;

			while (g && e < n && (h = rpt_ix_find(&ix, shown[e])) >= 0 &&
			       !strcmp(tp->group[(size_t)t * tp->n + h], g))
				e++;
			if (g && *g) {
				if (*nblocks == cap) {
					struct hm_block *b = realloc(*blocks, sizeof *b * (size_t)(cap = cap * 2 + 16));
					if (!b) {
						rpt_ix_free(&ix);
						return FP_ERUNTIME;
					}
					*blocks = b;
				}
				(*blocks)[(*nblocks)++] = (struct hm_block){ t, s, e - s, g };
			}
			s = e;
		}
	rpt_ix_free(&ix);
	return 0;
}

/* ---------------------------------------------------------------- JSON files */

/* name of the directory into *v: 0, or -1 after a note naming why and what that costs */
static int json_load(struct rpt *r, const char *name, struct rjson *v, const char *costs)
{
	char path[4096], err[320];
	int rc;

	rpt_file(r, name, path, sizeof path);
	if ((rc = rjson_load(path, JSON_MAX, v, err, sizeof err)) != 1)
		r->found++;
	if (rc)
		rpt_note(r, "%s: %s: %s", name, err, costs);
	return rc ? -1 : 0;
}

/* ---------------------------------------------------------------- topology.csv */

/* a note of rundir's err, the directory left out of the file's name (it heads the page) */
static void loader_note(struct rpt *r, const char *err, const char *costs)
{
	size_t n = strlen(r->dir);

	if (!strncmp(err, r->dir, n) && err[n] == '/')
		err += n + 1;
	rpt_note(r, "%s: %s", err, costs);
}

/* A map's topology as the judges read it (fabric/io/rundir.h): hosts in the file's order and
 * their group at every tier, pointing into m->rd. 0; -1 after a note (quiet: no note when the
 * file is absent, as a path's own map may be). */
static int topo_load(struct rpt *r, struct rpt_map *m, int quiet)
{
	static const char costs[] = "hosts in file order, no switch groups or tree";
	const struct rd_topo *t = &m->rd.topo;
	struct rpt_topo *p = &m->topo;
	char name[160], path[4096], err[RUNDIR_ERR_MAX];

	snprintf(name, sizeof name, "topology%s.csv", m->suffix);
	rpt_file(r, name, path, sizeof path);
	if (rundir_load_files(r->dir, 0, &m->rd, err) || rundir_load_topology(&m->rd, r->dir, name, err)) {
		r->found += access(path, F_OK) == 0;
		loader_note(r, err, costs);
		return -1;
	}
	if (!m->rd.has_topo) {
		if (!quiet)
			rpt_note(r, "%s: not in this directory: %s", name, costs);
		return -1;
	}
	r->found++;
	p->host = calloc((size_t)t->n + 1, sizeof *p->host);
	p->group = calloc((size_t)(t->n + 1) * (size_t)(t->ntiers + 1), sizeof *p->group);
	if (!p->host || !p->group) {
		rpt_note(r, "%s: out of memory: %s", name, costs);
		return -1;
	}
	p->n = t->n;
	p->ntiers = t->ntiers;
	for (int i = 0; i < t->n; i++) {
		p->host[i] = rundir_str(&m->rd, t->host[i]);
		for (int k = 0; k < t->ntiers; k++)
			p->group[(size_t)k * t->n + i] = rundir_str(&m->rd, t->group[(size_t)k * t->n + i]);
	}
	return 0;
}

/* the map whose files end in m->suffix: its topology and suspects */
static void map_load(struct rpt *r, struct rpt_map *m, int quiet)
{
	char name[160], path[4096];

	m->have_topo = topo_load(r, m, quiet) == 0;
	snprintf(name, sizeof name, "suspects%s.csv", m->suffix);
	rpt_file(r, name, path, sizeof path);
	quiet = quiet && access(path, F_OK); /* a file that is there but unreadable is said */
	m->have_suspects = rpt_table_load(r, name, 1 << 20, &m->suspects, quiet ? NULL : "no suspects table or marks") == 0;
}

static void map_free(struct rpt_map *m)
{
	free(m->topo.host);
	free(m->topo.group);
	rundir_free(&m->rd);
	rtab_free(&m->suspects);
}

void rpt_path_key(const char *path, char *out, size_t len)
{
	snprintf(out, len, "%s", path);
	for (char *p = out; *p; p++)
		if (*p == ':' || *p == '/')
			*p = '_';
}

const struct rpt_map *rpt_path_map(struct rpt *r, const char *path)
{
	struct rpt_path *p = NULL;

	for (int i = 0; i < r->npaths && !p; i++)
		if (!strcmp(r->paths[i].name, path))
			p = &r->paths[i];
	if (!p)
		return NULL;
	if (!p->map_tried) {
		char key[128];

		p->map_tried = 1;
		if (!(p->map = calloc(1, sizeof *p->map)))
			return NULL;
		rpt_path_key(path, key, sizeof key);
		snprintf(p->map->suffix, sizeof p->map->suffix, "_%s", key);
		map_load(r, p->map, 1);
		if (!p->map->have_topo && !p->map->have_suspects) {
			map_free(p->map);
			free(p->map);
			p->map = NULL;
		}
	}
	return p->map;
}

int rpt_maps_per_path(struct rpt *r)
{
	for (int i = 0; i < r->npaths; i++)
		if (rpt_path_map(r, r->paths[i].name))
			return 1;
	return 0;
}

void rpt_each_map(struct rpt *r, void (*fn)(struct rpt *, const struct rpt_map *, const char *, void *), void *arg)
{
	if (!rpt_maps_per_path(r)) {
		fn(r, &r->map, NULL, arg);
		return;
	}
	for (int i = 0; i < r->npaths; i++) {
		const struct rpt_map *m = rpt_path_map(r, r->paths[i].name);

		if (m)
			fn(r, m, r->paths[i].name, arg);
	}
}

/* ---------------------------------------------------------------- p2p.csv */

static struct rpt_path *path_of(struct rpt *r, const char *name)
{
	for (int i = 0; i < r->npaths; i++)
		if (!strcmp(r->paths[i].name, name))
			return &r->paths[i];
	if (r->npaths == RPT_PATHS_MAX)
		return NULL;
	struct rpt_path *p = &r->paths[r->npaths++];
	snprintf(p->name, sizeof p->name, "%s", name);
	return p;
}

static struct rpt_size *size_of(struct rpt_path *p, double bytes)
{
	for (int i = 0; i < p->nsizes; i++)
		if (p->size[i].bytes == bytes)
			return &p->size[i];
	if (p->nsizes == RPT_SIZES_MAX)
		return NULL;
	p->size[p->nsizes].bytes = bytes;
	return &p->size[p->nsizes++];
}

static int push(float **v, int *n, int *cap, float x)
{
	if (*n == *cap) {
		float *q = realloc(*v, sizeof *q * (size_t)(*cap = *cap * 2 + 64));
		if (!q)
			return FP_ERUNTIME;
		*v = q;
	}
	(*v)[(*n)++] = x;
	return 0;
}

/* one row: count its status, keep its figures (p50 latency, else the minimum); 0 or FP_ERUNTIME */
static int p2p_row(struct rpt *r, const struct rundir *rd, const struct rd_p2p *q)
{
	struct rpt_path *p = path_of(r, rundir_str(rd, q->path));
	const char *st = rundir_str(rd, q->status);
	float lat = isnan(q->v[RD_LAT_P50]) ? q->v[RD_LAT_MIN] : q->v[RD_LAT_P50];
	struct rpt_size *z;

	if (!p)
		return 0;
	p->rows++;
	p->ok += q->ok;
	p->timeout += !strcmp(st, "timeout");
	p->error += !strcmp(st, "error");
	p->skipped += !strcmp(st, "skipped");
	if (!q->ok || !(z = size_of(p, (double)q->size)))
		return 0;
	if (!isnan(lat) && push(&z->lat, &z->nlat, &z->caplat, lat))
		return FP_ERUNTIME;
	if (!isnan(q->v[RD_BW]) && push(&z->bw, &z->nbw, &z->capbw, q->v[RD_BW]))
		return FP_ERUNTIME;
	return 0;
}

static int cmp_line(const void *a, const void *b)
{
	const struct rd_p2p *x = *(const struct rd_p2p *const *)a, *y = *(const struct rd_p2p *const *)b;

	return (x->line > y->line) - (x->line < y->line);
}

/* p2p.csv as the judges read it (fabric/io/rundir.h), summarised per path and size; paths and
 * sizes in the order the file first names them */
static void p2p_load(struct rpt *r)
{
	struct rundir rd;
	char path[4096], err[RUNDIR_ERR_MAX];
	const struct rd_p2p **rows;

	rpt_file(r, "p2p.csv", path, sizeof path);
	if (rundir_load_files(r->dir, RD_FILE_P2P, &rd, err)) {
		r->found += access(path, F_OK) == 0;
		loader_note(r, err, "no pair counts or size sweeps");
		return;
	}
	if (!rd.has_p2p) {
		rpt_note(r, "p2p.csv: not in this directory: no pair counts or size sweeps");
		rundir_free(&rd);
		return;
	}
	r->found++;
	rows = malloc(sizeof *rows * (rd.np2p ? rd.np2p : 1));
	if (rows && (r->paths = calloc(RPT_PATHS_MAX, sizeof *r->paths))) {
		for (size_t i = 0; i < rd.np2p; i++)
			rows[i] = &rd.p2p[i];
		qsort(rows, rd.np2p, sizeof *rows, cmp_line);
		r->have_p2p = 1;
		for (size_t i = 0; i < rd.np2p && r->have_p2p; i++)
			r->have_p2p = p2p_row(r, &rd, rows[i]) == 0;
	}
	if (!r->have_p2p)
		rpt_note(r, "p2p.csv: out of memory: no pair counts or size sweeps");
	free(rows);
	rundir_free(&rd);
}

/* ---------------------------------------------------------------- all */

/* coll_meta.json is there only when collectives ran: its absence is no news */
static int coll_meta_load(struct rpt *r)
{
	char path[4096];

	rpt_file(r, "coll_meta.json", path, sizeof path);
	if (access(path, F_OK))
		return 0;
	return json_load(r, "coll_meta.json", &r->coll_meta, "no collective library versions") == 0;
}

void rpt_load(struct rpt *r)
{
	r->have_meta = json_load(r, "meta.json", &r->meta, "no run metadata; the verdict is judged from the files") == 0;
	{ /* the verdict as the run said it; the page's figures are drawn from the files beside it */
		char err[RUNDIR_ERR_MAX];
		int rc = run_model_load(r->dir, &r->model, err, sizeof err);

		r->have_model = rc == 0;
		r->found += rc != 1;
		if (rc && rc != 1)
			rpt_note(r, "%s: the verdict is judged from the files", err);
	}
	r->have_coll_meta = coll_meta_load(r);
	map_load(r, &r->map, 0);
	p2p_load(r);
}

void rpt_unload(struct rpt *r)
{
	rjson_free(&r->meta);
	run_model_unload(&r->model);
	rjson_free(&r->coll_meta);
	map_free(&r->map);
	for (int i = 0; r->paths && i < r->npaths; i++) {
		for (int k = 0; k < r->paths[i].nsizes; k++) {
			free(r->paths[i].size[k].lat);
			free(r->paths[i].size[k].bw);
		}
		if (r->paths[i].map) {
			map_free(r->paths[i].map);
			free(r->paths[i].map);
		}
	}
	free(r->paths);
}
