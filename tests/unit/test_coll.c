/* Collectives: byte counts and bus factors (docs/measurement.md), layouts, the expected values of the
 * check against a direct simulation of each op, value coding, the sweep, option parsing. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "coll/coll_backend.h"
#include "coll/coll_report.h"
#include "coll/coll_wait.h"
#include "core/clock.h"
#include "core/log.h"

static const int rank_counts[] = { 1, 2, 3, 4, 8 };
#define NRC ((int)(sizeof rank_counts / sizeof rank_counts[0]))

static void test_bytes_and_bus_factors(void)
{
	for (int k = 0; k < NRC; k++) {
		int n = rank_counts[k];
		double ring = (double)(n - 1) / n;
		const struct { int op; int per_rank; double factor; } want[] = {
			{ COLL_ALLREDUCE, 0, 2 * ring }, { COLL_ALLGATHER, 1, ring },
			{ COLL_REDUCESCATTER, 1, ring }, { COLL_BROADCAST, 0, 1 },
			{ COLL_REDUCE, 0, 1 }, { COLL_ALLTOALL, 1, ring }, { COLL_SENDRECV, 0, 1 },
		};

		for (int i = 0; i < COLL_NOPS; i++) {
			const struct coll_op *op = &coll_ops[want[i].op];
			uint64_t S = 1000 * 4 * (want[i].per_rank ? (uint64_t)n : 1);
			double alg, bus;

			CHECK(op->id == want[i].op);
			CHECK_NEAR(op->bus_factor(n), want[i].factor, 1e-12);
			/* S = count x sizeof (x nranks for the per-rank-block ops) */
			CHECK(coll_size_of(op, 1000, 4, n) == S);
			CHECK(coll_count_for(op, S, 4, n) == 1000);
			CHECK(coll_count_for(op, S + 3, 4, n) == 1000); /* rounded down */
			coll_bandwidth(op, S, 2.0, n, &alg, &bus);      /* 2 µs */
			CHECK_NEAR(alg, (double)S / 2e-6 / 1e9, 1e-9);
			CHECK_NEAR(bus, alg * want[i].factor, 1e-9);
		}
	}
	CHECK(coll_count_for(&coll_ops[COLL_ALLGATHER], 8, 4, 4) == 0); /* under one element per rank */
	CHECK(coll_op_find("allreduce") == &coll_ops[COLL_ALLREDUCE]);
	CHECK(coll_op_find("all_reduce") == NULL);
	CHECK(coll_dtype_find("bf16") == &coll_dtypes[COLL_BF16]);
	CHECK_EQ(coll_redop_find("max"), COLL_MAX);
	CHECK_EQ(coll_redop_find("avg"), -1);
}

static void test_layouts(void)
{
	struct coll_case c = { .op = &coll_ops[COLL_REDUCESCATTER], .dtype = &coll_dtypes[COLL_FLOAT],
			       .redop = COLL_SUM, .root = -1, .count = 10, .in_place = 1, .rank = 2,
			       .nranks = 4 };
	struct coll_layout l;

	coll_layout_get(&c, 0, &l); /* NCCL: result at rank x count of the one buffer */
	CHECK_EQ(l.send_elems, 40);
	CHECK_EQ(l.recv_elems, 40);
	CHECK_EQ(l.in_off, 0);
	CHECK_EQ(l.out_off, 20);
	CHECK_EQ(l.out_elems, 10);
	coll_layout_get(&c, COLL_Q_RS_INPLACE_OUT_FIRST, &l); /* MPI: at the start */
	CHECK_EQ(l.out_off, 0);
	CHECK_EQ(l.out_elems, 10);
	c.op = &coll_ops[COLL_ALLGATHER];
	coll_layout_get(&c, 0, &l);
	CHECK_EQ(l.send_elems, 10);
	CHECK_EQ(l.recv_elems, 40);
	CHECK_EQ(l.in_off, 20);
	CHECK_EQ(l.out_off, 0);
	CHECK_EQ(l.out_elems, 40);
	c.op = &coll_ops[COLL_REDUCE];
	c.root = 1;
	coll_layout_get(&c, 0, &l);
	CHECK(l.out_elems == 0); /* not the root */
	c.op = &coll_ops[COLL_BROADCAST];
	c.root = 2;
	c.in_place = 0;
	coll_layout_get(&c, 0, &l);
	CHECK(l.out_elems == 10);
	coll_layout_get(&c, COLL_Q_BCAST_ROOT_KEEPS, &l);
	CHECK(l.out_elems == 0);
	c.op = &coll_ops[COLL_ALLTOALL];
	coll_layout_get(&c, 0, &l);
	CHECK_EQ(l.send_elems, 40);
	CHECK_EQ(l.recv_elems, 40);
	CHECK_EQ(l.out_elems, 40);
}

