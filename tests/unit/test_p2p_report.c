/* What p2p writes: merged statuses, rows with line-rate fractions, square matrices. */
#include <stdlib.h>

#include "check.h"
#include "p2p/p2p.h"

static struct p2p_rec rec(int status, const char *why)
{
	struct p2p_rec r = { .src = 0, .dst = 1, .status = status, .lat_p50 = 5, .bw_GBps = 1 };

	snprintf(r.why, sizeof r.why, "%s", why);
	return r;
}

static void test_merge(void)
{
	struct p2p_rec ok = rec(P2P_OK, ""), to = rec(P2P_TIMEOUT, "timed out waiting for the echo"),
		       er = rec(P2P_ERROR, "connection reset"), m;

	p2p_rec_merge(&ok, &ok, "a", "b", &m);
	CHECK_EQ(m.status, P2P_OK);
	CHECK_STR(m.why, "");
	CHECK_EQ(m.lat_p50, 5);
	p2p_rec_merge(&ok, &to, "a", "b", &m);
	CHECK(m.status == P2P_TIMEOUT);
	CHECK_STR(m.why, "b: timed out waiting for the echo");
	p2p_rec_merge(&to, &to, "node01", "node05", &m); /* both sides named */
	CHECK(m.status == P2P_TIMEOUT);
	CHECK_HAS(m.why, "node01: timed");
	CHECK_HAS(m.why, "node05: timed");
	p2p_rec_merge(&to, &er, "a", "b", &m); /* the error is the cause */
	CHECK(m.status == P2P_ERROR);
	CHECK(strstr(m.why, "b: connection reset") != NULL);
	p2p_rec_merge(&er, &ok, "a", "b", &m);
	CHECK_EQ(m.status, P2P_ERROR);
	CHECK_HAS(m.why, "a: connection reset");
}

static struct p2p_opts opts(void)
{
	struct p2p_opts o = { .nsizes = 2, .window = 64, .lat_iters = 10, .bw_iters = 4 };

	o.sizes[0] = (struct p2p_size){ 8, 1, 0 };
	o.sizes[1] = (struct p2p_size){ 1 << 20, 0, 1 };
	return o;
}

static char buf[8192];

