/* run_order.c — `run`'s order stage (run_stage.h): the node order, proven. After the map, an
 * all-reduce over the endpoints in three orders: the one node-order.txt lists (the compute
 * path's tree order), the launch order (the job's ranks) and a random one (a fixed seed). Each
 * order is a communicator of its own (MPI_Comm_split, the key the position), and in each two
 * all-reduces run (coll_allreduce_once): fabprobe's ring over the compute path's own transport
 * (bench/coll/coll_ring.c: reduce-scatter then all-gather, the pattern of NCCL's ring) and the
 * MPI library's, the orders in turn ORDER_ROUNDS times, the last round's results checked
 * element by element. Rank 0 puts busbw per order beside what the map predicts for a ring in that
 * order (infer_ring_GBps: the pairs' bandwidth and the uplinks' share), on the terminal, in
 * order_check.csv (with the hosts in the order each communicator ranks them) and in meta.json.
 * A wrong element counts as wrong collective results in the verdict. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/mpi_util.h"
#include "core/results.h"
#include "fabric/io/check_csv.h"
#include "run_stage.h"

#define ORDER_SEED 0x2026120111ULL /* the random order: the same on every run */
#define ORDER_ITERS 1
#define ORDER_WARMUP 1  /* before the first round */
#define ORDER_ROUNDS 3  /* the orders in turn, this many times; the median round counts, the
			 * last is checked */

enum { ORDER_WRITTEN, ORDER_LAUNCH, ORDER_RANDOM, ORDER_N };
static const char *const order_name[ORDER_N] = { "written", "launch", "random" };
enum { BK_RING, BK_MPI, BK_N };
static const char *const bk_name[BK_N] = { "ring", "mpi" };

/* one measurement: an order and a backend */
struct order_fig {
	double time_s, algbw, busbw;
	long long wrong;
};

/* ---------------------------------------------------------------- options */

enum { O_ORDER_SIZE = 1, O_NO_ORDER };

static int run_order_take(void *ctx, int val, const char *arg, char *err)
{
	struct run_opts *c = ctx;

	if (val == O_NO_ORDER) {
		c->no_order = 1;
		return 0;
	}
	return opts_size("--order-size", arg, 1024, 1ULL << 30, &c->order_size, err);
}

static int run_order_options(struct run_opts *c, struct opts_group *g)
{
	static const struct option lo[] = {
		{ "order-size", required_argument, NULL, O_ORDER_SIZE },
		{ "no-order", no_argument, NULL, O_NO_ORDER },
		{ NULL, 0, NULL, 0 },
	};

	c->order_size = 4ULL << 20;
	*g = (struct opts_group){ .longopts = lo, .take = run_order_take, .ctx = c };
	return 1;
}

/* with the collectives, unless --no-order */
static int run_order_on(const struct run_opts *c)
{
	return !c->no_coll && !c->no_order;
}

/* ---------------------------------------------------------------- the all-reduces */

/* One round of one backend on one order's communicator (coll_allreduce_once; the last round
 * checked); the bandwidths from the slowest endpoint's time, as nccl-tests has them. */
static int order_measure(int bk, MPI_Comm comm, const struct world *w, const char *path, size_t bytes, int round,
			 struct order_fig *fig)
{
	char why[320] = "";
	int rc = coll_allreduce_once(bk_name[bk], comm, path, w->host, bytes, round == 0 ? ORDER_WARMUP : 0, ORDER_ITERS,
				     round == ORDER_ROUNDS - 1, &fig->time_s, &fig->wrong, why, sizeof why);

	if (rc == 1) { /* the compute path is not one the ring can take: said, not measured */
		if (w->rank == 0)
			printf("node order: %s over %s: not measured: %s\n", bk_name[bk], path, why);
		fig->time_s = fig->algbw = fig->busbw = NAN;
		fig->wrong = 0;
		return 0;
	}
	if (rc)
		return rc;
	coll_bandwidth(&coll_ops[COLL_ALLREDUCE], bytes, fig->time_s * 1e6, w->nep, &fig->algbw, &fig->busbw);
	return 0;
}

