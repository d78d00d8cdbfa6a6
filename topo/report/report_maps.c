/* report_maps.c — per path, the latency and bandwidth heat maps: hosts in the tree order of
 * the path's own map (topology_<path>.csv; else topology.csv), its switch groups outlined, its
 * suspects (suspects_<path>.csv; else suspects.csv) marked. Matrices come from
 * latency_<path>.csv / bandwidth_<path>.csv, or from p2p.csv when those are missing. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "fabric/io/matrix.h"
#include "heatmap.h"
#include "html.h"
#include "fabric/io/map_csv.h"
#include "report_int.h"

struct src {
	char key[128];   /* the file name's part: tcp_eth0 */
	char name[128];  /* the path: tcp:eth0 */
	int in_p2p;
};

static int src_add(struct src *s, int *n, const char *key, const char *name, int in_p2p)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(s[i].key, key)) {
			s[i].in_p2p |= in_p2p;
			if (in_p2p)
				snprintf(s[i].name, sizeof s[i].name, "%s", name);
			return i;
		}
	if (*n == RPT_PATHS_MAX || strlen(key) >= sizeof s->key)
		return -1;
	snprintf(s[*n].key, sizeof s->key, "%s", key);
	snprintf(s[*n].name, sizeof s->name, "%s", name);
	s[*n].in_p2p = in_p2p;
	return (*n)++;
}

static int cmp_src(const void *a, const void *b)
{
	const struct src *x = a, *y = b;

	if (x->in_p2p != y->in_p2p)
		return y->in_p2p - x->in_p2p;
	return x->in_p2p ? 0 : strcmp(x->key, y->key);
}

/* p2p.csv's paths first, in its order; then matrices of other paths, by name */
static int sources(const struct rpt *r, struct src *s)
{
	int n = 0;
	DIR *d = opendir(r->dir);
	struct dirent *e;

	for (int i = 0; i < r->npaths; i++) {
		char key[128];

		rpt_path_key(r->paths[i].name, key, sizeof key);
		src_add(s, &n, key, r->paths[i].name, 1);
	}
	while (d && (e = readdir(d))) {
		const char *nm = e->d_name, *p = !strncmp(nm, "latency_", 8) ? nm + 8 : !strncmp(nm, "bandwidth_", 10) ? nm + 10 : NULL;
		size_t l = p ? strlen(p) : 0;
		char key[128];

		if (!p || l <= 4 || strcmp(p + l - 4, ".csv") || l - 4 >= sizeof key)
			continue;
		snprintf(key, sizeof key, "%.*s", (int)(l - 4), p);
		src_add(s, &n, key, key, 0);
	}
	if (d)
		closedir(d);
	for (int i = 0; i < n; i++) /* keep p2p's order: stable by index */
		s[i].in_p2p = s[i].in_p2p ? RPT_PATHS_MAX - i : 0;
	qsort(s, (size_t)n, sizeof *s, cmp_src);
	return n;
}

/* ---------------------------------------------------------------- suspects as marks */

/* "a b" or "a": split where both halves are hosts of the map (names may hold spaces) */
static void suspect_hosts(const struct rpt_ix *ix, const char *hosts, int *a, int *b)
{
	char buf[1024];

	*a = rpt_ix_find(ix, hosts);
	*b = -1;
	if (*a >= 0 || strlen(hosts) >= sizeof buf)
		return;
	for (const char *sp = strchr(hosts, ' '); sp; sp = strchr(sp + 1, ' ')) {
		snprintf(buf, sizeof buf, "%.*s", (int)(sp - hosts), hosts);
		if ((*a = rpt_ix_find(ix, buf)) >= 0 && (*b = rpt_ix_find(ix, sp + 1)) >= 0)
			return;
	}
	*a = *b = -1;
}

/* does a suspect with this metric belong on the map of `metric`? */
static int metric_on(const char *sm, const char *metric)
{
	int lat = !strcmp(sm, "latency_us") || !strcmp(sm, "offset_us");
	int bw = !strcmp(sm, "bandwidth_GBps") || !strcmp(sm, "bw_ratio");

	return (!lat && !bw) || (lat && !strcmp(metric, "latency")) || (bw && !strcmp(metric, "bandwidth"));
}

static int add_mark(struct hm_mark **m, int *n, int *cap, int i, int j, const char *why)
{
	if (*n == *cap) {
		struct hm_mark *q = realloc(*m, sizeof *q * (size_t)(*cap = *cap * 2 + 16));
		if (!q)
			return FP_ERUNTIME;
		*m = q;
	}
	(*m)[(*n)++] = (struct hm_mark){ i, j, why };
	return 0;
}

#define MARKS_MAX 20000

/* the marks of map mp's suspects on path's heat map: all of them when mp is the path's own map
 * (own), else those whose path column names it, or with no such column the first path's */
