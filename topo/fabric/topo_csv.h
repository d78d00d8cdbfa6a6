/* topo_csv.h — the latency map's own CSV files and terminal summary. Pure (FILE * only). */
#ifndef FP_TOPO_CSV_H
#define FP_TOPO_CSV_H

#include <stdio.h>

#include "emit.h"

/* topology.csv: host, order, tier0, tier1, …, offset_us — one row per host in tree order */
void topo_csv_topology(FILE *f, const struct emit_topo *t);
/* tiers.csv: tier, switch, groups, pairs, lat_p50_us, bw_p50_GBps, threshold_us */
void topo_csv_tiers(FILE *f, const struct emit_topo *t);
/* suspects.csv: kind, hosts, metric, value, expected, reason */
void topo_csv_suspects(FILE *f, const struct emit_topo *t);
/* tiers, groups and their hosts, suspects: what a person reads first */
void topo_summary_print(FILE *f, const struct emit_topo *t);

/* Write topology.csv, tiers.csv, suspects.csv and (with_schedulers) every scheduler file into
 * dir (topo_out.c). A file whose format cannot hold a host name is not written (said on
 * stderr): FP_EUSAGE after the rest; FP_ERUNTIME on an I/O error or out of memory. */
int topo_outputs_write(const char *dir, const struct emit_topo *t, int with_schedulers);

#endif
