/* p2p_opts.c — `fabprobe p2p` options: parsing, validation, defaults and the estimate. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "core/log.h"
#include "core/run.h"
#include "core/world.h"
#include "fabric/emit.h"
#include "p2p/p2p.h"

#define SIZE_MAX_B (1ULL << 30) /* one message at most 1 GiB: the buffers are 2 of these */

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
	      "      --bw-iters N        timed windows per size (default 8)\n"
	      "      --bw-warmup N       untimed windows before them (default 2)\n"
	      "  -W, --window N          messages per window, acknowledged by the receiver (default 64)\n"
	      "  -p, --paths LIST        paths to test (default mpi)\n"
	      "  -c, --concurrency K     at most K pairs in flight at once (default: a whole round)\n"
	      "  -t, --pair-timeout SEC  deadline of one pair (default: from the estimate, generous)\n"
	      "Output:\n"
	      "  -o, --output DIR        write into DIR (new or empty)\n"
	      "      --name NAME         add -NAME to the default directory name\n"
	      "      --results-root DIR  where default directories go (default results)\n"
	      "      --progress, --no-progress  progress line on stderr (default: when a terminal)\n"
	      "Testing:\n"
	      "      --test-stall RANK   world rank RANK stalls past the deadline in its first pair\n"
	      "      --test-fault F:RANK world rank RANK acts out a transport fault F: bad-token,\n"
	      "                          no-connect, reset (tcp)\n"
	      "  -h, --help\n"
	      "\n"
	      "Sizes take K, M, G suffixes (powers of 1024). Rates are reported in GB/s (10^9 B/s).\n"
	      "Writes results/<UTC time>[-NAME]/: p2p.csv, latency_<path>.csv, bandwidth_<path>.csv,\n"
	      "meta.json. Exit: 0 all pairs ok, 1 a pair failed, 2 usage error, 3 runtime error.\n",
	      f);
}

enum { O_LAT_WARMUP = 256, O_BW_ITERS, O_BW_WARMUP, O_PROGRESS, O_NO_PROGRESS,
       O_STALL, O_FAULT, O_SLOTS, O_LABEL_PREFIX, O_COLL_MAX, O_NO_COLL, O_NO_INVENTORY };

static const struct option long_opts[] = {
	{ "lat-sizes", required_argument, NULL, 'l' },
	{ "bw-sizes", required_argument, NULL, 's' },
	{ "lat-iters", required_argument, NULL, 'n' },
	{ "lat-warmup", required_argument, NULL, O_LAT_WARMUP },
	{ "bw-iters", required_argument, NULL, O_BW_ITERS },
	{ "bw-warmup", required_argument, NULL, O_BW_WARMUP },
	{ "window", required_argument, NULL, 'W' },
	{ "paths", required_argument, NULL, 'p' },
	{ "concurrency", required_argument, NULL, 'c' },
	{ "pair-timeout", required_argument, NULL, 't' },
	RESULTS_LONG_OPTIONS,
	{ "progress", no_argument, NULL, O_PROGRESS },
	{ "no-progress", no_argument, NULL, O_NO_PROGRESS },
	{ "test-stall", required_argument, NULL, O_STALL },
	{ "test-fault", required_argument, NULL, O_FAULT },
	{ "slots", required_argument, NULL, O_SLOTS },
	{ "label-prefix", required_argument, NULL, O_LABEL_PREFIX },
	{ "coll-max", required_argument, NULL, O_COLL_MAX },
	{ "no-coll", no_argument, NULL, O_NO_COLL },
	{ "no-inventory", no_argument, NULL, O_NO_INVENTORY },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_paths(const char *s, struct p2p_opts *o, char *err)
{
	char buf[P2P_PATHS_MAX * P2P_PATH_MAX], *tok, *save = NULL;

	if (strlen(s) >= sizeof buf)
		OPTS_FAIL("--paths: list is too long");
	strcpy(buf, s);
	o->npaths = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->npaths == P2P_PATHS_MAX)
			OPTS_FAIL("--paths: more than %d paths", P2P_PATHS_MAX);
		if (strlen(tok) >= P2P_PATH_MAX)
			OPTS_FAIL("--paths: '%s' is too long", tok);
		const struct transport_ops *tr = transport_find(tok);

		if (!tr) {
			char known[256] = "";

			for (int i = 0; transport_registry[i]; i++)
				snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s",
					 i ? ", " : "", transport_registry[i]->name);
			OPTS_FAIL("--paths: unknown path '%s' (known: %s)", tok, known);
		}
		if (tr->absent)
			OPTS_FAIL("--paths: '%s': %s", tok, tr->absent);
		for (int i = 0; i < o->npaths; i++)
			if (!strcmp(o->paths[i], tok))
				OPTS_FAIL("--paths: '%s' is given twice", tok);
		strcpy(o->paths[o->npaths++], tok);
	}
	if (o->npaths == 0)
		OPTS_FAIL("--paths: expected a comma-separated list of paths");
	return 0;
}