static int marks_for(const struct rpt_map *mp, int own, const char *path, int first, const char *metric,
		     const struct rpt_ix *ix, struct hm_mark **m, int *n)
{
	const struct rtab *t = &mp->suspects;
	const struct csv_col *fc = map_finding_cols;
	int ch = rtab_col(t, fc[MAP_FIND_HOSTS].name), cm = rtab_col(t, fc[MAP_FIND_METRIC].name);
	int cr = rtab_col(t, fc[MAP_FIND_REASON].name), ck = rtab_col(t, fc[MAP_FIND_KIND].name);
	int cp = rtab_col(t, "path"), cap = 0, rc = 0; /* path: a column of older files */

	*m = NULL;
	*n = 0;
	for (int i = 0; mp->have_suspects && ch >= 0 && i < t->nrows && *n < MARKS_MAX && !rc; i++) {
		const char *sm = rtab_get(t, i, cm), *why = cr >= 0 ? rtab_get(t, i, cr) : rtab_get(t, i, ck);
		int a, b;

		if (cp >= 0 ? strcmp(rtab_get(t, i, cp), path) : !own && !first)
			continue; /* no path column: suspects.csv is of the first path's latency map */
		if (!metric_on(sm, metric))
			continue;
		suspect_hosts(ix, rtab_get(t, i, ch), &a, &b);
		if (a < 0)
			continue;
		rc = add_mark(m, n, &cap, a, b, why);
		if (!rc && b >= 0 && strcmp(sm, "bandwidth_GBps")) /* directional only for bandwidth */
			rc = add_mark(m, n, &cap, b, a, why);
	}
	return rc;
}

/* ---------------------------------------------------------------- one figure */

struct fig {
	const char *path, *metric, *unit, *what, *file;
	int pidx, first;
	const struct rpt_map *map; /* whose tree order, groups and suspects */
	int own;                   /* the path's own map (else topology.csv's) */
};

static void caption(FILE *f, const struct fig *g, int n, int nmarks)
{
	fputs("<figcaption>", f);
	html_textf(f, "%s over %s: %s, %s (%s); %d hosts", !strcmp(g->metric, "latency") ? "Latency" : "Bandwidth",
		   g->path, g->what, g->unit, g->file, n);
	if (nmarks)
		fprintf(f, "; %d suspect mark%s", nmarks, nmarks == 1 ? "" : "s");
	fputs("</figcaption>\n", f);
}

/* The values in display order: v[k * n + l] = m[order[k]][order[l]]. */
static float *reorder(const float *m, const int *order, int n)
{
	float *v = malloc(sizeof *v * (size_t)n * (size_t)n);

	for (int k = 0; v && k < n; k++)
		for (int l = 0; l < n; l++)
			v[(size_t)k * n + l] = m[(size_t)order[k] * n + order[l]];
	return v;
}

static int figure(struct rpt *r, const struct fig *g, int n, char *const *names, const float *m)
{
	int *order = malloc(sizeof *order * (size_t)n), nb = 0, nm = 0, rc = FP_ERUNTIME;
	const char **shown = malloc(sizeof *shown * (size_t)n);
	struct hm_block *blocks = NULL;
	struct hm_mark *marks = NULL;
	float *v = NULL;
	struct rpt_ix ix = { 0 };
	char id[32], nid[40];

	if (!order || !shown || rpt_display_order(g->map, n, names, order) || !(v = reorder(m, order, n)))
		goto out;
	for (int k = 0; k < n; k++)
		shown[k] = names[order[k]];
	if (rpt_blocks(g->map, n, shown, &blocks, &nb) || rpt_ix_build(&ix, shown, n) ||
	    marks_for(g->map, g->own, g->path, g->first, g->metric, &ix, &marks, &nm))
		goto out;
	snprintf(id, sizeof id, "p%d-%s", g->pidx, !strcmp(g->metric, "latency") ? "lat" : "bw");
	snprintf(nid, sizeof nid, "names-%s", id);
	fputs("<figure>\n", r->out);
	caption(r->out, g, n, nm);
	if (n > HM_CELLS_MAX)
		rpt_names_json(r->out, nid, shown, n);
	struct hm_map map = { .id = id, .names_id = nid, .path = g->path, .metric = g->metric, .unit = g->unit,
			      .scale = !strcmp(g->metric, "latency") ? HM_LOG : HM_LINEAR,
			      .high_is_good = !!strcmp(g->metric, "latency"), .n = n, .names = shown, .v = v,
			      .blocks = blocks, .nblocks = nb, .marks = marks, .nmarks = nm };
	rc = hm_render(r->out, &map);
	fputs("</figure>\n", r->out);
out:
	if (rc)
		rpt_note(r, "%s: out of memory drawing its %s heat map", g->file, g->metric);
	rpt_ix_free(&ix);
	free(order);
	free(shown);
	free(blocks);
	free(marks);
	free(v);
	return rc;
}

/* ---------------------------------------------------------------- per path */

static const struct rpt_path *p2p_path(const struct rpt *r, const char *name)
{
	for (int i = 0; i < r->npaths; i++)
		if (!strcmp(r->paths[i].name, name))
			return &r->paths[i];
	return NULL;
}