/* The median round of order o and backend b (by time; NAN rounds last), its wrong elements
 * summed over every round. */
static struct order_fig order_median(struct order_fig (*round)[ORDER_N][BK_N], int o, int b)
{
	struct order_fig v[ORDER_ROUNDS], m;
	long long wrong = 0;

	for (int k = 0; k < ORDER_ROUNDS; k++) {
		v[k] = round[k][o][b];
		wrong += v[k].wrong;
	}
	for (int i = 1; i < ORDER_ROUNDS; i++) /* insertion sort of 3 */
		for (int j = i; j > 0 && (isnan(v[j - 1].time_s) || v[j].time_s < v[j - 1].time_s); j--) {
			struct order_fig t = v[j];

			v[j] = v[j - 1], v[j - 1] = t;
		}
	m = v[ORDER_ROUNDS / 2];
	m.wrong = wrong;
	return m;
}

/* ---------------------------------------------------------------- rank 0: plan and report */

/* the three orders (endpoint at each position); 0, or 1 when the map gives no reason to test
 * (said); FP_ERUNTIME */
static int order_plan(const struct run_state *st, const struct world *w, int *orders)
{
	const struct run_maps *mp = &st->mp;
	const struct infer_result *r = mp->npaths ? run_maps_map(mp, mp->compute) : NULL;
	int n = w->nep;
	unsigned long long x = ORDER_SEED;

	if (w->single_node || n < 3 || !r || r->n != n)
		return 1; /* one node's ranks, or no map: nothing to order */
	if (r->ntiers < 2) {
		printf("\nnode order: one switch tier in the map, every order alike: not measured\n");
		return 1;
	}
	for (int k = 0; k < n; k++) {
		orders[ORDER_WRITTEN * n + k] = r->order[k];
		orders[ORDER_LAUNCH * n + k] = k;
		orders[ORDER_RANDOM * n + k] = k;
	}
	for (int k = n - 1; k > 0; k--) { /* Fisher-Yates, xorshift64 */
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		int j = (int)(x % (unsigned long long)(k + 1)), t = orders[ORDER_RANDOM * n + k];

		orders[ORDER_RANDOM * n + k] = orders[ORDER_RANDOM * n + j];
		orders[ORDER_RANDOM * n + j] = t;
	}
	return 0;
}

/* rank 0: the table, order_check.csv, meta.json's member. seq: per order, the endpoints in
 * the rank order of its communicator. */
