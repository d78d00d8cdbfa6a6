/* rundir_int.h — private to the model of a run (rundir.c, rundir_read.c): a reader of one of
 * its files, and the readers of those other than p2p.csv. */
#ifndef FP_RUNDIR_INT_H
#define FP_RUNDIR_INT_H

#include "csv_read.h"
#include "rundir.h"

struct keyline {
	int key, line;  /* a row's key (an interned string) and where it was */
};

/* One file being read into rd: its rows, the keys that must be unique, the first error in err. */
struct rd_reader {
	struct rundir *rd;
	struct csv_read r;
	char *err;
	int oom;
	struct keyline *keys; /* rows that must be unique (a host in topology.csv...) */
	int nkeys, kcap;
};

/* Whether path is there: absent only when no entry of that name exists. A link to nothing, a
 * loop of links or an unreadable directory is an error. 0, or FP_EUSAGE with err. */
int rd_present(const char *path, int *present, char *err);
/* Read dir/name, or text (len bytes) as that file, with fn; *present says whether there was
 * one. 0, FP_EUSAGE or FP_ERUNTIME with err. */
int rd_part(struct rundir *rd, char *err, const char *name, const char *text, size_t len,
	 int (*fn)(struct rd_reader *), int *present);
/* The readers: topology.csv (replaces rd's topology), collectives.csv (adds rows), nodes.csv
 * and nics.csv (into empty tables). 0, FP_EUSAGE or FP_ERUNTIME with x->err. */
int rd_topo_read(struct rd_reader *x);
int rd_coll_read(struct rd_reader *x);
int rd_nodes_read(struct rd_reader *x);
int rd_nics_read(struct rd_reader *x);

/* Tier k's name from one of its group labels ("leaf03" -> "leaf", "tier3-07" -> "tier3"; at
 * most 15 bytes; "tier<k>" when nothing is left). */
void rd_tier_name(const char *label, int k, char out[16]);

#endif
