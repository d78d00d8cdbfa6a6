/* p2p_opts.c — the options of the point-to-point stage (p2p.h): `fabprobe p2p`'s, which `run`
 * takes too; their usage, defaults and validation. */
#include <getopt.h>
#include <math.h>
#include <string.h>

#include "p2p.h"

#define SIZE_MAX_B (1ULL << 30) /* one message at most 1 GiB: the buffers are 2 of these */

/* `fabprobe p2p --help`, which `run` prints after its own options. */
void p2p_usage(FILE *f)
{
	fputs("usage: mpirun [...] fabprobe p2p [options]\n"
	      "\n"
	      "Latency and bandwidth between every pair of nodes (one leader rank per node; every rank\n"
	      "when the job is on one node). Pairs run in rounds of disjoint pairs (circle method);\n"
	      "each ordered pair gives a ping-pong latency and a windowed-stream bandwidth.\n"
	      "\n"
	      "Measurement:\n"
	      "  -l, --lat-sizes LIST    ping-pong sizes, e.g. 8,64,4K (default 8; 'none' to skip)\n"
	      "  -s, --bw-sizes LIST     stream message sizes (default 4M; 'none' to skip)\n"
	      "  -n, --lat-iters N       timed ping-pongs per size (default 1000)\n"
	      "      --lat-warmup N      untimed ping-pongs before them (default 100)\n"
	      "      --lat-passes N      latency measured in N passes over the pairs, each in another\n"
	      "                          round order (default 2; 1-4); a pair's latency figures are\n"
	      "                          those of its pass with the lowest minimum, so that a slow\n"
	      "                          spell of the host or the fabric lands on few pairs of all\n"
	      "                          passes. Only the last pass measures bandwidth\n"
	      "      --bw-iters N        timed windows per size (default 8)\n"
	      "      --bw-warmup N       warm-up windows at least (default 2; 0: none); the warm-up goes\n"
	      "                          on until two consecutive windows agree within --bw-tolerance\n"
	      "      --bw-tolerance PCT  (default 5) or --bw-warmup-time SEC is spent (default 2; the\n"
	      "                          row then says 'not converged'); bw_GBps is the median window\n"
	      "                          rate, bw_GBps_total total bytes / total time\n"
	      "  -W, --window N          messages per window, acknowledged by the receiver (default 64)\n"
	      "  -p, --paths LIST        paths to test: mpi, tcp:<netdev>, verbs:<dev>:<port> (default\n"
	      "                          mpi; `run`: every path the inventory found)\n"
	      "  -c, --concurrency K     at most K pairs in flight at once (default: a whole round)\n"
	      "  -t, --pair-timeout SEC  deadline of one pair (default: from the estimate, generous)\n"
	      "      --placement MODE    auto (default): where a machine's endpoints outnumber its cores\n"
	      "                          (an emulated cluster), the two sides of each pair measure on\n"
	      "                          one core, the pairs spread over the cores; shared: so even\n"
	      "                          where they do not; none: the kernel places them\n"
	      "RDMA (verbs paths):\n"
	      "      --tclass N          traffic class of the packets, 0..255 (RoCE: DSCP << 2, which\n"
	      "                          picks the switch queue; default: NCCL_IB_TC, else 0)\n"
	      "      --sl N              InfiniBand service level, 0..15 (default: NCCL_IB_SL, else 0)\n"
	      "      --flow-label N      flow label, 0..1048575 (default 0)\n"
	      "Output:\n"
	      RESULTS_HELP
	      "      --progress, --no-progress  progress line on stderr (default: when a terminal)\n"
	      "Testing:\n"
	      "      --test-stall RANK   world rank RANK stalls past the deadline in its first pair\n"
	      "      --test-fault F:RANK world rank RANK acts out a transport fault F: bad-token,\n"
	      "                          no-connect, reset, stranger (tcp)\n"
	      "  -h, --help\n"
	      "\n"
	      "Sizes take K, M, G suffixes (powers of 1024). Rates are reported in GB/s (10^9 B/s).\n"
	      "Writes results/<UTC time>[-NAME]/: p2p.csv, latency_<path>.csv, bandwidth_<path>.csv,\n"
	      "meta.json. Exit: 0 all pairs ok, 1 a pair failed, 2 usage error, 3 runtime error.\n",
	      f);
}