static int order_report(const struct world *w, struct run_out *ro, const struct run_opts *c,
			const struct run_maps *mp, const int *seq, struct order_fig (*fig)[BK_N])
{
	const struct infer_result *r = run_maps_map(mp, mp->compute);
	const float *bw = mp->p[mp->compute].m->bw;
	double pred[ORDER_N];
	int n = w->nep;
	struct results_file out;
	int rc;

	for (int o = 0; o < ORDER_N; o++)
		pred[o] = infer_ring_GBps(r, bw, n, seq + (size_t)o * n, n);
	printf("\nnode order: all-reduce of %llu B (float sum) over %d nodes, 3 orders in turn %d times after a warm-up, "
	       "the median (path %s: its map, its ring)\n", (unsigned long long)(c->order_size / sizeof(float) * sizeof(float)),
	       n, ORDER_ROUNDS, mp->p[mp->compute].m->path);
	printf("  %-8s %12s %12s %16s %7s  hosts\n", "order", "ring busbw", "mpi busbw", "map predicts", "#wrong");
	for (int o = 0; o < ORDER_N; o++) {
		printf("  %-8s %7.3f GB/s %7.3f GB/s %11.3f GB/s %7lld  ", order_name[o], fig[o][BK_RING].busbw,
		       fig[o][BK_MPI].busbw, pred[o], fig[o][BK_RING].wrong + fig[o][BK_MPI].wrong);
		for (int k = 0; k < n && k < 6; k++)
			printf("%s%s", k ? " " : "", w->labels[seq[(size_t)o * n + k]]);
		printf("%s\n", n > 6 ? " ..." : "");
	}
	double x = fig[ORDER_WRITTEN][BK_RING].busbw / fig[ORDER_LAUNCH][BK_RING].busbw;
	double xp = pred[ORDER_WRITTEN] / pred[ORDER_LAUNCH];
	printf("  ring in the written node order: %.3f GB/s, launch order: %.3f GB/s (x%.2f; the map predicts x%.2f)\n",
	       fig[ORDER_WRITTEN][BK_RING].busbw, fig[ORDER_LAUNCH][BK_RING].busbw, x, xp);
	fflush(stdout);

	/* meta.json: after the maps' members */
	struct jw *j = &ro->meta_extra;
	long long wrong = 0;

	jw_kobject(j, "node_order_check", 1);
	jw_kint(j, "size_B", (long long)(c->order_size / sizeof(float) * sizeof(float)));
	jw_kint(j, "nodes", n);
	jw_kstr(j, "backend", "ring");
	for (int o = 0; o < ORDER_N; o++) {
		char key[48];

		snprintf(key, sizeof key, "%s_busbw_GBps", order_name[o]);
		jw_knum(j, key, fig[o][BK_RING].busbw, -1);
		snprintf(key, sizeof key, "%s_predicted_GBps", order_name[o]);
		jw_knum(j, key, pred[o], -1);
		wrong += fig[o][BK_RING].wrong + fig[o][BK_MPI].wrong;
	}
	jw_knum(j, "speedup_vs_launch", x, -1);
	jw_knum(j, "predicted_speedup_vs_launch", xp, -1);
	jw_kint(j, "wrong", wrong);
	jw_end(j);

	/* order_check.csv */
	if ((rc = results_tmp_open(&out, ro->dir, "order_check.csv")))
		return rc;
	csv_header(out.f, order_csv_cols, ORDER_NCOLS);
	char *hosts = malloc((size_t)n * WORLD_LABEL_MAX + 1);

	for (int o = 0; hosts && o < ORDER_N; o++)
		for (int b = 0; b < BK_N; b++) {
			const struct order_fig *g = &fig[o][b];
			size_t k = 0;

			hosts[0] = 0;
			for (int i = 0; i < n; i++) /* host names are checked (no space, comma or quote) */
				k += (size_t)snprintf(hosts + k, WORLD_LABEL_MAX + 1, "%s%s", i ? " " : "",
						      w->labels[seq[(size_t)o * n + i]]);
			csv_row(out.f, order_csv_cols, ORDER_NCOLS, &(struct order_csv_row){
				.order = order_name[o], .backend = bk_name[b],
				.size_B = (int64_t)(c->order_size / sizeof(float) * sizeof(float)), .nodes = n,
				.iters = ORDER_ROUNDS * ORDER_ITERS, .time_us = g->time_s * 1e6, .algbw_GBps = g->algbw,
				.busbw_GBps = g->busbw, .predicted_busbw_GBps = isfinite(pred[o]) ? pred[o] : NAN,
				.wrong = g->wrong, .hosts = hosts });
		}
	if (!hosts) {
		results_tmp_abort(&out);
		LOG_ERROR("out of memory for order_check.csv");
		return FP_ERUNTIME;
	}
	free(hosts);
	return results_tmp_commit(&out);
}

/* ---------------------------------------------------------------- the stage */

/* An endpoint: a communicator per order (orders: each order's endpoints, rank 0's), the
 * all-reduce of each backend in each, ORDER_ROUNDS times in turn (a spell of the host lands in
 * one round of each; each figure is its median round) into fig; rank 0 reports (seq: scratch
 * for the orders as the communicators hold them). 0 or FP_E*. */
