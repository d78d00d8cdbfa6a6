/* plan_sim.c — the measurement plan at scale, simulated (no MPI): for 1,024, 4,096 and 16,384
 * nodes on 2- and 3-tier trees, the pairs of each phase, the steps, the promises checked
 * (plan_check: every uplink exercised, none over its cap), rank 0's memory, the time to plan,
 * and each phase's predicted wall time per path on two fabrics, from the p2p engine's own
 * per-pair estimate at fabprobe's default sizes and the engine's per-step cost as given.
 *
 *   plan-sim [--step-ms A] [--step-us-per-ep B] [--peers K] [--streams S] [--nodes N]
 *
 * A + B x endpoints is the engine's own time per step (agreement, gather, rows):
 * scripts/bench-scale.sh measures it at 64, 128 and 256 endpoints and passes the fit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fabric/plan/plan.h"
#include "p2p/p2p.h"
#include "plan_tree.h"

struct fabric {
	const char *name;
	double lat_us, GBps;
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* one pair's cost at the default sizes: its latency sizes alone, its bandwidth sizes alone */
static void pair_costs(const struct fabric *f, double *lat_s, double *bw_s)
{
	struct p2p_opts lat, bw;
	char err[256];
	char *la[] = { "p2p", "-s", "none", NULL }, *ba[] = { "p2p", "-l", "none", NULL };

	if (p2p_opts_parse(3, la, &lat, err) || p2p_opts_parse(3, ba, &bw, err)) {
		fprintf(stderr, "plan-sim: %s\n", err);
		exit(2);
	}
	*lat_s = p2p_pair_estimate(&lat, f->lat_us, f->GBps);
	*bw_s = p2p_pair_estimate(&bw, f->lat_us, f->GBps);
}

static double arg_num(int argc, char **argv, const char *name, double dflt)
{
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], name)) {
			char *end;
			double v = strtod(argv[i + 1], &end);

			if (*end || v < 0) {
				fprintf(stderr, "plan-sim: %s: not a number >= 0: '%s'\n", name, argv[i + 1]);
				exit(2);
			}
			return v;
		}
	return dflt;
}

int main(int argc, char **argv)
{
	static const struct fabric fab[] = { { "IB NDR (2 us, 48 GB/s)", 2, 48 }, { "25GbE (15 us, 2.9 GB/s)", 15, 2.9 } };
	struct plan_opts o;
	struct plan_costs c = { .step_s = arg_num(argc, argv, "--step-ms", 1) * 1e-3,
				.step_per_ep_s = arg_num(argc, argv, "--step-us-per-ep", 2) * 1e-6 };
	int only = (int)arg_num(argc, argv, "--nodes", 0), bad = 0;

	plan_opts_default(&o);
	o.peers = (int)arg_num(argc, argv, "--peers", o.peers);
	o.uplink_streams = (int)arg_num(argc, argv, "--streams", o.uplink_streams);
	if (o.peers < 1 || o.uplink_streams < 1) {
		fprintf(stderr, "plan-sim: --peers and --streams take 1 or more\n");
		return 2;
	}
	printf("# the engine per step: %.3f ms + %.3f us x endpoints; peers %d, uplink streams %d\n",
	       c.step_s * 1e3, c.step_per_ep_s * 1e6, o.peers, o.uplink_streams);
	printf("%6s %5s %6s %12s %9s %9s %7s %7s %6s %7s %8s", "nodes", "tiers", "leaves", "all pairs", "planned",
	       "intra", "steps", "bound", "check", "plan s", "rank0 GB");
	for (size_t f = 0; f < sizeof fab / sizeof fab[0]; f++)
		printf("  %-27s", fab[f].name);
	printf("\n");
	for (int n = 1024; n <= 16384; n *= 4)
		for (int tiers = 2; tiers <= 3; tiers++) {
			/* leaves of 32 (+- 8); pods of 16 (+- 8) leaves */
			int *g = only && only != n ? NULL : tree_make(n, tiers, 32, 16, (unsigned long long)(n + tiers));
			struct plan p;
			char why[256] = "ok";
			double t0, tp;
			long long all = (long long)n * (n - 1) / 2;

			if (!g)
				continue;
			t0 = now();
			if (plan_bandwidth(g, tiers, n, &o, &p)) {
				printf("%6d %5d: out of memory\n", n, tiers);
				free(g);
				bad = 1;
				continue;
			}
			tp = now() - t0;
			if (plan_check(&p, g, tiers, n, &o, why, sizeof why))
				bad = 1;
			int nleaf = 0;
			for (int i = 0; i < n; i++)
				nleaf = g[i] + 1 > nleaf ? g[i] + 1 : nleaf;
			printf("%6d %5d %6d %12lld %9d %9lld %7d %7d %6s %7.2f %8.2f", n, tiers, nleaf, all, p.s.npairs,
			       p.tier_pairs[0], p.s.nsteps, p.intra_steps + p.cross_bound, strcmp(why, "ok") ? "FAIL" : "ok",
			       tp, plan_memory_bytes(n, 1, p.s.npairs) / 1e9);
			for (size_t f = 0; f < sizeof fab / sizeof fab[0]; f++) {
				double lat_s, bw_s;

				pair_costs(&fab[f], &c.lat_pair_s, &c.bw_pair_s);
				plan_predict(&p, &c, &lat_s, &bw_s);
				printf("  p1 %6.1f + p2 %6.1f = %5.1f min", lat_s / 60, bw_s / 60, (lat_s + bw_s) / 60);
			}
			printf("\n");
			if (strcmp(why, "ok"))
				printf("#   broken: %s\n", why);
			plan_free(&p);
			free(g);
		}
	return bad;
}