static int parse_fault(const char *s, struct p2p_opts *o, char *err)
{
	static const char *const kinds[] = { "", "bad-token", "no-connect", "reset" };
	const char *colon = strchr(s, ':');

	for (int k = 1; colon && k <= TR_FAULT_RESET; k++)
		if (strlen(kinds[k]) == (size_t)(colon - s) && !strncmp(s, kinds[k], (size_t)(colon - s))) {
			o->test_fault = k;
			return opts_long("--test-fault", colon + 1, 0, 10000000, &o->test_fault_rank, err);
		}
	OPTS_FAIL("--test-fault: expected bad-token:RANK, no-connect:RANK or reset:RANK, got '%.100s'", s);
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

static int size_list(const char *opt, const char *s, uint64_t *out, int *n, char *err)
{
	if (!strcmp(s, "none")) {
		*n = 0;
		return 0;
	}
	return opts_size_list(opt, s, 1, SIZE_MAX_B, out, n, err);
}

int p2p_opts_parse(int argc, char **argv, struct p2p_opts *o, char *err)
{
	uint64_t lat[OPTS_LIST_MAX] = { 8 }, bw[OPTS_LIST_MAX] = { 4ULL << 20 };
	int nlat = 1, nbw = 1, c, rc = 0;
	int run_mode = argc > 0 && !strcmp(argv[0], "run");

	*o = (struct p2p_opts){ .lat_iters = 1000, .lat_warmup = 100, .bw_iters = 8, .bw_warmup = 2,
				.window = 64, .test_stall_rank = -1, .progress = -1,
				.label_prefix = "fabprobe", .test_fault_rank = -1, .coll_max = "64M" };
	strcpy(o->paths[0], "mpi");
	o->npaths = 1;
	optind = 0; /* GNU: re-initialise, so that the parser can be called more than once */
	opterr = 0;
	while (rc == 0 && (c = getopt_long(argc, argv, ":l:s:n:W:p:c:t:o:h", long_opts, NULL)) != -1) {
		switch (c) {
		case 'l': rc = size_list("--lat-sizes", optarg, lat, &nlat, err); break;
		case 's': rc = size_list("--bw-sizes", optarg, bw, &nbw, err); break;
		case 'n': rc = opts_long("--lat-iters", optarg, 1, 10000000, &o->lat_iters, err); break;
		case O_LAT_WARMUP: rc = opts_long("--lat-warmup", optarg, 0, 10000000, &o->lat_warmup, err); break;
		case O_BW_ITERS: rc = opts_long("--bw-iters", optarg, 1, 1000000, &o->bw_iters, err); break;
		case O_BW_WARMUP: rc = opts_long("--bw-warmup", optarg, 0, 1000000, &o->bw_warmup, err); break;
		case 'W': rc = opts_long("--window", optarg, 1, 4096, &o->window, err); break;
		case 'p': rc = parse_paths(optarg, o, err); break;
		case 'c': rc = opts_long("--concurrency", optarg, 1, 1000000, &o->concurrency, err); break;
		case 't': rc = opts_seconds("--pair-timeout", optarg, 86400, &o->pair_timeout, err); break;
		case 'o': rc = results_where_opt(&o->where, RESULTS_OPT_OUTPUT, optarg, err); break;
		case RESULTS_OPT_OUTPUT: case RESULTS_OPT_NAME: case RESULTS_OPT_ROOT:
			rc = results_where_opt(&o->where, c, optarg, err);
			break;
		case O_PROGRESS: o->progress = 1; break;
		case O_NO_PROGRESS: o->progress = 0; break;
		case O_STALL: rc = opts_long("--test-stall", optarg, 0, 10000000, &o->test_stall_rank, err); break;
		case O_FAULT: rc = parse_fault(optarg, o, err); break;
		case O_SLOTS:
			if (!run_mode)
				OPTS_FAIL("--slots belongs to fabprobe run and topo, not p2p");
			rc = opts_long("--slots", optarg, 1, 4096, &o->slots, err);
			break;
		case O_LABEL_PREFIX:
			if (!run_mode)
				OPTS_FAIL("--label-prefix belongs to fabprobe run and topo, not p2p");
			if (!emit_label_prefix_ok(optarg))
				OPTS_FAIL("--label-prefix: '%.100s' is not a DNS subdomain (lower case letters, "
				     "digits, '-' and '.')", optarg);
			o->label_prefix = optarg;
			break;
		case O_COLL_MAX:
		case O_NO_COLL:
		case O_NO_INVENTORY: {
			uint64_t v;

			if (!run_mode)
				OPTS_FAIL("--coll-max, --no-coll and --no-inventory belong to fabprobe run, not p2p");
			if (c == O_COLL_MAX) {
				rc = opts_size("--coll-max", optarg, 8, 1ULL << 34, &v, err);
				o->coll_max = optarg;
			}
			o->no_coll |= c == O_NO_COLL;
			o->no_inventory |= c == O_NO_INVENTORY;
			break;
		}
		case 'h': return 1;
		case ':': OPTS_FAIL("option %s needs a value", argv[optind - 1]);
		default: OPTS_FAIL("unknown option %s (see fabprobe %s --help)", argv[optind - 1], argv[0]);
		}
	}
	if (rc)
		return rc;
	if (optind < argc)
		OPTS_FAIL("unexpected argument '%s' (see fabprobe %s --help)", argv[optind], argv[0]);
	if (nlat == 0 && nbw == 0)
		OPTS_FAIL("--lat-sizes none and --bw-sizes none: nothing left to measure");
	if ((rc = results_where_check(&o->where, err)))
		return rc;
	merge_sizes(o, lat, nlat, bw, nbw);
	return 0;
}

double p2p_pair_estimate(const struct p2p_opts *o, double lat_us, double GBps)
{
	double t = 0;

	for (int i = 0; i < o->nsizes; i++) {
		const struct p2p_size *z = &o->sizes[i];
		double wire = (double)z->bytes / (GBps * 1e9);

		if (z->lat)
			t += (double)(o->lat_iters + o->lat_warmup) * 2 * (lat_us * 1e-6 + wire);
		if (z->bw)
			t += (double)(o->bw_iters + o->bw_warmup) * ((double)o->window * wire + 2 * lat_us * 1e-6);
	}
	return 2 * t; /* both directions */
}

double p2p_default_timeout(const struct p2p_opts *o)
{
	return 10 + 3 * p2p_pair_estimate(o, 100, 0.125);
}

const char *p2p_status_name(int status)
{
	static const char *const names[] = { "ok", "skipped", "error", "timeout" };

	return status >= 0 && status <= P2P_TIMEOUT ? names[status] : "unknown";
}

static int p2p_body(struct world *w, struct run_out *ro, void *arg)
{
	ro->after = cmd_report_after;
	return w->my_ep >= 0 ? p2p_main(arg, w, ro, NULL) : 0;
}

int cmd_p2p(int argc, char **argv)
{
	static const struct cmd_stage stage = { .name = "p2p", .usage = p2p_usage, .body = p2p_body };
	struct p2p_opts o;
	char err[OPTS_ERR_MAX];
	int rc = p2p_opts_parse(argc, argv, &o, err);

	return cmd_measure(&stage, argc, argv, rc, err, &o.where, o.progress, &o);
}
