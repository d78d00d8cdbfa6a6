/* map_csv.h — the latency map's CSV columns: topology.csv, tiers.csv, and suspects.csv with
 * retested.csv (one table: the findings that count, and those that did not). The one
 * definition the writers (fabric/emit/topo_csv.c), the readers (rundir.c, the report) and the
 * docs test share: a column's name is written nowhere else. */
#ifndef FP_MAP_CSV_H
#define FP_MAP_CSV_H

#include <stdint.h>
#include <stdio.h>

#include "core/csv.h"

/* topology.csv: one row per host in tree order: host, order, then its group at each tier
 * (tier0 the leaf … one column per tier, named by MAP_CSV_TIER_FMT), then offset_us. */
enum map_topo_col { MAP_TOPO_HOST, MAP_TOPO_ORDER, MAP_TOPO_OFFSET, MAP_TOPO_NCOLS };
extern const struct csv_col map_topo_cols[MAP_TOPO_NCOLS]; /* names and types; tiers between order and offset */
#define MAP_CSV_TIER_FMT "tier%d"

/* tiers.csv: one row per tier. Missing values are NAN / -1. */
struct map_tier_row {
	int64_t tier;
	const char *sw;                      /* the switch kind: leaf, spine, core, tierN */
	int64_t groups, pairs;
	double lat_p50_us, bw_p50_GBps, threshold_us, level_us, sep_z, sep_sigma;
	int64_t sep_pairs, within_pairs;     /* -1 at the top tier */
	double step_ratio;
	int64_t uncertain;
};
enum map_tier_col {
	MAP_TIER_TIER, MAP_TIER_SWITCH, MAP_TIER_GROUPS, MAP_TIER_PAIRS, MAP_TIER_LAT_P50, MAP_TIER_BW_P50,
	MAP_TIER_THRESHOLD, MAP_TIER_LEVEL, MAP_TIER_SEP_Z, MAP_TIER_SEP_SIGMA, MAP_TIER_SEP_PAIRS,
	MAP_TIER_WITHIN_PAIRS, MAP_TIER_STEP_RATIO, MAP_TIER_UNCERTAIN, MAP_TIER_NCOLS
};
extern const struct csv_col map_tier_cols[MAP_TIER_NCOLS];

/* suspects.csv and retested.csv: one row per finding. */
struct map_finding_row {
	const char *kind, *hosts, *metric;
	double value, expected, first_value, first_expected;
	const char *state, *reason;
};
enum map_finding_col {
	MAP_FIND_KIND, MAP_FIND_HOSTS, MAP_FIND_METRIC, MAP_FIND_VALUE, MAP_FIND_EXPECTED, MAP_FIND_FIRST_VALUE,
	MAP_FIND_FIRST_EXPECTED, MAP_FIND_STATE, MAP_FIND_REASON, MAP_FIND_NCOLS
};
extern const struct csv_col map_finding_cols[MAP_FIND_NCOLS];

#endif