static void test_rows_and_matrices(void)
{
	struct p2p_opts o = opts();
	const char *labels[3] = { "node10", "node2", "node3" };
	struct tr_port ports[3] = { { .dev = "eth0", .kind = "ethernet", .rate_gbps = 25, .usable = 1 },
				    { .dev = "eth0", .kind = "ethernet", .rate_gbps = 10, .usable = 1,
				      .carried = "TCP, both ends bound to eth0" },
				    { .dev = "ib0", .kind = "infiniband", .rate_gbps = NAN, .usable = 1,
				      .carried = "TCP from ib0's address, not bound" } };
	int order[3];
	struct p2p_matrices m;
	struct p2p_path_out po = { .run_id = "r", .path = "tcp:eth0", .nep = 3, .labels = labels,
				   .ports = ports, .opts = &o };
	struct p2p_rec r = { .src = 0, .dst = 1, .size_idx = 1, .status = P2P_OK, .bw_iters = 4,
			     .bw_GBps = 1.0, .lat_p50 = NAN, .bw_total = 0.9, .bw_min = 0.8, .bw_max = 1.1,
			     .bw_warm = 3, .bw_converged = 1 };
	FILE *f;

	CHECK(matrix_init(&m, "tcp:eth0", 3) == 0);
	f = fmemopen(buf, sizeof buf, "w");
	p2p_csv_row(f, &po, &r);
	p2p_matrices_add(&m, &o, &r);
	fclose(f);
	/* 8 Gbit/s over the slower port's 10 Gbit/s = 80% */
	/* bw_GBps is the median window; total bytes / time and the spread at the end */
	CHECK_STR(buf, "r,tcp:eth0,ethernet,node10,node2,eth0,eth0,10.0,1048576,,,,,,4,64,1.0000,8.000,80.0,ok,,"
		       "0.9000,0.8000,1.1000,3,converged,,\n");
	CHECK_EQ(m.bw[0 * 3 + 1], 1.0f);
	CHECK_EQ(m.ok, 1);

	r = (struct p2p_rec){ .src = 2, .dst = 0, .size_idx = 1, .status = P2P_OK, .bw_iters = 4, .bw_GBps = 2,
			      .bw_total = 1.5, .bw_min = 1, .bw_max = 3, .bw_warm = 12, .bw_converged = 0 };
	f = fmemopen(buf, sizeof buf, "w");
	p2p_csv_row(f, &po, &r);
	p2p_matrices_add(&m, &o, &r);
	fclose(f);
	/* kinds differ, one rate unknown: kind, rate and fraction are empty, not zero */
	CHECK_STR(buf, "r,tcp:eth0,,node3,node10,ib0,eth0,,1048576,,,,,,4,64,2.0000,16.000,,ok,,1.5000,1.0000,"
		       "3.0000,12,not converged,,\"TCP from ib0's address, not bound\"\n");

	r = (struct p2p_rec){ .src = 1, .dst = 2, .size_idx = 0, .status = P2P_OK, .lat_iters = 10,
			      .lat_min = 1, .lat_avg = 2, .lat_p50 = 1.5, .lat_p99 = 3, .lat_min_hi = 1.25 };
	f = fmemopen(buf, sizeof buf, "w");
	p2p_csv_row(f, &po, &r);
	p2p_matrices_add(&m, &o, &r);
	fclose(f);
	/* the other latency pass's minimum, then what carried the sender's traffic */
	CHECK_STR(buf, "r,tcp:eth0,,node2,node3,eth0,ib0,,8,10,1.000,2.000,1.500,3.000,,,,,,ok,,,,,,,1.250,"
		       "\"TCP, both ends bound to eth0\"\n");
	CHECK(m.lat_p50[1 * 3 + 2] == 1.5f);
	CHECK(m.lat_min[1 * 3 + 2] == 1.0f);
	CHECK(m.lat_hi[1 * 3 + 2] == 1.25f);
	/* measured again (a confirmation, one pass) lower: the highest minimum of all is kept */
	r.lat_min = 0.9;
	r.lat_min_hi = NAN;
	p2p_matrices_add(&m, &o, &r);
	CHECK(m.lat_min[1 * 3 + 2] == 0.9f && m.lat_hi[1 * 3 + 2] == 1.25f);
	r.lat_min = 1.4;
	p2p_matrices_add(&m, &o, &r);
	CHECK(m.lat_min[1 * 3 + 2] == 0.9f && m.lat_hi[1 * 3 + 2] == 1.4f);

	p2p_order_natural(3, labels, order);
	CHECK(order[0] == 1);
	CHECK(order[2] == 0);
	f = fmemopen(buf, sizeof buf, "w");
	p2p_matrix_write(f, 3, labels, order, m.bw, 2);
	fclose(f);
	/* natural order node2, node3, node10; diagonal and unmeasured cells empty */
	CHECK_STR(buf, "host,node2,node3,node10\n"
		       "node2,,,\n"
		       "node3,,,2.00\n"
		       "node10,1.00,,\n");
	matrix_free(&m);
}

static void test_failed_row_is_empty(void)
{
	struct p2p_opts o = opts();
	const char *labels[2] = { "a", "b" };
	struct tr_port ports[2] = { { .dev = "rank0", .rate_gbps = NAN, .usable = 1, .carried = "Open MPI pml=ob1" },
				    { .dev = "rank1", .rate_gbps = NAN, .usable = 1 } };
	struct p2p_matrices m;
	struct p2p_path_out po = { .run_id = "r", .path = "mpi", .nep = 2, .labels = labels,
				   .ports = ports, .opts = &o };
	struct p2p_rec r = { .src = 0, .dst = 1, .size_idx = 1, .status = P2P_TIMEOUT, .bw_iters = 4,
			     .bw_GBps = 1.0 };

	snprintf(r.why, sizeof r.why, "a: timed out, \"x\"");
	CHECK(matrix_init(&m, "mpi", 2) == 0);
	FILE *f = fmemopen(buf, sizeof buf, "w");
	p2p_csv_row(f, &po, &r);
	p2p_matrices_add(&m, &o, &r);
	fclose(f);
	CHECK_STR(buf, "r,mpi,,a,b,rank0,rank1,,1048576,,,,,,,,,,,timeout,\"a: timed out, \"\"x\"\"\",,,,,,,Open MPI pml=ob1\n");
	CHECK(isnan(m.bw[1]));
	CHECK_EQ(m.failed, 1);
	CHECK_EQ(m.ok, 0);
	matrix_free(&m);
}

static void test_matrix_names(void)
{
	char n[64];

	p2p_matrix_name(n, sizeof n, "latency", "mpi");
	CHECK_STR(n, "latency_mpi.csv");
	p2p_matrix_name(n, sizeof n, "bandwidth", "verbs:mlx5_0:1");
	CHECK_STR(n, "bandwidth_verbs_mlx5_0_1.csv");
}

int main(void)
{
	RUN(test_merge);
	RUN(test_rows_and_matrices);
	RUN(test_failed_row_is_empty);
	RUN(test_matrix_names);
	CHECK_EXIT();
}