enum { O_LAT_WARMUP = 256, O_LAT_PASSES, O_BW_ITERS, O_BW_WARMUP, O_BW_TOL, O_BW_WARMUP_TIME, O_PROGRESS, O_NO_PROGRESS,
       O_STALL, O_FAULT, O_TCLASS, O_SL, O_FLOW_LABEL, O_PLACEMENT };

static const struct option p2p_long_opts[] = {
	{ "lat-sizes", required_argument, NULL, 'l' },
	{ "bw-sizes", required_argument, NULL, 's' },
	{ "lat-iters", required_argument, NULL, 'n' },
	{ "lat-warmup", required_argument, NULL, O_LAT_WARMUP },
	{ "lat-passes", required_argument, NULL, O_LAT_PASSES },
	{ "bw-iters", required_argument, NULL, O_BW_ITERS },
	{ "bw-warmup", required_argument, NULL, O_BW_WARMUP },
	{ "bw-tolerance", required_argument, NULL, O_BW_TOL },
	{ "bw-warmup-time", required_argument, NULL, O_BW_WARMUP_TIME },
	{ "window", required_argument, NULL, 'W' },
	{ "paths", required_argument, NULL, 'p' },
	{ "concurrency", required_argument, NULL, 'c' },
	{ "pair-timeout", required_argument, NULL, 't' },
	{ "progress", no_argument, NULL, O_PROGRESS },
	{ "no-progress", no_argument, NULL, O_NO_PROGRESS },
	{ "tclass", required_argument, NULL, O_TCLASS },
	{ "sl", required_argument, NULL, O_SL },
	{ "flow-label", required_argument, NULL, O_FLOW_LABEL },
	{ "placement", required_argument, NULL, O_PLACEMENT },
	{ "test-stall", required_argument, NULL, O_STALL },
	{ "test-fault", required_argument, NULL, O_FAULT },
	{ NULL, 0, NULL, 0 },
};
int p2p_paths_parse(const char *opt, const char *s, char (*paths)[P2P_PATH_MAX], int *npaths, char *err)
{
	char buf[P2P_PATHS_MAX * P2P_PATH_MAX], *tok, *save = NULL;
	int j;

	if (strlen(s) >= sizeof buf)
		OPTS_FAIL("%s: list is too long", opt);
	strcpy(buf, s);
	*npaths = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*npaths == P2P_PATHS_MAX)
			OPTS_FAIL("%s: more than %d paths", opt, P2P_PATHS_MAX);
		if (strlen(tok) >= P2P_PATH_MAX)
			OPTS_FAIL("%s: '%.60s…' is too long", opt, tok);
		const struct transport_ops *tr = transport_find(tok);
		const char *arg = strchr(tok, ':') ? strchr(tok, ':') + 1 : NULL;
		char why[TR_WHY_MAX];

		if (!tr) {
			char known[128] = "";

			for (int i = 0; transport_registry[i]; i++)
				snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s",
					 i ? ", " : "", transport_registry[i]->name);
			OPTS_FAIL("%s: unknown path '%s' (known: %s)", opt, tok, known);
		}
		if (tr->absent)
			OPTS_FAIL("%s: '%s': %.180s", opt, tok, tr->absent);
		/* a malformed spec is refused here, before any rank starts */
		if (tr->check && tr->check(arg, why))
			OPTS_FAIL("%s: '%s': %.180s", opt, tok, why);
		for (int i = 0; i < *npaths; i++)
			if (!strcmp(paths[i], tok))
				OPTS_FAIL("%s: '%s' is given twice", opt, tok);
		strcpy(paths[(*npaths)++], tok);
		if ((j = p2p_path_clash((const char (*)[P2P_PATH_MAX])paths, *npaths - 1)) >= 0)
			OPTS_FAIL("%s: '%s' and '%s' would write the same files (':' and '/' become '_' in a file name)",
				  opt, paths[j], tok);
	}
	if (*npaths == 0)
		OPTS_FAIL("%s: expected a comma-separated list of paths", opt);
	return 0;
}

