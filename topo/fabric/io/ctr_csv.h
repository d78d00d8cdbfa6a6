/* ctr_csv.h — counters.csv's columns: the one definition that the writer (bench/run's counters
 * stage) and the readers (the report) share. A column's name is written nowhere else. */
#ifndef FP_CTR_CSV_H
#define FP_CTR_CSV_H

#include <stdint.h>
#include <stdio.h>

#include "core/csv.h"

/* One counter of one port of one node, between the read before the first pair and the read
 * after the last. Missing values are -1 / NULL (empty cells). */
struct ctr_csv_row {
	const char *node, *port, *kind;  /* kind: eth, ib, roce */
	const char *source, *counter;    /* counters, hw_counters, statistics, netdev; its name */
	const char *cls;                 /* flap, errors, congestion, retransmit, traffic, other */
	int64_t before, after, delta;    /* delta: -1 when it cannot be read (see note) */
	int64_t judged;                  /* 1: a flap or error here is a finding */
	const char *finding;             /* link_flap, link_errors, or empty */
	const char *note;
	int64_t threshold;               /* the rise a judged port may show; -1: never judged */
};

enum ctr_col {
	CTR_COL_NODE, CTR_COL_PORT, CTR_COL_KIND, CTR_COL_SOURCE, CTR_COL_COUNTER, CTR_COL_CLASS, CTR_COL_BEFORE,
	CTR_COL_AFTER, CTR_COL_DELTA, CTR_COL_JUDGED, CTR_COL_FINDING, CTR_COL_NOTE, CTR_COL_THRESHOLD, CTR_NCOLS
};

extern const struct csv_col ctr_csv_cols[CTR_NCOLS];

void ctr_csv_header(FILE *f);
void ctr_csv_write(FILE *f, const struct ctr_csv_row *row);

/* A flap or error counter that rose on a node's port: a finding of the link counters. */
#define CTR_FIND_NODE_MAX 272 /* a node's name, as the world labels it */
#define CTR_FIND_PORT_MAX 40  /* "mlx5_0:1", or a netdev name */
struct ctr_finding {
	char node[CTR_FIND_NODE_MAX];
	char port[CTR_FIND_PORT_MAX];
	char kind[16];               /* link_flap, link_errors */
	char what[200];              /* "carrier_changes +2 (over 0), port_rcv_errors +150 (over 100)" */
};
/* What a run's link counters came to (rank 0). */
struct ctr_summary {
	int done;                    /* the second read was gathered */
	int nodes, ports, rows, left_out; /* what was read and written */
	int judged_ports;            /* ports whose flaps and errors count */
	int nfind, nfind_all;        /* findings kept (at most the run's cap), and all */
	struct ctr_finding *find;
};

#endif