/* ---------------------------------------------------------------- expected values */

/* The result of element j on `rank`, from the definition of the op over explicit inputs;
 * each partial reduction must stay within the dtype's exact range. */
static int64_t simulate(const struct coll_case *c, const struct coll_gen *g, uint64_t j, int *inexact)
{
	int n = c->nranks, r = c->rank;
	uint64_t k = c->count;
	int64_t limit = coll_exact_limit(c->dtype->id), acc;
	uint64_t idx = c->op->id == COLL_REDUCESCATTER ? (uint64_t)r * k + j : j;

	switch (c->op->id) {
	case COLL_ALLGATHER: return coll_value(g, (int)(j / k), j % k);
	case COLL_ALLTOALL: return coll_value(g, (int)(j / k), (uint64_t)r * k + j % k);
	case COLL_BROADCAST: return coll_value(g, c->root, j);
	case COLL_SENDRECV: return coll_value(g, (r + n - 1) % n, j);
	default: break;
	}
	acc = coll_value(g, n - 1, idx); /* the other order from coll_reduced */
	for (int p = n - 2; p >= 0; p--) {
		int64_t v = coll_value(g, p, idx);

		switch (c->redop) {
		case COLL_SUM: acc += v; break;
		case COLL_PROD: acc *= v; break;
		case COLL_MAX: acc = v > acc ? v : acc; break;
		default: acc = v < acc ? v : acc; break;
		}
		if (acc > limit || acc < -limit)
			(*inexact)++;
	}
	return acc;
}

/* v round-trips through the dtype's representation */
static int exact_in(int dtype, int64_t v)
{
	char buf[8];

	coll_store(dtype, buf, v);
	return coll_load(dtype, buf) == (double)v;
}

static void one_case(struct coll_case *c, int *bad, int *inexact, int *unrepresentable)
{
	struct coll_expect_args a;
	uint64_t nres = c->count * (c->op->blocks ? 1 : (uint64_t)c->nranks);

	coll_expect_args_make(c, 7, &a);
	for (uint64_t i = 0; i < nres; i++) {
		for (int r = 0; r < c->nranks; r++)
			*unrepresentable += !exact_in(c->dtype->id, coll_value(&a.gen, r, i));
		int64_t want = simulate(c, &a.gen, i, inexact);

		*bad += coll_expect(&a, i) != want;
		*unrepresentable += !exact_in(c->dtype->id, want);
	}
}

static void test_expected_values(void)
{
	int bad = 0, inexact = 0, unrep = 0;

	for (int k = 0; k < NRC; k++)
		for (int op = 0; op < COLL_NOPS; op++)
			for (int d = 0; d < COLL_NDTYPES; d++)
				for (int ro = 0; ro < (coll_ops[op].reduces ? COLL_NREDOPS : 1); ro++) {
					struct coll_case c = { .op = &coll_ops[op], .dtype = &coll_dtypes[d],
							       .redop = coll_ops[op].reduces ? ro : COLL_NOREDOP,
							       .root = coll_ops[op].rooted ? rank_counts[k] - 1 : -1,
							       .count = 37, .nranks = rank_counts[k] };

					for (c.rank = 0; c.rank < c.nranks; c.rank++)
						one_case(&c, &bad, &inexact, &unrep);
				}
	CHECK(bad == 0);
	CHECK(inexact == 0);
	CHECK(unrep == 0);
}

/* At scale, sums stay exact (the contributors are capped), products stay within ±2, and a
 * check still tells ranks apart (inputs differ between ranks and between seeds). */