/* --test-fault KIND:RANK. */
static int parse_fault(const char *s, struct p2p_opts *o, char *err)
{
	static const char *const kinds[] = { "", "bad-token", "no-connect", "reset", "stranger" };
	const char *colon = strchr(s, ':');

	for (int k = 1; colon && k <= TR_FAULT_STRANGER; k++)
		if (strlen(kinds[k]) == (size_t)(colon - s) && !strncmp(s, kinds[k], (size_t)(colon - s))) {
			o->test_fault = k;
			return opts_long("--test-fault", colon + 1, 0, 10000000, &o->test_fault_rank, err);
		}
	OPTS_FAIL("--test-fault: expected bad-token:RANK, no-connect:RANK, reset:RANK or stranger:RANK, got '%.100s'", s);
}

/* The merged, sorted size sweep from the two lists. */
static void merge_sizes(struct p2p_opts *o, const uint64_t *lat, int nlat, const uint64_t *bw, int nbw)
{
	int i = 0, j = 0;

	o->nsizes = 0;
	while (i < nlat || j < nbw) {
		struct p2p_size *z = &o->sizes[o->nsizes++];
		uint64_t next = i < nlat && (j >= nbw || lat[i] <= bw[j]) ? lat[i] : bw[j];

		z->bytes = next;
		z->lat = i < nlat && lat[i] == next;
		z->bw = j < nbw && bw[j] == next;
		i += z->lat;
		j += z->bw;
	}
}

/* -l or -s: a list of sizes, or none. */
static int size_list(const char *opt, const char *s, uint64_t *out, int *n, char *err)
{
	if (!strcmp(s, "none")) {
		*n = 0;
		return 0;
	}
	return opts_size_list(opt, s, 1, SIZE_MAX_B, out, n, err);
}

/* a QoS field of 0..max */
static int qos_field(const char *name, const char *arg, long max, int *out, char *err)
{
	long v;
	int rc = opts_long(name, arg, 0, max, &v, err);

	if (rc == 0)
		*out = (int)v;
	return rc;
}

/* One option of p2p_long_opts (or its letter) into o. */
static int p2p_opts_take(void *ctx, int c, const char *arg, char *err)
{
	struct p2p_opts *o = ctx;
	double pct;
	int rc;

	switch (c) {
	case 'l': return size_list("--lat-sizes", arg, o->lat_list, &o->nlat, err);
	case 's': return size_list("--bw-sizes", arg, o->bw_list, &o->nbw, err);
	case 'n': return opts_long("--lat-iters", arg, 1, 10000000, &o->lat_iters, err);
	case O_LAT_WARMUP: return opts_long("--lat-warmup", arg, 0, 10000000, &o->lat_warmup, err);
	case O_LAT_PASSES: return opts_long("--lat-passes", arg, 1, 4, &o->lat_passes, err);
	case O_BW_ITERS: return opts_long("--bw-iters", arg, 1, 1000000, &o->bw_iters, err);
	case O_BW_WARMUP: return opts_long("--bw-warmup", arg, 0, 1000000, &o->bw_warmup, err);
	case O_BW_TOL:
		if ((rc = opts_percent("--bw-tolerance", arg, 100, &pct, err)) == 0)
			o->bw_tolerance = pct / 100;
		return rc;
	case O_BW_WARMUP_TIME: return opts_seconds("--bw-warmup-time", arg, 3600, &o->bw_warmup_time, err);
	case 'W': return opts_long("--window", arg, 1, 4096, &o->window, err);
	case O_TCLASS: return qos_field("--tclass", arg, 255, &o->qos.tclass, err);
	case O_SL: return qos_field("--sl", arg, 15, &o->qos.sl, err);
	case O_FLOW_LABEL: return qos_field("--flow-label", arg, 0xfffff, &o->qos.flow_label, err);
	case 'p': o->paths_given = 1; return p2p_paths_parse("--paths", arg, o->paths, &o->npaths, err);
	case 'c': return opts_long("--concurrency", arg, 1, 1000000, &o->concurrency, err);
	case 't': return opts_seconds("--pair-timeout", arg, 86400, &o->pair_timeout, err);
	case O_PLACEMENT:
		if (!strcmp(arg, "auto") || !strcmp(arg, "shared") || !strcmp(arg, "none")) {
			o->placement = arg[0] == 'a' ? P2P_PLACE_AUTO : arg[0] == 's' ? P2P_PLACE_SHARED : P2P_PLACE_NONE;
			return 0;
		}
		OPTS_FAIL("--placement: '%.40s' is not auto, shared or none", arg);
	case O_PROGRESS: o->progress = 1; return 0;
	case O_NO_PROGRESS: o->progress = 0; return 0;
	case O_STALL: return opts_long("--test-stall", arg, 0, 10000000, &o->test_stall_rank, err);
	case O_FAULT: return parse_fault(arg, o, err);
	default: OPTS_FAIL("internal: option %d is not one of p2p's", c);
	}
}

