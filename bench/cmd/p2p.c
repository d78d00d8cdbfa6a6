/* p2p.c — `fabprobe p2p`: options (shared with `run`), usage, and the command. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "core/log.h"
#include "core/run.h"
#include "core/world.h"
#include "fabric/emit/emit.h"
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

enum { O_LAT_WARMUP = 256, O_BW_ITERS, O_BW_WARMUP, O_BW_TOL, O_BW_WARMUP_TIME, O_PROGRESS, O_NO_PROGRESS,
       O_STALL, O_FAULT };

static const struct option p2p_long_opts[] = {
	{ "lat-sizes", required_argument, NULL, 'l' },
	{ "bw-sizes", required_argument, NULL, 's' },
	{ "lat-iters", required_argument, NULL, 'n' },
	{ "lat-warmup", required_argument, NULL, O_LAT_WARMUP },
	{ "bw-iters", required_argument, NULL, O_BW_ITERS },
	{ "bw-warmup", required_argument, NULL, O_BW_WARMUP },
	{ "bw-tolerance", required_argument, NULL, O_BW_TOL },
	{ "bw-warmup-time", required_argument, NULL, O_BW_WARMUP_TIME },
	{ "window", required_argument, NULL, 'W' },
	{ "paths", required_argument, NULL, 'p' },
	{ "concurrency", required_argument, NULL, 'c' },
	{ "pair-timeout", required_argument, NULL, 't' },
	RESULTS_LONG_OPTIONS,
	{ "progress", no_argument, NULL, O_PROGRESS },
	{ "no-progress", no_argument, NULL, O_NO_PROGRESS },
	{ "test-stall", required_argument, NULL, O_STALL },
	{ "test-fault", required_argument, NULL, O_FAULT },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};
#define P2P_NLONG ((int)(sizeof p2p_long_opts / sizeof p2p_long_opts[0]) - 1)
#define EXT_MAX 32

/* p2p's long options followed by ext's, into all (room for P2P_NLONG + EXT_MAX + 1). */
static void long_opts_join(const struct opts_ext *ext, struct option *all)
{
	int n = 0;

	for (int i = 0; i < P2P_NLONG; i++)
		all[n++] = p2p_long_opts[i];
	for (int i = 0; ext && ext->longopts[i].name && i < EXT_MAX; i++)
		all[n++] = ext->longopts[i];
	all[n] = (struct option){ NULL, 0, NULL, 0 };
}

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
			OPTS_FAIL("--paths: '%.60s…' is too long", tok);
		const struct transport_ops *tr = transport_find(tok);
		const char *arg = strchr(tok, ':') ? strchr(tok, ':') + 1 : NULL;
		char why[TR_WHY_MAX];

		if (!tr) {
			char known[128] = "";

			for (int i = 0; transport_registry[i]; i++)
				snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s",
					 i ? ", " : "", transport_registry[i]->name);
			OPTS_FAIL("--paths: unknown path '%s' (known: %s)", tok, known);
		}
		if (tr->absent)
			OPTS_FAIL("--paths: '%s': %.180s", tok, tr->absent);
		/* a malformed spec is refused here, before any rank starts */
		if (tr->check && tr->check(arg, why))
			OPTS_FAIL("--paths: '%s': %.180s", tok, why);
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

static int size_list(const char *opt, const char *s, uint64_t *out, int *n, char *err)
{
	if (!strcmp(s, "none")) {
		*n = 0;
		return 0;
	}
	return opts_size_list(opt, s, 1, SIZE_MAX_B, out, n, err);
}

