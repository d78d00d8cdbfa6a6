/* map_csv.c — see map_csv.h. */
#include "map_csv.h"

#include <stddef.h>

#define TOPO_COL(id, name, type) [id] = { name, type, 0, 3 }
const struct csv_col map_topo_cols[MAP_TOPO_NCOLS] = {
	TOPO_COL(MAP_TOPO_HOST, "host", CSV_STR),
	TOPO_COL(MAP_TOPO_ORDER, "order", CSV_I64),
	TOPO_COL(MAP_TOPO_OFFSET, "offset_us", CSV_F64),
};

#define TIER(id, name, type, field, prec) [id] = CSV_COL(name, type, struct map_tier_row, field, prec)
const struct csv_col map_tier_cols[MAP_TIER_NCOLS] = {
	TIER(MAP_TIER_TIER, "tier", CSV_I64, tier, 0),
	TIER(MAP_TIER_SWITCH, "switch", CSV_STR, sw, 0),
	TIER(MAP_TIER_GROUPS, "groups", CSV_I64, groups, 0),
	TIER(MAP_TIER_PAIRS, "pairs", CSV_I64, pairs, 0),
	TIER(MAP_TIER_LAT_P50, "lat_p50_us", CSV_F64, lat_p50_us, 3),
	TIER(MAP_TIER_BW_P50, "bw_p50_GBps", CSV_F64, bw_p50_GBps, 4),
	TIER(MAP_TIER_THRESHOLD, "threshold_us", CSV_F64, threshold_us, 3),
	TIER(MAP_TIER_LEVEL, "level_us", CSV_F64, level_us, 3),
	TIER(MAP_TIER_SEP_Z, "sep_z", CSV_F64, sep_z, 1),
	TIER(MAP_TIER_SEP_SIGMA, "sep_sigma", CSV_F64, sep_sigma, 2),
	TIER(MAP_TIER_SEP_PAIRS, "sep_pairs", CSV_I64, sep_pairs, 0),
	TIER(MAP_TIER_WITHIN_PAIRS, "within_pairs", CSV_I64, within_pairs, 0),
	TIER(MAP_TIER_STEP_RATIO, "step_ratio", CSV_F64, step_ratio, 3),
	TIER(MAP_TIER_UNCERTAIN, "uncertain", CSV_I64, uncertain, 0),
};

#define FIND(id, name, type, field, prec) [id] = CSV_COL(name, type, struct map_finding_row, field, prec)
const struct csv_col map_finding_cols[MAP_FIND_NCOLS] = {
	FIND(MAP_FIND_KIND, "kind", CSV_STR, kind, 0),
	FIND(MAP_FIND_HOSTS, "hosts", CSV_STR, hosts, 0),
	FIND(MAP_FIND_METRIC, "metric", CSV_STR, metric, 0),
	FIND(MAP_FIND_VALUE, "value", CSV_F64, value, 4),
	FIND(MAP_FIND_EXPECTED, "expected", CSV_F64, expected, 4),
	FIND(MAP_FIND_FIRST_VALUE, "first_value", CSV_F64, first_value, 4),
	FIND(MAP_FIND_FIRST_EXPECTED, "first_expected", CSV_F64, first_expected, 4),
	FIND(MAP_FIND_STATE, "state", CSV_STR, state, 0),
	FIND(MAP_FIND_REASON, "reason", CSV_STR, reason, 0),
};
