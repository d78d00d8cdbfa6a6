/* NCCL's INFO logs (fabric/io/nccl_log.h), captured in the form NCCL 2.2x writes them
 * (tests/fixtures/nccl): InfiniBand with GPUDirect RDMA, RoCE on two of four ports, the socket
 * transport after IB found no device, one node's NVLink (P2P, SHM, NVLS). Each read into what
 * carried it, and each checked against the paths a run could have asked for: the right one
 * passes, any other is a mismatch naming both; a log without channels is not judged. Hostile
 * lines: indices out of range, names too long, no newline, binary bytes. */
#include <string.h>

#include "check.h"
#include "fabric/io/nccl_log.h"

#define FIX "tests/fixtures/nccl/"

static int seen(const char *file, struct nccl_seen *s)
{
	FILE *f = fopen(file, "r");
	int rc = f ? nccl_log_read(f, s) : -1;

	if (f)
		fclose(f);
	return rc;
}

static void test_ib(void)
{
	struct nccl_seen s;
	char text[256], why[512];

	CHECK_EQ(seen(FIX "ib.log", &s), 0);
	CHECK_STR(s.network, "IB");
	CHECK(s.ndevs == 2 && !strcmp(s.dev[1], "mlx5_1:1") && !strcmp(s.link[0], "IB"));
	CHECK(s.via_net == 4 && s.used == 1u && s.gdr && !s.via_p2p && !s.nvls);
	nccl_seen_text(&s, text, sizeof text);
	CHECK_STR(text, "NET/IB mlx5_0:1 (GDRDMA)");
	CHECK_EQ(nccl_seen_check(&s, "verbs:mlx5_0:1", why, sizeof why), 0);
	CHECK_EQ(nccl_seen_check(&s, "verbs:mlx5_1:1+mlx5_0:1", why, sizeof why), 0);
	CHECK_EQ(nccl_seen_check(&s, "verbs:mlx5_1:1", why, sizeof why), 1);
	CHECK_STR(why, "asked for verbs:mlx5_1:1, NCCL used NET/IB mlx5_0:1 (GDRDMA)");
	CHECK_EQ(nccl_seen_check(&s, "tcp:eth0", why, sizeof why), 1);
	CHECK_EQ(nccl_seen_check(&s, "mpi", why, sizeof why), 0);
	CHECK_EQ(nccl_seen_check(&s, NULL, why, sizeof why), 0);
}

static void test_roce_and_socket(void)
{
	struct nccl_seen s;
	char text[256], why[512];

	CHECK_EQ(seen(FIX "roce.log", &s), 0);
	CHECK(s.ndevs == 4 && !strcmp(s.link[3], "RoCE") && s.used == 12u && !s.gdr);
	CHECK_EQ(nccl_seen_check(&s, "verbs:mlx5_2:1+mlx5_3:1", why, sizeof why), 0);
	CHECK_EQ(nccl_seen_check(&s, "verbs:mlx5_2:1", why, sizeof why), 1); /* mlx5_3 too */
	CHECK_EQ(seen(FIX "socket-fallback.log", &s), 0);
	CHECK_STR(s.network, "Socket");
	nccl_seen_text(&s, text, sizeof text);
	CHECK_STR(text, "NET/Socket eth0");
	CHECK_EQ(nccl_seen_check(&s, "tcp:eth0", why, sizeof why), 0);
	CHECK_EQ(nccl_seen_check(&s, "tcp:eth1", why, sizeof why), 1);
	/* the case a run must never PASS: RDMA asked, sockets used */
	CHECK_EQ(nccl_seen_check(&s, "verbs:mlx5_0:1", why, sizeof why), 1);
	CHECK_STR(why, "asked for verbs:mlx5_0:1, NCCL used NET/Socket eth0");
}

static void test_nvls_within_node(void)
{
	struct nccl_seen s;
	char text[256], why[512];

	CHECK_EQ(seen(FIX "nvls.log", &s), 0);
	CHECK(s.nvls && s.via_p2p == 2 && s.via_shm == 1 && !s.via_net);
	nccl_seen_text(&s, text, sizeof text);
	CHECK_STR(text, "NVLS");
	CHECK_EQ(nccl_seen_check(&s, "verbs:mlx5_0:1", why, sizeof why), 1);
	CHECK(strstr(why, "NCCL used NVLS") != NULL);
	CHECK_EQ(nccl_seen_check(&s, NULL, why, sizeof why), 0);
	s.nvls = 0;
	nccl_seen_text(&s, text, sizeof text);
	CHECK_STR(text, "P2P+SHM within the node");
}

static void test_no_channels_and_hostile(void)
{
	static const char hostile[] =
		"x NCCL INFO NET/IB : Using [99]mlx5_9:1/IB [-1]a/IB [2]" "mlx5_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:1/IB [1]ok:1/RoCEEEEEEEEEEEEE\n"
		"x NCCL INFO Using network IB\n"
		"x NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/77\n"
		"x NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/1/GDRDMA\n"
		"x NCCL INFO Channel \x01\xff via \n"
		"NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/";
	struct nccl_seen s;
	char why[512], text[256];
	FILE *f = fmemopen((void *)hostile, sizeof hostile - 1, "r");

	CHECK_EQ(seen(FIX "../roce/sysfs/class/infiniband/mlx5_0/ports/1/rate", &s), 0); /* no NCCL line */
	CHECK_EQ(s.lines, 0);
	CHECK_EQ(nccl_seen_check(&s, "verbs:mlx5_0:1", why, sizeof why), -1);
	nccl_seen_text(&s, text, sizeof text);
	CHECK_STR(text, "unknown (no channel in the log)");
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_EQ(nccl_log_read(f, &s), 0);
	fclose(f);
	CHECK(s.ndevs == 2 && !strcmp(s.dev[1], "ok:1") && s.dev[0][0] == 0 && strlen(s.link[1]) < 8);
	CHECK(s.used == 2u && s.via_net == 3 && s.via_other == 1);
	CHECK_EQ(nccl_seen_check(&s, "verbs:ok:1", why, sizeof why), 0);
}

int main(void)
{
	RUN(test_ib);
	RUN(test_roce_and_socket);
	RUN(test_nvls_within_node);
	RUN(test_no_channels_and_hostile);
	CHECK_EXIT();
}
