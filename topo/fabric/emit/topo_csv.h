/* topo_csv.h — the latency map's own CSV files and terminal summary. Pure (FILE * only). */
#ifndef FP_TOPO_CSV_H
#define FP_TOPO_CSV_H

#include <stddef.h>
#include <stdio.h>

#include "emit.h"
#include "fabric/infer/suspects.h"

/* topology.csv: host, order, tier0, tier1, …, offset_us — one row per host in tree order;
 * offset_us: the node's share of every latency, against the median node (slow > 0) */
void topo_csv_topology(FILE *f, const struct emit_topo *t);
/* tiers.csv: tier, switch, groups, pairs, lat_p50_us, bw_p50_GBps, threshold_us, level_us,
 * sep_z, sep_sigma, sep_pairs, within_pairs — the last four: how far the tier's weakest group
 * stands from its nearest (standard errors, pair sigmas) on how many pairs between them and
 * within the tier's groups (empty for the top) */
void topo_csv_tiers(FILE *f, const struct emit_topo *t);
/* suspects.csv: kind, hosts, metric, value, expected, first_value, first_expected, state,
 * reason — the suspects that count (t->suspects; NULL: the map's own, as candidates). value
 * and expected are the confirming figures when re-tested (first_* the first pass's), else the
 * only ones */
void topo_csv_suspects(FILE *f, const struct emit_topo *t);
/* retested.csv: the same columns, for the candidates that do not count (t->rest) */
void topo_csv_retested(FILE *f, const struct emit_topo *t);
/* A finding as its rows say it: the figure that counts (v, e, x: the confirming ones once
 * re-tested) and the first pass's (fv, fe; NAN when not re-tested); its hosts ("a" or "a b"),
 * the metric value is in, and the one-sentence reason. */
void topo_suspect_figures(const struct suspect *s, double *v, double *e, double *x, double *fv, double *fe);
/* Where finding s is: its node, its two nodes ("a b"), or for a slow uplink the switch group's
 * name (topology.csv's, "leaf02"). */
void topo_finding_where(const struct emit_topo *t, const struct suspect *s, char *out, size_t len);
void topo_suspect_text(const struct emit_topo *t, const struct suspect *s, char *hosts, size_t hl,
		       const char **metric, char *why, size_t wl);
/* Finding i of l, or of the map's own candidates when l is NULL (built in tmp). */
const struct suspect *topo_suspect_at(const struct emit_topo *t, const struct susp_list *l, int i,
				       struct suspect *tmp);
/* Finding i of l (as topo_suspect_at) with everything its rows say: figures and text. */
struct topo_finding {
	const struct suspect *s;
	struct suspect tmp;
	char hosts[600], why[1200];
	const char *metric;
	double v, e, x, fv, fe;
};
void topo_finding_get(const struct emit_topo *t, const struct susp_list *l, int i, struct topo_finding *out);
/* The map as one JSON object (summary.json's per-path "map"): its tiers (kind, groups with
 * their members, p50 latency and bandwidth, % of line_rate_Gbps when known, the separation
 * behind each tier), the findings that count and those that did not (as suspects.csv and
 * retested.csv say them), as the value in j's place. */
struct jw;
void topo_json_map(struct jw *j, const struct emit_topo *t, double line_rate_Gbps);
/* tiers, groups and their hosts, suspects: what a person reads first */
void topo_summary_print(FILE *f, const struct emit_topo *t);

/* Write topology.csv, tiers.csv, suspects.csv (each with t->suffix before ".csv"), retested.csv
 * when t->rest is set, and (with_schedulers) every scheduler file into dir (topo_out.c). A file whose format cannot hold a host name is not written (said on
 * stderr): FP_EUSAGE after the rest; FP_ERUNTIME on an I/O error or out of memory. */
int topo_outputs_write(const char *dir, const struct emit_topo *t, int with_schedulers);

#endif