/* the smallest latency size or the largest bandwidth size of the path, as text ("" unknown) */
static void size_text(const struct rpt_path *p, int bw, char *out, size_t len)
{
	double best = NAN;

	for (int i = 0; p && i < p->nsizes; i++)
		if ((bw ? p->size[i].nbw : p->size[i].nlat) > 0 &&
		    (isnan(best) || (bw ? p->size[i].bytes > best : p->size[i].bytes < best)))
			best = p->size[i].bytes;
	if (isnan(best))
		snprintf(out, len, bw ? "the largest size" : "the smallest size");
	else
		html_bytes(out, len, best);
}

static void note_matrix(struct rpt *r, const char *err, const char *what)
{
	size_t l = strlen(r->dir);
	const char *e = !strncmp(err, r->dir, l) && err[l] == '/' ? err + l + 1 : err;

	rpt_note(r, "%s: %s", e, what);
}

/* a matrix file of the path, or (when there is none) both metrics from p2p.csv */
static int load(struct rpt *r, const struct src *s, const char *what, struct p2p_matrices *m, char *file, size_t flen)
{
	char err[MATRIX_ERR_MAX], path[4096], costs[256];

	snprintf(file, flen, "%s_%s.csv", what, s->key);
	rpt_file(r, file, path, sizeof path);
	snprintf(costs, sizeof costs, "no %s heat map for %s", what, s->name);
	if (access(path, F_OK) == 0) {
		r->found++;
		if (matrix_read_square(path, m, err) == 0)
			return 0;
		note_matrix(r, err, costs);
		return -1;
	}
	if (!s->in_p2p) {
		rpt_note(r, "%s: not in this directory: %s", file, costs);
		return -1;
	}
	snprintf(file, flen, "p2p.csv");
	rpt_file(r, "p2p.csv", path, sizeof path);
	if (matrix_read_p2p(path, s->name, m, err) == 0)
		return 0;
	note_matrix(r, err, costs);
	return -1;
}

static void one_path(struct rpt *r, const struct src *s, int pidx)
{
	struct p2p_matrices lat = { 0 }, bw = { 0 };
	char lf[300], bf[300], lsz[32], bsz[32], lwhat[96], bwhat[96];
	const struct rpt_path *p = p2p_path(r, s->name);
	const struct rpt_map *own = s->in_p2p ? rpt_path_map(r, s->name) : NULL, *mp = own ? own : &r->map;
	int have_lat = load(r, s, "latency", &lat, lf, sizeof lf) == 0;
	int have_bw = load(r, s, "bandwidth", &bw, bf, sizeof bf) == 0;

	size_text(p, 0, lsz, sizeof lsz);
	size_text(p, 1, bsz, sizeof bsz);
	snprintf(lwhat, sizeof lwhat, "%s half round trip at %s", strcmp(lf, "p2p.csv") ? "p50" : "minimum", lsz);
	snprintf(bwhat, sizeof bwhat, "windowed stream at %s", bsz);
	fputs("<h3>Path ", r->out);
	html_text(r->out, s->name);
	fputs("</h3>\n<div class=\"maps\">\n", r->out);
	if (have_lat)
		figure(r, &(struct fig){ s->name, "latency", "µs", lwhat, lf, pidx, pidx == 0, mp, !!own }, lat.n, lat.names,
		       lat.lat_min);
	/* from p2p.csv the bandwidth rides with the latency; from a file it is that file's only matrix */
	const float *bv = !strcmp(bf, "p2p.csv") ? bw.bw : bw.lat_min;
	if (have_bw && bv)
		figure(r, &(struct fig){ s->name, "bandwidth", "GB/s", bwhat, bf, pidx, pidx == 0, mp, !!own }, bw.n, bw.names,
		       bv);
	else if (have_bw)
		rpt_note(r, "%s: no bandwidth figures for %s: no bandwidth heat map", bf, s->name);
	fputs("</div>\n", r->out);
	matrix_free(&lat);
	matrix_free(&bw);
}

void rpt_maps(struct rpt *r)
{
	struct src s[RPT_PATHS_MAX];
	int n = sources(r, s);

	rpt_section(r->out, "maps", "Heat maps");
	fputs("<p>Rows are sources, columns destinations, hosts in the tree order the path's own latency map "
	      "inferred (topology_&lt;path&gt;.csv; else topology.csv): each leaf switch is a block on the diagonal, "
	      "outlined; a thicker outline is a spine. Darker is worse: higher latency, lower bandwidth. Suspects "
	      "of that map (suspects_&lt;path&gt;.csv; else suspects.csv) are outlined in red (cells) or marked "
	      "with a red triangle (nodes). Hover a cell for its hosts and value.</p>\n", r->out);
	if (!n)
		fputs("<p class=\"warn\">No matrices (latency_*.csv, bandwidth_*.csv) and no p2p.csv: no heat map.</p>\n", r->out);
	for (int i = 0; i < n; i++)
		one_path(r, &s[i], i);
	fputs("</section>\n", r->out);
}
