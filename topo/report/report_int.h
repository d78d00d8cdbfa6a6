/* report_int.h — what the report's sections share (topo/report only). */
#ifndef FP_REPORT_INT_H
#define FP_REPORT_INT_H

#include <stdio.h>

#include "rtab.h"
#include "report.h"
#include "core/rjson.h"
#include "fabric/emit/run_model.h"
#include "fabric/io/rundir.h"

#define RPT_PATHS_MAX 32
#define RPT_SIZES_MAX 64
#define RPT_ROWS_MAX 500   /* rows of a table shown in the page; the rest are counted */

/* topology.csv: hosts in tree order and their group at each tier */
struct rpt_topo {
	int n, ntiers;
	const char **host;   /* n, pointing into the table */
	const char **group;  /* ntiers x n, tier-major */
};

/* one message size of one path in p2p.csv: the pairs' latencies and bandwidths */
struct rpt_size {
	double bytes;
	int nlat, nbw, caplat, capbw;
	float *lat, *bw;
};

/* One latency map: run draws one per path (topology_<path>.csv, tiers_<path>.csv,
 * suspects_<path>.csv); topology.csv, tiers.csv and suspects.csv hold the compute path's, and
 * are what topo writes. */
struct rpt_map {
	char suffix[136];        /* "_tcp_eth0" (the path's files), or "" (topology.csv...) */
	struct rundir rd;        /* its topology, read by the judges' loader */
	struct rpt_topo topo;    /* its hosts and groups, pointing into rd */
	int have_topo;
	struct rtab suspects;
	int have_suspects;
};

struct rpt_path {
	char name[128];
	struct rpt_map *map;         /* its own map (rpt_path_map), read when first asked for */
	int map_tried;
	long rows, ok, timeout, error, skipped;
	int nsizes;
	struct rpt_size size[RPT_SIZES_MAX];
};

struct rpt {
	const char *dir;
	FILE *out;                   /* the page body (sections) */
	struct report_notes *notes;
	struct rjson meta, coll_meta;
	int have_meta, have_coll_meta;
	struct run_model_loaded model; /* the run's judged model, from summary.json */
	int have_model;              /* …read: the banner says its verdict, clause by clause */
	struct rpt_map map;          /* topology.csv, suspects.csv: the compute path's map */
	struct rpt_path *paths;      /* from p2p.csv */
	int npaths, have_p2p;
	int found;                   /* fabprobe files seen */
};

/* a note for the page and the caller: what is missing or malformed, and what it costs */
void rpt_note(struct rpt *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "<dir>/<name>" into out */
void rpt_file(const struct rpt *r, const char *name, char *out, size_t len);
/* a whole table of dir (at most max_rows rows): 0, or -1 after a note naming why and what that
 * costs (costs NULL: no note; another section says it) */
int rpt_table_load(struct rpt *r, const char *name, int max_rows, struct rtab *t, const char *costs);
/* an HTML table of t's columns (cols: names, NULL-terminated; NULL = all), up to max rows */
void rpt_table_html(FILE *f, const struct rtab *t, const char *const *cols, int max, const char *cls);
/* the host names of an image heat map, for its tooltip: <script type="application/json" id=id> */
void rpt_names_json(FILE *f, const char *id, const char *const *names, int n);
/* <section id=...><h2>title</h2> */
void rpt_section(FILE *f, const char *id, const char *title);

/* report_load.c: meta.json, coll_meta.json, topology.csv, suspects.csv, p2p.csv */
void rpt_load(struct rpt *r);
void rpt_unload(struct rpt *r);
/* the file-name part of a path as fabprobe writes it: ':' and '/' become '_' (tcp_eth0) */
void rpt_path_key(const char *path, char *out, size_t len);
/* The map of a path of p2p.csv: its own files where the run wrote them, else NULL */
const struct rpt_map *rpt_path_map(struct rpt *r, const char *path);
/* Whether the run wrote a map per path (then topology.csv is one of them, the compute path's) */
int rpt_maps_per_path(struct rpt *r);
/* fn(r, map, path, arg) on each path's own map, in p2p.csv's order, where the run drew one per
 * path; else once on the run's one map (path NULL) */
void rpt_each_map(struct rpt *r, void (*fn)(struct rpt *, const struct rpt_map *, const char *, void *), void *arg);

/* the sections, in page order */
void rpt_maps(struct rpt *r);
void rpt_topology(struct rpt *r);
void rpt_schedulers(struct rpt *r);
void rpt_sweeps(struct rpt *r);
void rpt_collectives(struct rpt *r);
void rpt_links(struct rpt *r);
void rpt_inventory(struct rpt *r);
void rpt_compare(struct rpt *r);

/* shared by maps and compare: hosts ordered as in map m's topology (then the others, as given);
 * order[k] = index into names of display position k. Returns 0 or FP_ERUNTIME. */
int rpt_display_order(const struct rpt_map *m, int n, char *const *names, int *order);
/* map m's switch groups over the display order: *blocks malloc'd; 0 or FP_ERUNTIME */
struct hm_block;
int rpt_blocks(const struct rpt_map *m, int n, const char *const *shown, struct hm_block **blocks, int *nblocks);

/* a sorted name index for look-ups */
struct rpt_ix {
	int n;
	const char **name;
	int *pos;
};
int rpt_ix_build(struct rpt_ix *ix, const char *const *names, int n);
int rpt_ix_find(const struct rpt_ix *ix, const char *name);  /* position, or -1 */
void rpt_ix_free(struct rpt_ix *ix);

#endif
