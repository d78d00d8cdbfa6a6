/* rundir.h — what one results directory holds, read back for judging: p2p.csv (with the
 * figures measured again of p2p_retest.csv and p2p_confirm.csv), topology.csv, collectives.csv, nodes.csv and
 * nics.csv. Every file is optional (a run made with --no-coll has no collectives.csv); what
 * a judge needs and is absent, it says. Strings are interned: every name is an id into one
 * table, 0 being "". Errors name the file, the line and the problem. */
#ifndef FP_RUNDIR_H
#define FP_RUNDIR_H

#include <stddef.h>

#include "strtab.h"

#define RUNDIR_ERR_MAX 640
#define RUNDIR_TIERS_MAX 8

enum { RD_LAT_MIN, RD_LAT_P50, RD_BW, RD_NMETRIC };

/* One p2p.csv row: one direction of a pair on a path at one size. */
struct rd_p2p {
	int path, kind, src, dst, status;  /* string ids */
	int src_dev, dst_dev;              /* string ids: the endpoints on their hosts (rank3, eth0) */
	long long size;
	float v[RD_NMETRIC];               /* as first measured; NAN: not measured or failed */
	float retest[RD_NMETRIC];          /* the best of its retests (lowest latency, highest
					      bandwidth); NAN when none */
	float line_rate;                   /* Gbit/s, NAN unknown */
	int ok;                            /* status "ok" */
	int line;                          /* where in its file the row starts */
	const char *file;                  /* …that file's name (p2p.csv, p2p_bw.csv, a retest file) */
};

/* One collectives.csv row. */
struct rd_coll {
	int backend, op, dtype, redop, status, root;
	int path;                          /* "" when the file has no path column */
	long long size;
	int in_place, nranks;
	double busbw;                      /* GB/s, NAN when not ok */
	long long wrong;
};

struct rd_node {
	int host, kernel, mpi, cpu;
	long long gpus, nics;              /* -1 unknown */
};

struct rd_nic {
	int host, name, kind, fw;          /* name: "mlx5_0:1", or the netdev */
	int up, is_virtual;
	double rate, width, mtu;           /* Gbit/s, lanes, bytes; NAN unknown */
};

/* topology.csv: each host's group at every tier. */
struct rd_topo {
	int n, ntiers;
	int *host;                         /* n string ids, in the file's order */
	int *group;                        /* [tier * n + i]: string id of the group label */
	char tier_name[RUNDIR_TIERS_MAX][16]; /* "leaf", "spine", "core", "tier3" */
};

struct rundir {
	char dir[4096];
	struct strtab tab;                 /* interned strings; tab.str[0] = "" */
	int *rank;                         /* nstr: the id's position in strcmp order */
	struct rd_p2p *p2p;                /* sorted by path, src, dst, size (by name) */
	size_t np2p;
	int nretest;                       /* retest rows read */
	struct rd_p2p *rt;                 /* …those rows (folded into p2p's retest figures by rundir_index) */
	size_t nrt;
	struct rd_coll *coll;
	int ncoll;
	struct rd_node *node;
	int nnode;
	struct rd_nic *nic;
	int nnic;
	struct rd_topo topo;
	int *topo_of;                      /* nstr: index in topo.host, or -1 */
	int has_p2p, has_topo, has_coll, has_nodes, has_nics;
};

/* The files rundir_load_files reads: p2p.csv, p2p_retest.csv with p2p_confirm.csv,
 * topology.csv, collectives.csv, nodes.csv, nics.csv. */
enum { RD_FILE_P2P = 1, RD_FILE_RETESTS = 2, RD_FILE_TOPO = 4, RD_FILE_COLL = 8, RD_FILE_NODES = 16,
       RD_FILE_NICS = 32, RD_FILE_ALL = 63 };

/* Read dir's files. Returns 0; FP_EUSAGE with err when dir is not a directory or a file is
 * malformed; a directory holding none of the files is refused too. */
int rundir_load(const char *dir, struct rundir *rd, char *err);
/* Read only the files of dir that files names (RD_FILE_…), each as rundir_load reads it. An
 * absent one leaves its has_… 0; a directory with none of them is no error here. */
int rundir_load_files(const char *dir, unsigned files, struct rundir *rd, char *err);
void rundir_free(struct rundir *rd);

/* The same model made from what a writer hands over instead of from the directory: the one
 * reader of each file over its text, so that a run's own model and a later rundir_load of its
 * directory cannot differ (hwloc builds one topology from the machine or from its XML alike).
 * rundir_init starts an empty one for dir (0 or FP_ERUNTIME); rundir_add_text reads text (len
 * bytes: a header and rows) as the file name of the directory would be read: p2p.csv,
 * p2p_bw.csv and collectives.csv rows add to those given before (a header before each part),
 * p2p_retest.csv and p2p_confirm.csv rows to the retests; topology.csv, nodes.csv and nics.csv
 * replace what was given of them. 0, FP_EUSAGE with err (the text does not read, or name is no
 * file of the model), FP_ERUNTIME. rundir_index makes it ready to judge (names ordered, rows
 * sorted, retests folded, a row given twice refused): after the last text, and again after more;
 * 0, FP_EUSAGE or FP_ERUNTIME with err. rundir_load is init, every file read, then index. */
int rundir_init(struct rundir *rd, const char *dir);
int rundir_add_text(struct rundir *rd, const char *name, const char *text, size_t len, char *err);
int rundir_index(struct rundir *rd, char *err);
/* Whether a and b, both indexed, hold the same: the files, every row's strings and figures (in
 * their sorted order; not where each row was in its file), the retests folded, the map. 1, or
 * 0 with what differs first in why (len bytes). */
int rundir_same(const struct rundir *a, const struct rundir *b, char *why, size_t len);
/* Whether name is a file the model is made of (rundir_add_text takes it). */
int rundir_reads(const char *name);
/* Replace rd's topology by dir/name, a file as topology.csv is written (NULL: topology.csv;
 * absent: none, has_topo 0). 0 or FP_EUSAGE / FP_ERUNTIME. */
int rundir_load_topology(struct rundir *rd, const char *dir, const char *name, char *err);
/* Replace rd's topology by one given in memory, as topology.csv would hold it: n hosts, ntiers
 * tiers (at most RUNDIR_TIERS_MAX), labels[k * n + i] the tier-k group of host i (`run` judges
 * on its first map before topology.csv is written). 0, FP_EUSAGE (a bad shape), FP_ERUNTIME. */
int rundir_set_topology(struct rundir *rd, int n, const char *const *hosts, int ntiers, const char *const *labels);

static inline const char *rundir_str(const struct rundir *rd, int id)
{
	return rd->tab.str[id];
}
/* The p2p.csv column a metric (RD_LAT_MIN…) is read from, by its name (lat_us_min…) */
const char *rundir_metric_name(int metric);
/* The id of s, or -1 when the run never names it. */
int rundir_find(const struct rundir *rd, const char *s);
/* The lowest tier whose group both hosts share (string ids), ntiers when none does, -1 when
 * either host is not in topology.csv (or there is none). */
int rundir_tier(const struct rundir *rd, int a, int b);
/* The tier's name, "leaf"…, or "?" for -1 and "top" above every tier. */
const char *rundir_tier_name(const struct rundir *rd, int tier);

/* Exposed for tests and for other readers of fabprobe's files: intern s (copy), returning its
 * id, or -1 when out of memory. */
int rundir_intern(struct rundir *rd, const char *s);

#endif