static void test_values_at_scale(void)
{
	static const int big[] = { 255, 256, 257, 2049, 5000 };

	for (size_t k = 0; k < sizeof big / sizeof big[0]; k++)
		for (int d = 0; d < COLL_NDTYPES; d++) {
			struct coll_gen s = coll_gen_make(d, COLL_SUM, big[k], 3);
			struct coll_gen p = coll_gen_make(d, COLL_PROD, big[k], 3);

			CHECK(s.contrib * s.span <= coll_exact_limit(d));
			CHECK(s.span >= 1);
			for (uint64_t j = 0; j < 16; j++) {
				int64_t sum_abs = 0, prod = coll_reduced(&p, COLL_PROD, j);

				for (int r = 0; r < big[k]; r++)
					sum_abs += llabs(coll_value(&s, r, j));
				CHECK(sum_abs <= coll_exact_limit(d));
				CHECK(llabs(prod) == 2); /* exactly one rank holds the ±2 */
			}
		}
	struct coll_gen g1 = coll_gen_make(COLL_FLOAT, COLL_NOREDOP, 4, 1), g2 = coll_gen_make(COLL_FLOAT, COLL_NOREDOP, 4, 2);
	int same_rank = 0, same_seed = 0;
	for (uint64_t j = 0; j < 1000; j++) {
		same_rank += coll_value(&g1, 0, j) == coll_value(&g1, 1, j);
		same_seed += coll_value(&g1, 0, j) == coll_value(&g2, 0, j);
	}
	CHECK_CMP(same_rank, <, 5);
	CHECK_CMP(same_seed, <, 5);
}

static void test_value_coding(void)
{
	unsigned char b[8];

	coll_store(COLL_HALF, b, 1);
	CHECK_EQ(b[0], 0x00);
	CHECK_EQ(b[1], 0x3c);
	coll_store(COLL_HALF, b, -2048);
	CHECK_EQ(b[0], 0x00);
	CHECK_EQ(b[1], 0xe8);
	CHECK(coll_load(COLL_HALF, b) == -2048);
	coll_store(COLL_BF16, b, 1);
	CHECK_EQ(b[0], 0x80);
	CHECK_EQ(b[1], 0x3f);
	coll_store(COLL_BF16, b, -256);
	CHECK(coll_load(COLL_BF16, b) == -256);
	CHECK(!exact_in(COLL_BF16, 257)); /* beyond bfloat16's 8 bits */
	CHECK(!exact_in(COLL_HALF, 2049));
	CHECK(exact_in(COLL_FLOAT, 1 << 24));
	CHECK(!exact_in(COLL_FLOAT, (1 << 24) + 1));
	for (int d = 0; d < COLL_NDTYPES; d++) /* the poison value the backends use */
		CHECK(exact_in(d, -2 * coll_exact_limit(d)));
}

/* ---------------------------------------------------------------- sweep and options */

static char err[OPTS_ERR_MAX];

static void test_sweep(void)
{
	uint64_t s[COLL_SIZES_MAX];

	CHECK_EQ(coll_sweep(8, 64, 2, 0, s, COLL_SIZES_MAX, err), 4);
	CHECK_EQ(s[0], 8);
	CHECK_EQ(s[3], 64);
	CHECK_EQ(coll_sweep(8, 100, 4, 0, s, COLL_SIZES_MAX, err), 2);
	CHECK_EQ(s[1], 32); /* 128 > 100 */
	CHECK_EQ(coll_sweep(8, 40, 2, 16, s, COLL_SIZES_MAX, err), 3);
	CHECK_EQ(s[1], 24);
	CHECK_EQ(s[2], 40);
	CHECK(coll_sweep(4096, 4096, 2, 0, s, COLL_SIZES_MAX, err) == 1);
	CHECK(coll_sweep(1, 1ULL << 30, 2, 0, s, COLL_SIZES_MAX, err) == 31);
	CHECK(coll_sweep(1, 1ULL << 20, 2, 1, s, COLL_SIZES_MAX, err) == FP_EUSAGE);
	CHECK(strstr(err, "more than") != NULL);
}