static int order_endpoints(struct world *w, struct run_out *ro, struct run_state *st, int *orders, int *seq,
			   const char *path, size_t bytes, struct order_fig fig[ORDER_N][BK_N])
{
	int n = w->nep, rc = 0, made = 0;
	MPI_Comm comm[ORDER_N];

	for (int o = 0; o < ORDER_N && !rc; o++, made++) {
		int key = 0, pos;

		while (orders[o * n + key] != w->my_ep)
			key++;
		if ((rc = MPI_RC(MPI_Comm_split(w->epcomm, 0, key, &comm[o]))))
			break;
		/* the communicator's own rank order, as endpoint 0 gathers it */
		if (!(rc = MPI_RC(MPI_Comm_rank(comm[o], &pos))))
			rc = MPI_RC(MPI_Gather(&pos, 1, MPI_INT, w->rank == 0 ? seq + (size_t)o * n : NULL, 1, MPI_INT, 0,
					       w->epcomm));
	}
	struct order_fig round[ORDER_ROUNDS][ORDER_N][BK_N];

	for (int k = 0; k < ORDER_ROUNDS && !rc; k++)
		for (int o = 0; o < ORDER_N && !rc; o++)
			for (int b = 0; b < BK_N && !rc; b++)
				rc = order_measure(b, comm[o], w, path, bytes, k, &round[k][o][b]);
	for (int o = 0; o < ORDER_N && !rc; o++)
		for (int b = 0; b < BK_N; b++)
			fig[o][b] = order_median(round, o, b);
	for (int o = 0; o < made; o++)
		MPI_Comm_free(&comm[o]);
	if (w->rank == 0 && !rc) {
		/* seq held each endpoint's position: turn it into the endpoint at each position */
		for (int o = 0; o < ORDER_N; o++) {
			int *p = seq + (size_t)o * n;

			for (int e = 0; e < n; e++)
				orders[p[e]] = e; /* orders' row 0 as scratch */
			memcpy(p, orders, sizeof *p * (size_t)n);
		}
		if (order_report(w, ro, st->c, &st->mp, seq, fig))
			rc = FP_ERUNTIME;
	}
	return rc;
}

/* Every rank: rank 0 plans, the endpoints measure, rank 0 reports; the others asleep. */
static int run_order_step(struct world *w, struct run_out *ro, struct run_state *st)
{
	int n = w->nep, go = 0, rc = 0;
	int *orders = malloc(sizeof *orders * (size_t)(ORDER_N * n + 1));
	int *seq = malloc(sizeof *seq * (size_t)(ORDER_N * n + 1));
	struct order_fig fig[ORDER_N][BK_N];
	size_t bytes = st->c->order_size / sizeof(float) * sizeof(float);
	char path[P2P_PATH_MAX] = "mpi";

	memset(fig, 0, sizeof fig);
	if (!orders || !seq)
		rc = FP_ERUNTIME;
	else if (w->rank == 0 && (go = (rc = order_plan(st, w, orders)) == 0))
		snprintf(path, sizeof path, "%s", st->mp.p[st->mp.compute].m->path);
	rc = rc < 0 ? rc : 0;
	/* the ring takes the compute path, whose map gives the order */
	if (mpi_allreduce_sleepy(&rc, MPI_MIN, MPI_COMM_WORLD) || rc ||
	    mpi_bcast_sleepy(&go, sizeof go, 0, MPI_COMM_WORLD) || !go ||
	    mpi_bcast_sleepy(orders, (int)(sizeof *orders * (size_t)(ORDER_N * n)), 0, MPI_COMM_WORLD) ||
	    mpi_bcast_sleepy(path, sizeof path, 0, MPI_COMM_WORLD))
		goto out;
	if (w->my_ep >= 0)
		rc = order_endpoints(w, ro, st, orders, seq, path, bytes, fig);
	if (mpi_allreduce_sleepy(&rc, MPI_MIN, MPI_COMM_WORLD))
		rc = FP_ERUNTIME;
	if (!rc && w->rank == 0) {
		for (int o = 0; o < ORDER_N; o++)
			for (int b = 0; b < BK_N; b++)
				if (fig[o][b].wrong) {
					st->crc = 1; /* wrong results: the verdict says so */
					st->coll.wrong_rows++;
				}
	}
out:
	free(orders);
	free(seq);
	return rc;
}

const struct run_stage run_stage_order = { .name = "order", .opts = run_order_options, .on = run_order_on,
					    .step = run_order_step };