/* After every option: something to measure, the results directory, the size sweep. */
static int p2p_opts_finish(void *ctx, char *err)
{
	struct p2p_opts *o = ctx;
	int rc;

	if (o->nlat == 0 && o->nbw == 0)
		OPTS_FAIL("--lat-sizes none and --bw-sizes none: nothing left to measure");
	if ((rc = results_where_check(&o->where, err)))
		return rc;
	merge_sizes(o, o->lat_list, o->nlat, o->bw_list, o->nbw);
	return 0;
}

int p2p_opts_groups(struct p2p_opts *o, struct opts_group *g)
{
	*o = (struct p2p_opts){ .lat_iters = 1000, .lat_warmup = 100, .lat_passes = 2, .bw_iters = 8, .bw_warmup = 2,
				.bw_warmup_time = 2, .bw_tolerance = 5.0 / 100, .window = 64, .test_stall_rank = -1,
				.progress = -1, .test_fault_rank = -1, .lat_list = { 8 }, .nlat = 1,
				.bw_list = { 4ULL << 20 }, .nbw = 1, .qos = { -1, -1, -1 } };
	strcpy(o->paths[0], "mpi");
	o->npaths = 1;
	g[0] = (struct opts_group){ .longopts = p2p_long_opts, .shortopts = "l:s:n:W:p:c:t:", .take = p2p_opts_take,
				    .finish = p2p_opts_finish, .ctx = o };
	g[1] = results_where_group(&o->where, 1);
	return 2;
}

int p2p_opts_parse(int argc, char **argv, struct p2p_opts *o, char *err)
{
	struct opts_group g[2];
	int n = p2p_opts_groups(o, g);

	return opts_parse(argc, argv, g, n, NULL, err);
}

void p2p_opts_only(const struct p2p_opts *o, int lat, int bw, struct p2p_opts *out)
{
	*out = *o;
	out->nsizes = 0;
	for (int i = 0; i < o->nsizes; i++) {
		struct p2p_size z = { o->sizes[i].bytes, lat && o->sizes[i].lat, bw && o->sizes[i].bw };

		if (z.lat || z.bw)
			out->sizes[out->nsizes++] = z;
	}
	out->nlat = lat ? o->nlat : 0;
	out->nbw = bw ? o->nbw : 0;
}

/* ---------------------------------------------------------------- estimates */

double p2p_pair_estimate(const struct p2p_opts *o, double lat_us, double GBps)
{
	/* a warm-up that converges at once: two windows that agree (at least --bw-warmup) */
	long warm = o->bw_warmup ? (o->bw_warmup > 2 ? o->bw_warmup : 2) : 0;
	double t = 0;

	for (int i = 0; i < o->nsizes; i++) {
		const struct p2p_size *z = &o->sizes[i];
		double wire = (double)z->bytes / (GBps * 1e9);

		if (z->lat) /* every latency pass (--lat-passes) */
			t += (double)o->lat_passes * (double)(o->lat_iters + o->lat_warmup) * 2 * (lat_us * 1e-6 + wire);
		if (z->bw)
			t += (double)(o->bw_iters + warm) *
			     ((double)o->window * wire + 2 * lat_us * 1e-6);
	}
	return 2 * t; /* both directions */
}

double p2p_default_timeout(const struct p2p_opts *o)
{
	int nbw = 0;
	double t;

	for (int i = 0; i < o->nsizes; i++)
		nbw += o->sizes[i].bw;
	/* a warm-up that never converges stops at its budget, in each direction at each size */
	t = 10 + 3 * p2p_pair_estimate(o, 100, 0.125) + 2 * nbw * (o->bw_warmup ? o->bw_warmup_time : 0);
	return t < P2P_DEADLINE_MAX ? t : P2P_DEADLINE_MAX;
}