static int parse(const char *line, struct coll_opts *o)
{
	static char buf[512]; /* the options point into it: it outlives the call */
	char *argv[32], *save = NULL;
	int argc = 0;

	snprintf(buf, sizeof buf, "coll %s", line);
	for (char *t = strtok_r(buf, " ", &save); t && argc < 31; t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	argv[argc] = NULL;
	err[0] = 0;
	return coll_opts_parse(argc, argv, o, err);
}

static void test_opts(void)
{
	struct coll_opts o;

	CHECK(parse("", &o) == 0);
	CHECK_EQ(o.minbytes, 8);
	CHECK_EQ(o.maxbytes, 32u << 20);
	CHECK_EQ(o.iters, 20);
	CHECK_EQ(o.check, 1);
	CHECK_EQ(o.nops, 1);
	CHECK_EQ(o.ops[0], COLL_ALLREDUCE);
	CHECK_EQ(o.dtypes[0], COLL_FLOAT);
	CHECK_EQ(o.redops[0], COLL_SUM);
	CHECK(o.backend == NULL);
	CHECK_EQ(o.test_corrupt_rank, -1);
	CHECK_EQ(parse("-b 8 -e 128M -f 2", &o), 0);
	CHECK_EQ(o.nsizes, 25);
	CHECK_EQ(o.sizes[24], 128u << 20);
	CHECK_EQ(parse("-b 1K -e 4K -i 1K -n 3 -w 0 -c 0", &o), 0);
	CHECK_EQ(o.nsizes, 4);
	CHECK_EQ(o.check, 0);
	CHECK_EQ(o.warmup, 0);
	CHECK(parse("-o all -d float,double,int32,half,bfloat16 -O all -r 1", &o) == 0);
	CHECK_EQ(o.nops, COLL_NOPS);
	CHECK_EQ(o.ndtypes, 5);
	CHECK_EQ(o.nredops, 4);
	CHECK_EQ(o.root, 1);
	CHECK(parse("--op sendrecv,alltoall --backend mpi --output d", &o) == 0);
	CHECK_EQ(o.nops, 2);
	CHECK_EQ(o.ops[0], COLL_SENDRECV);
	CHECK_STR(o.backend, "mpi");
	CHECK_STR(o.where.output, "d");
	CHECK(parse("-h", &o) == 1);
	/* --backend takes the registry's names: one this build lacks is refused with its reason */
	for (int i = 0; coll_backends[i]; i++) {
		const struct coll_backend *be = coll_backends[i];
		char line[64];
		int rc;

		snprintf(line, sizeof line, "--backend %s", be->name);
		rc = parse(line, &o);
		if (be->absent) {
			CHECK(rc == FP_EUSAGE);
			CHECK(strstr(err, be->absent) != NULL);
		} else {
			CHECK(rc == 0);
			CHECK_STR(o.backend, be->name);
		}
	}

	static const struct { const char *line, *msg; } bad[] = {
		{ "-f 2 -i 8", "both set the step" },
		{ "-i 8 -f 4", "both set the step" },
		{ "-b 0", "out of range" },
		{ "-b -8", "not a size" },
		{ "-e 64 -b 128", "larger than" },
		{ "-n 0", "out of range" },
		{ "-n -3", "out of range" },
		{ "-w -1", "out of range" },
		{ "-f 1", "out of range" },
		{ "-f 0", "out of range" },
		{ "-c 2", "out of range" },
		{ "-o allreduce,allreduce", "given twice" },
		{ "-o all_reduce", "unknown name" },
		{ "-d float,", "comma-separated" },
		{ "-d quad", "unknown name" },
		{ "-O avg", "unknown name" },
		{ "-o allgather -O max", "none of the selected ops" },
		{ "-o allreduce -r 1", "has a root" },
		{ "--backend gpu", "not one of" },
		{ "--output a --name b", "cannot be combined" },
		{ "--output a --results-root b", "cannot be combined" },
		{ "-b 1 -e 1M -i 1", "more than" },
		{ "-e 64G", "out of range" },
		{ "--test-corrupt -1", "out of range" },
		{ "--path eth0", "not mpi, tcp:" },
		{ "--path tcp:", "network interface name" },
		{ "--path tcp:eth0;rm", "network interface name" },
		{ "--path tcp:a_name_of_16_char", "network interface name" },
		{ "--path verbs:mlx5_0", "verbs:<device>:<port>" },
		{ "--path verbs:mlx5_0:0", "port 1..255" },
		{ "--path verbs:mlx5_0:1x", "port 1..255" },
		{ "--path verbs::1", "verbs:<device>:<port>" },
		{ "--path tcp:rail0+", "network interface name" },
		{ "--path tcp:rail0++rail1", "network interface name" },
		{ "--path tcp:rail0+mlx5_0:1", "network interface name" },
		{ "--path verbs:mlx5_0:1+mlx5_1", "verbs:<device>:<port>" },
		{ "--path verbs:mlx5_0:1+eth0", "verbs:<device>:<port>" },
		{ "--path tcp:a+b+c+d+e+f+g+h+i+j+k+l+m+n+o+p+q", "more than 16 ports" },
		{ "-x", "unknown option" },
		{ "stray", "unexpected argument" },
		{ "-n", "needs a value" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int rc = parse(bad[i].line, &o);

		CHECK(rc == FP_EUSAGE);
		if (rc != FP_EUSAGE || !strstr(err, bad[i].msg))
			printf("#   '%s' -> %d '%s' (expected '%s')\n", bad[i].line, rc, err, bad[i].msg);
		CHECK(strstr(err, bad[i].msg) != NULL);
	}
}

/* --path: what each library is told, before MPI_Init */
static void test_path_env(void)
{
	struct coll_opts o;
	struct coll_path_set e;
	const char *want_tcp[][2] = { { "OMPI_MCA_pml", "ob1" }, { "OMPI_MCA_btl", "tcp,self" },
				      { "OMPI_MCA_btl_tcp_if_include", "eth1" }, { "NCCL_NET", "Socket" },
				      { "NCCL_SOCKET_IFNAME", "=eth1" }, { "NCCL_P2P_DISABLE", "1" },
				      { "NCCL_SHM_DISABLE", "1" }, { "NCCL_NVLS_ENABLE", "0" },
				      { "NCCL_COLLNET_ENABLE", "0" } };
	const char *want_ib[][2] = { { "OMPI_MCA_pml", "ucx" }, { "UCX_NET_DEVICES", "mlx5_2:1" },
				     { "UCX_TLS", "self,rc,ud" }, { "NCCL_NET", "IB" }, { "NCCL_IB_HCA", "=mlx5_2:1" } };

	CHECK(parse("--path tcp:eth1", &o) == 0);
	CHECK_STR(o.path, "tcp:eth1");
	coll_path_env(o.path, &e);
	CHECK_EQ(e.n, 9);
	for (int i = 0; i < 9 && i < e.n; i++) {
		CHECK_STR(e.v[i].name, want_tcp[i][0]);
		CHECK_STR(e.v[i].value, want_tcp[i][1]);
	}
	coll_path_env("verbs:mlx5_2:1", &e);
	CHECK_EQ(e.n, 9);
	for (int i = 0; i < 5 && i < e.n; i++) {
		CHECK_STR(e.v[i].name, want_ib[i][0]);
		CHECK_STR(e.v[i].value, want_ib[i][1]);
	}
	/* RoCE: the RoCE v2 GID index of the port (the fixture's entry 5), for UCX and NCCL alike */
	coll_path_gid("tests/fixtures/roce/sysfs", "verbs:mlx5_0:1", &e);
	CHECK_EQ(e.n, 11);
	if (e.n == 11) {
		CHECK_STR(e.v[9].name, "UCX_IB_GID_INDEX");
		CHECK_STR(e.v[9].value, "5");
		CHECK_STR(e.v[10].name, "NCCL_IB_GID_INDEX");
		CHECK_STR(e.v[10].value, "5");
	}
	coll_path_env("verbs:mlx5_0:1", &e);
	coll_path_gid("tests/fixtures/ib-hdr/sysfs", "verbs:mlx5_0:1", &e); /* InfiniBand: none */
	coll_path_gid("tests/fixtures/roce/sysfs", "verbs:mlx5_9:1", &e);   /* no such device */
	coll_path_gid("tests/fixtures/roce/sysfs", "tcp:eth0", &e);
	CHECK_EQ(e.n, 9);
	/* several ports at once: each library's list; the ring's ports, each a path */
	char port[COLL_PATH_PORTS_MAX][COLL_PATH_MAX];

	CHECK(parse("--path tcp:rail0+rail1+rail2", &o) == 0);
	coll_path_env(o.path, &e);
	CHECK(e.n == 9 && !strcmp(e.v[2].value, "rail0,rail1,rail2") && !strcmp(e.v[4].value, "=rail0,rail1,rail2"));
	CHECK_EQ(coll_path_ports(o.path, port, COLL_PATH_PORTS_MAX), 3);
	CHECK_STR(port[2], "tcp:rail2");
	CHECK(parse("--path verbs:mlx5_0:1+mlx5_1:1", &o) == 0);
	coll_path_env(o.path, &e);
	CHECK(e.n == 9 && !strcmp(e.v[1].value, "mlx5_0:1,mlx5_1:1") && !strcmp(e.v[4].value, "=mlx5_0:1,mlx5_1:1"));
	CHECK_EQ(coll_path_ports(o.path, port, COLL_PATH_PORTS_MAX), 2);
	CHECK_STR(port[1], "verbs:mlx5_1:1");
	/* the fixture's two RoCE ports have their RoCE v2 GIDs at 5 and 3: one index cannot serve
	 * both, none is set (each library finds its own) */
	coll_path_gid("tests/fixtures/roce/sysfs", o.path, &e);
	CHECK_EQ(e.n, 9);
	coll_path_gid("tests/fixtures/roce/sysfs", "verbs:mlx5_0:1+mlx5_0:1", &e);
	CHECK(e.n == 11 && !strcmp(e.v[10].value, "5"));
	CHECK_EQ(coll_path_ports("mpi", port, COLL_PATH_PORTS_MAX), 1);
	CHECK_STR(port[0], "mpi");
	coll_path_env("mpi", &e);
	CHECK_EQ(e.n, 0);
	coll_path_env(NULL, &e);
	CHECK_EQ(e.n, 0);
	/* applied: set, and what was there kept */
	setenv("OMPI_MCA_btl", "self,vader,tcp", 1);
	unsetenv("OMPI_MCA_btl_tcp_if_include");
	CHECK(parse("--path tcp:eth0", &o) == 0);
	CHECK(coll_path_apply(&o) == 0);
	CHECK_STR(getenv("OMPI_MCA_btl_tcp_if_include"), "eth0");
	CHECK_STR(getenv("OMPI_MCA_btl"), "tcp,self");
	CHECK(o.env.v[1].had && !strcmp(o.env.v[1].was, "self,vader,tcp"));
	CHECK(!o.env.v[2].had);
}

static void test_rows(void)
{
	struct coll_case c = { .op = &coll_ops[COLL_ALLREDUCE], .dtype = &coll_dtypes[COLL_FLOAT],
			       .redop = COLL_SUM, .root = -1, .count = 262144, .nranks = 4 };
	struct coll_row r = { .run_id = "run1", .backend = "mpi", .path = "tcp:eth1", .c = &c, .size_B = 1048576, .nnodes = 1,
			      .time_us = 100, .time_us_max = 120, .wrong = 0, .status = COLL_OK };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	coll_bandwidth(c.op, r.size_B, r.time_us, 4, &r.algbw, &r.busbw);
	coll_csv_header(f);
	r.carried_by = "Open MPI pml=ob1 btl=tcp,self btl_tcp_if_include=eth1"; /* quoted: it holds a comma */
	coll_csv_row(f, &r); /* a library's row: no line rate (0 or NAN: empty) */
	r.backend = "ring";
	r.carried_by = NULL; /* the ring: its own transport */
	r.line_rate_Gbps = 200; /* fabprobe's ring: busbw 15.7286 GB/s x 8 / 200 Gbit/s = 62.9 % */
	coll_csv_row(f, &r);
	fclose(f);
	CHECK_STR(text, "run_id,backend,op,size_B,count,dtype,redop,root,nranks,nnodes,in_place,time_us,"
			"time_us_max,algbw_GBps,busbw_GBps,wrong,status,path,line_rate_Gbps,pct_line_rate,carried_by\n"
			"run1,mpi,allreduce,1048576,262144,float,sum,,4,1,0,100.000,120.000,10.4858,15.7286,0,ok,tcp:eth1,,,"
			"\"Open MPI pml=ob1 btl=tcp,self btl_tcp_if_include=eth1\"\n"
			"run1,ring,allreduce,1048576,262144,float,sum,,4,1,0,100.000,120.000,10.4858,15.7286,0,ok,tcp:eth1,200.0,62.9,\n");
	free(text);
}

/* fake library states for the GPU backend's one bounded wait: done after some polls, failed
 * with the library's reason, never done (a dead peer) */
struct fake_op {
	int polls, done_after, fail_after;
	const char *reason;
};

static int fake_poll(void *arg, char *why, size_t len)
{
	struct fake_op *f = arg;

	f->polls++;
	if (f->fail_after && f->polls >= f->fail_after) {
		snprintf(why, len, "%s", f->reason);
		return COLL_POLL_FAILED;
	}
	return f->done_after && f->polls >= f->done_after ? COLL_POLL_DONE : COLL_POLL_AGAIN;
}

static void test_bounded_wait(void)
{
	struct fake_op done = { .done_after = 5 }, bad = { .fail_after = 3, .reason = "unhandled system error (run with "
				"NCCL_DEBUG=INFO for details)" }, hung = { 0 };
	char why[256] = "";
	double t0;

	CHECK_EQ(coll_wait_poll(fake_poll, &done, 5, "allreduce float 8 B", why, sizeof why), 0);
	CHECK_EQ(done.polls, 5);
	CHECK_EQ(coll_wait_poll(fake_poll, &bad, 5, "allreduce float 8 B", why, sizeof why), FP_ERUNTIME);
	CHECK_STR(why, "allreduce float 8 B: unhandled system error (run with NCCL_DEBUG=INFO for details)");
	t0 = clock_now();
	CHECK_EQ(coll_wait_poll(fake_poll, &hung, 0.2, "ncclCommInitRankConfig", why, sizeof why), FP_ETIMEDOUT);
	CHECK(clock_now() - t0 >= 0.2 && clock_now() - t0 < 2); /* bounded, and not by much more */
	CHECK(hung.polls > 10 && hung.polls < 2000); /* it polled, asleep between polls */
	CHECK_HAS(why, "ncclCommInitRankConfig: not done after 0.2 s (--timeout)");
}

/* path-env.sh: each path's exports printed by `sh path-env.sh PATH`, the rails at once; mpi
 * and a name with a shell's character left out; an unknown PATH refused */
static void test_path_env_script(void)
{
	const char *paths[] = { "mpi", "tcp:eth1", "verbs:mlx5_0:1", "tcp:e$(reboot)" };
	char file[] = "/tmp/fp-path-env-XXXXXX", line[256], *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len), *p;
	int fd = mkstemp(file), got = 0;

	CHECK(f && fd >= 0);
	if (!f || fd < 0)
		return;
	CHECK_EQ(coll_path_env_script(f, "fabprobe test", paths, 4, "tcp:rail0+rail1+rail2"), 3);
	fclose(f);
	CHECK(strstr(text, "'tcp:eth1')\n\techo \"export OMPI_MCA_pml='ob1'\"\n") != NULL &&
	      strstr(text, "\techo \"export NCCL_SOCKET_IFNAME='=eth1'\"\n") != NULL);
	CHECK(strstr(text, "'rails')\n") != NULL && strstr(text, "export NCCL_IB_HCA='=mlx5_0:1'") != NULL);
	CHECK(strstr(text, "'mpi')") == NULL && strstr(text, "reboot") == NULL);
	CHECK(strstr(text, "# a path left out") != NULL);
	CHECK(write(fd, text, len) == (ssize_t)len);
	close(fd);
	/* run as a user would: the rails' exports, every port at once, in rail order */
	snprintf(line, sizeof line, "sh %s rails", file);
	if ((p = popen(line, "r"))) {
		while (fgets(line, sizeof line, p))
			got += !strcmp(line, "export NCCL_SOCKET_IFNAME='=rail0,rail1,rail2'\n") ||
			       !strcmp(line, "export OMPI_MCA_btl_tcp_if_include='rail0,rail1,rail2'\n");
		CHECK_EQ(pclose(p), 0);
	}
	CHECK_EQ(got, 2);
	snprintf(line, sizeof line, "sh %s 'tcp:e$(reboot)' 2>/dev/null", file);
	if ((p = popen(line, "r"))) {
		CHECK(fgets(line, sizeof line, p) == NULL);
		CHECK_EQ(WEXITSTATUS(pclose(p)), 2);
	}
	unlink(file);
	free(text);
}

int main(void)
{
	RUN(test_bytes_and_bus_factors);
	RUN(test_layouts);
	RUN(test_expected_values);
	RUN(test_values_at_scale);
	RUN(test_value_coding);
	RUN(test_sweep);
	RUN(test_opts);
	RUN(test_path_env);
	RUN(test_path_env_script);
	RUN(test_rows);
	RUN(test_bounded_wait);
	CHECK_EXIT();
}