int p2p_opts_parse(int argc, char **argv, struct p2p_opts *o, const struct opts_ext *ext, char *err)
{
	uint64_t lat[OPTS_LIST_MAX] = { 8 }, bw[OPTS_LIST_MAX] = { 4ULL << 20 };
	struct option all[P2P_NLONG + EXT_MAX + 1];
	int nlat = 1, nbw = 1, c, rc = 0;
	double pct = 5;

	*o = (struct p2p_opts){ .lat_iters = 1000, .lat_warmup = 100, .bw_iters = 8, .bw_warmup = 2,
				.bw_warmup_time = 2,
				.window = 64, .test_stall_rank = -1, .progress = -1, .test_fault_rank = -1 };
	strcpy(o->paths[0], "mpi");
	o->npaths = 1;
	long_opts_join(ext, all);
	optind = 0; /* GNU: re-initialise, so that the parser can be called more than once */
	opterr = 0;
	while (rc == 0 && (c = getopt_long(argc, argv, ":l:s:n:W:p:c:t:o:h", all, NULL)) != -1) {
		if (ext && c >= CMD_EXT_OPT) {
			rc = ext->take(ext->ctx, c, optarg, err);
			continue;
		}
		switch (c) {
		case 'l': rc = size_list("--lat-sizes", optarg, lat, &nlat, err); break;
		case 's': rc = size_list("--bw-sizes", optarg, bw, &nbw, err); break;
		case 'n': rc = opts_long("--lat-iters", optarg, 1, 10000000, &o->lat_iters, err); break;
		case O_LAT_WARMUP: rc = opts_long("--lat-warmup", optarg, 0, 10000000, &o->lat_warmup, err); break;
		case O_BW_ITERS: rc = opts_long("--bw-iters", optarg, 1, 1000000, &o->bw_iters, err); break;
		case O_BW_WARMUP: rc = opts_long("--bw-warmup", optarg, 0, 1000000, &o->bw_warmup, err); break;
		case O_BW_TOL: rc = opts_percent("--bw-tolerance", optarg, 100, &pct, err); break;
		case O_BW_WARMUP_TIME: rc = opts_seconds("--bw-warmup-time", optarg, 3600, &o->bw_warmup_time, err); break;
		case 'W': rc = opts_long("--window", optarg, 1, 4096, &o->window, err); break;
		case 'p': rc = parse_paths(optarg, o, err), o->paths_given = 1; break;
		case 'c': rc = opts_long("--concurrency", optarg, 1, 1000000, &o->concurrency, err); break;
		case 't': rc = opts_seconds("--pair-timeout", optarg, 86400, &o->pair_timeout, err); break;
		case 'o': rc = results_where_opt(&o->where, RESULTS_OPT_OUTPUT, optarg, err); break;
		RESULTS_OPT_CASES:
			rc = results_where_opt(&o->where, c, optarg, err);
			break;
		case O_PROGRESS: o->progress = 1; break;
		case O_NO_PROGRESS: o->progress = 0; break;
		case O_STALL: rc = opts_long("--test-stall", optarg, 0, 10000000, &o->test_stall_rank, err); break;
		case O_FAULT: rc = parse_fault(optarg, o, err); break;
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
	o->bw_tolerance = pct / 100;
	return 0;
}

const char *p2p_status_name(int status)
{
	static const char *const names[] = { "ok", "skipped", "error", "timeout" };

	return status >= 0 && status <= P2P_TIMEOUT ? names[status] : "unknown";
}

/* The matrices in natural name order: `fabprobe p2p` infers no tree. */
static int p2p_body(struct world *w, struct run_out *ro, void *arg)
{
	ro->after = cmd_report_after;
	struct p2p_result res = { 0 };
	int *order = malloc(sizeof *order * (size_t)w->nep), rc = 0, wrc = 0;

	if (w->my_ep >= 0)
		rc = p2p_main(arg, w, ro, w->rank == 0 ? &res : NULL);
	for (int i = 0; order && i < res.npaths; i++) {
		p2p_order_natural(w->nep, w->labels, order);
		wrc |= p2p_matrices_write(ro->dir, &res.path[i], w->labels, order);
	}
	if (w->rank == 0 && !order)
		wrc = FP_ERUNTIME;
	p2p_result_free(&res);
	free(order);
	return rc < 0 ? rc : wrc ? FP_ERUNTIME : rc;
}

/* Before the run: two endpoints at least, or there is nothing to measure (every rank knows
 * the endpoints alike, so every rank decides alike). */
static int p2p_check(struct world *w, void *arg)
{
	(void)arg;
	if (w->nep >= 2)
		return 0;
	if (w->rank == 0)
		fprintf(stderr, "fabprobe p2p: one endpoint (%s): nothing to measure; run 2 or more ranks "
			"(mpirun -np 2 … on one node, or one rank per node)\n", w->host);
	return FP_EUSAGE;
}

int cmd_p2p(int argc, char **argv)
{
	static const struct cmd_stage stage = { .name = "p2p", .usage = p2p_usage, .check = p2p_check,
						.body = p2p_body };
	struct p2p_opts o;
	char err[OPTS_ERR_MAX];
	int rc = p2p_opts_parse(argc, argv, &o, NULL, err);

	return cmd_measure(&stage, argc, argv, rc, err, &o.where, o.progress, &o);
}
