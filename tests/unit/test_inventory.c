/* Inventory: verbs and sysfs decoding, RoCE v2 GID choice, path classes, and each synthetic
 * node of tests/fixtures classified exactly (kinds, states, rates, classes, warnings). */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "node/inv_link.h"
#include "core/log.h"
#include "inventory/inv_stage.h"
#include "node/inv_probe.h"
#include "node/inventory.h"

#define FX "tests/fixtures/"

static void test_width_and_speed(void)
{
	static const int widths[][2] = { { 1, 1 }, { 2, 4 }, { 4, 8 }, { 8, 12 }, { 16, 2 }, { 0, -1 },
					 { 3, -1 }, { 32, -1 } };
	static const struct { int code; double gbps; const char *name; } speeds[] = {
		{ 1, 2.5, "SDR" }, { 2, 5, "DDR" }, { 4, 10, "QDR" }, { 8, 10, "FDR10" }, { 16, 14, "FDR" },
		{ 32, 25, "EDR" }, { 64, 50, "HDR" }, { 128, 100, "NDR" }, { 256, 200, "XDR" },
	};
	const char *name;

	for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++)
		CHECK(inv_width_lanes(widths[i][0]) == widths[i][1]);
	for (size_t i = 0; i < sizeof speeds / sizeof speeds[0]; i++) {
		CHECK_NEAR(inv_speed_lane_gbps(speeds[i].code, &name), speeds[i].gbps, 0);
		CHECK_STR(name, speeds[i].name);
	}
	CHECK(isnan(inv_speed_lane_gbps(0, &name)));
	CHECK_STR(name, "");
	CHECK(isnan(inv_speed_lane_gbps(3, &name)));
	CHECK_STR(name, "");
	CHECK(isnan(inv_speed_lane_gbps(512, NULL)));
	/* 4x HDR = 200 Gb/s, 2x NDR = 200 Gb/s */
	CHECK_NEAR(inv_width_lanes(2) * inv_speed_lane_gbps(64, NULL), 200, 0);
	CHECK_NEAR(inv_width_lanes(16) * inv_speed_lane_gbps(128, NULL), 200, 0);
}

static void test_rate_and_state_strings(void)
{
	static const struct { const char *s; double gbps; int lanes; const char *speed; } good[] = {
		{ "200 Gb/sec (4X HDR)", 200, 4, "HDR" }, { "100 Gb/sec (2X HDR)", 100, 2, "HDR" },
		{ "2.5 Gb/sec (1X SDR)", 2.5, 1, "SDR" }, { "56 Gb/sec (4X FDR)", 56, 4, "FDR" },
		{ "400 Gb/sec (4X NDR)", 400, 4, "NDR" }, { "25 Gb/sec", 25, -1, "" },
	};
	static const char *const bad[] = { "", "fast (4X HDR)", "200 Gb/s", "200 Gb/sec (4X",
					    "200 Gb/sec (X HDR)", "-1 Gb/sec (4X HDR)" };
	char speed[16], st[32];
	double g;
	int l;

	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		CHECK(inv_rate_parse(good[i].s, &g, &l, speed, sizeof speed) == 0);
		CHECK_NEAR(g, good[i].gbps, 0);
		CHECK(l == good[i].lanes);
		CHECK_STR(speed, good[i].speed);
	}
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		CHECK(inv_rate_parse(bad[i], &g, &l, speed, sizeof speed) == FP_EUSAGE);
	CHECK_EQ(inv_state_parse("4: ACTIVE", st, sizeof st), 0);
	CHECK_STR(st, "active");
	CHECK_EQ(inv_state_parse("1: DOWN", st, sizeof st), 0);
	CHECK_STR(st, "down");
	CHECK(inv_state_parse("ACTIVE", st, sizeof st) == FP_EUSAGE);
	CHECK(inv_state_parse("4:", st, sizeof st) == FP_EUSAGE);
}

static struct inv_gid mkgid(int index, const char *s, int v2)
{
	struct inv_gid g = { .index = index, .roce_v2 = v2 };

	CHECK(inv_gid_parse(s, g.gid) == 0);
	return g;
}

static void test_gid_pick(void)
{
	uint8_t raw[16];
	struct inv_gid g[] = {
		mkgid(0, "fe80:0000:0000:0000:0e42:a1ff:fe22:3000", 0),
		mkgid(1, "fe80:0000:0000:0000:0e42:a1ff:fe22:3000", 1), /* link-local v2: never */
		mkgid(2, "fd00:0000:0000:0000:0000:0000:0000:0021", 1), /* IPv6 v2 */
		mkgid(3, "0000:0000:0000:0000:0000:ffff:0a02:0015", 0), /* IPv4-mapped v1 */
		mkgid(4, "0000:0000:0000:0000:0000:ffff:0a02:0015", 1), /* IPv4-mapped v2: best */
		mkgid(5, "0000:0000:0000:0000:0000:0000:0000:0000", 1), /* unused */
	};

	CHECK(inv_gid_pick(g, 6) == 4);
	CHECK(inv_gid_pick(g, 4) == 2);   /* no IPv4-mapped v2: IPv6 v2 */
	CHECK(inv_gid_pick(g, 2) == -1);  /* only link-local and v1 */
	CHECK(inv_gid_pick(&g[5], 1) == -1);
	CHECK(inv_gid_parse("fe80::1", raw) == FP_EUSAGE);
	CHECK(inv_gid_parse("fe80:0000:0000:0000:0000:0000:0000:0001x", raw) == FP_EUSAGE);
}

/* machine(numa -1) ─ pkg0(numa 0) ─ hb0 ─ sw(up) ─ port ─ GPU a (0)
 *                                               └ port ─ NIC b (1)
 *                                        └ port ─ sw2(up) ─ port ─ NIC c (2)
 *                                  └ NIC d on hb0's root bus (3)
 *                     └ hb1 ─ NIC e (4)
 *                 └ pkg1(numa 1) ─ hb2 ─ NIC f (5)                                      */
static void test_class_tree(void)
{
	struct inv_loc_tree t = { 0 };
	enum { M, P0, HB0, SW, PA, PB, PC, SW2, PC2, P1, HB1, HB2, A, B, C, D, E, F };
	static const int parent[] = { -1, M, P0, HB0, SW, SW, SW, PC, SW2, M, P0, P1, PA, PB, PC2, HB0, HB1, HB2 };
	static const int kind[] = { INV_LOC_CPU, INV_LOC_CPU, INV_LOC_HOSTBRIDGE, INV_LOC_BRIDGE,
				    INV_LOC_BRIDGE, INV_LOC_BRIDGE, INV_LOC_BRIDGE, INV_LOC_BRIDGE,
				    INV_LOC_BRIDGE, INV_LOC_CPU, INV_LOC_HOSTBRIDGE, INV_LOC_HOSTBRIDGE };
	static const int numa[] = { -1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1 };

	t.n = F + 1;
	for (int i = 0; i < t.n; i++) {
		t.v[i].parent = parent[i];
		t.v[i].kind = i >= A ? INV_LOC_DEVICE : kind[i];
		t.v[i].numa = numa[i];
	}
	CHECK(inv_loc_class(&t, A, B) == INV_PIX);
	CHECK(inv_loc_class(&t, A, C) == INV_PXB);
	CHECK(inv_loc_class(&t, A, D) == INV_PHB);
	CHECK(inv_loc_class(&t, A, E) == INV_NODE);
	CHECK(inv_loc_class(&t, A, F) == INV_SYS);
	CHECK(inv_loc_class(&t, F, A) == INV_SYS);
	CHECK(inv_loc_class(&t, A, A) == INV_PIX);
	CHECK(inv_loc_class(&t, A, -1) == INV_CLASS_UNKNOWN);
	CHECK_STR(inv_class_name(INV_PXB), "PXB");
	CHECK_STR(inv_class_name(INV_NODE), "NODE");
}

/* ------------------------------------------------------------------ fixtures */

static int have_hwloc(void)
{
	for (int i = 0; inv_probe_registry[i]; i++)
		if (inv_probe_registry[i]->absent && !strcmp(inv_probe_registry[i]->name, "hwloc"))
			return 0;
	return 1;
}

static struct inv_node *probe(const char *name, int xml)
{
	static char sysfs[256], topo[256];
	struct inv_node *n = malloc(sizeof *n);
	struct inv_probe_ctx ctx = { sysfs, xml ? topo : NULL, NULL };

	snprintf(sysfs, sizeof sysfs, FX "%s/sysfs", name);
	snprintf(topo, sizeof topo, FX "%s/topo.xml", name);
	inv_node_init(n);
	strcpy(n->host, name);
	inv_probe_all(&ctx, n);
	return n;
}

static const struct inv_nic *nic(const struct inv_node *n, const char *label)
{
	char l[64];

	for (int i = 0; i < n->nnics; i++) {
		inv_nic_label(&n->nics[i], l, sizeof l);
		if (!strcmp(l, label))
			return &n->nics[i];
	}
	printf("#   no NIC %s on %s\n", label, n->host);
	static const struct inv_nic none = { .kind = -1 };
	return &none;
}

static int has_note(const struct inv_node *n, const char *text)
{
	for (int i = 0; i < n->nnotes; i++)
		if (strstr(n->notes[i], text))
			return 1;
	printf("#   no warning containing '%s' on %s\n", text, n->host);
	return 0;
}

static const char *gpu_nic(const struct inv_node *n, int g)
{
	static char l[64];

	l[0] = 0;
	if (g < n->ngpus && n->gpus[g].nic >= 0)
		inv_nic_label(&n->nics[n->gpus[g].nic], l, sizeof l);
	return l;
}

static void test_fixture_ib_hdr(void)
{
	struct inv_node *n = probe("ib-hdr", 1);
	char l[32];

	CHECK(n->nnics == 10);
	for (int i = 0; i < 8; i++) {
		const struct inv_nic *p;

		snprintf(l, sizeof l, "mlx5_%d:1", i);
		p = nic(n, l);
		CHECK_EQ(p->kind, INV_KIND_INFINIBAND);
		CHECK_STR(p->state, "active");
		CHECK_NEAR(p->rate_gbps, 200, 0);
		CHECK_EQ(p->width, 4);
		CHECK_STR(p->speed, "HDR");
		CHECK_EQ(p->numa, i / 4);
		CHECK_EQ(p->gid_index, -1);
		CHECK_EQ(p->netdev[0], 'i');
		CHECK_EQ(p->netdev[2], '0' + i);
		CHECK_EQ(p->mtu, 4092);
		CHECK_STR(p->fw_ver, "20.31.1014");
	}
	CHECK_STR(nic(n, "mlx5_3:1")->guid_or_mac, "0c42:a103:0010:0003");
	CHECK_STR(nic(n, "mlx5_5:1")->pci, "0000:26:00.0");
	CHECK_EQ(nic(n, "eth0")->kind, INV_KIND_ETHERNET);
	CHECK_EQ(nic(n, "eth0")->rate_gbps, 1);
	CHECK(nic(n, "lo")->is_virtual);
	CHECK_EQ(nic(n, "lo")->kind, INV_KIND_LOOPBACK);
	CHECK(inv_node_has_path(n, "tcp:ib3", 0));
	CHECK(inv_node_has_path(n, "verbs:mlx5_7:1", 0));
	CHECK(!inv_node_has_path(n, "tcp:lo", 0));
	if (!have_hwloc()) {
		printf("skip - test_fixture_ib_hdr_gpus: hwloc not built\n");
		free(n);
		return;
	}
	CHECK_EQ(n->ngpus, 8);
	CHECK_EQ(n->sockets, 2);
	CHECK_EQ(n->cores, 8);
	CHECK_EQ(n->threads, 16);
	CHECK_EQ(n->numa_nodes, 2);
	CHECK_STR(n->cpu_model, "AMD EPYC 7742 64-Core Processor");
	for (int g = 0; g < n->ngpus; g++) {
		snprintf(l, sizeof l, "mlx5_%d:1", g);
		CHECK_STR(gpu_nic(n, g), l); /* one rail per GPU */
		CHECK_EQ(n->gpus[g].path_class, INV_PIX);
		CHECK_EQ(n->gpus[g].numa, g / 4);
	}
	/* the rails: each GPU's port, in GPU order, on most nodes */
	struct inv_node *three = malloc(3 * sizeof *three);
	char rails[INV_RAILS_MAX][INV_PATH_MAX];

	for (int k = 0; k < 3; k++)
		three[k] = *n;
	CHECK_EQ(inv_rails(three, 3, rails), 8);
	CHECK_STR(rails[0], "verbs:mlx5_0:1");
	CHECK_STR(rails[7], "verbs:mlx5_7:1");
	three[0].gpus[2].nic = three[0].gpus[3].nic; /* one node: two GPUs on one NIC */
	CHECK_EQ(inv_rails(three, 3, rails), 8);     /* the other two agree */
	CHECK_STR(rails[2], "verbs:mlx5_2:1");
	three[1].gpus[6].nic = -1;                    /* a second node: a GPU without a port */
	CHECK_EQ(inv_rails(three, 3, rails), 0);      /* no list on more than half */
	three[0] = three[1] = three[2];
	strcpy(three[1].nics[three[1].gpus[4].nic].state, "down"); /* a port down: no rail of it */
	CHECK_EQ(inv_rails(three, 2, rails), 0);      /* one of two is no majority */
	CHECK_EQ(inv_rails(three, 3, rails), 8);
	three[0].ngpus = three[1].ngpus = three[2].ngpus = 2; /* two rails cannot judge one */
	CHECK_EQ(inv_rails(three, 3, rails), 0);
	free(three);
	int g0 = inv_loc_find(&n->loc, n->gpus[0].pci);
	CHECK(inv_loc_class(&n->loc, g0, inv_loc_find(&n->loc, "0000:14:00.0")) == INV_NODE);
	CHECK(inv_loc_class(&n->loc, g0, inv_loc_find(&n->loc, "0000:24:00.0")) == INV_SYS);
	CHECK(n->nnotes == 0);
	free(n);
}

static void test_fixture_roce(void)
{
	struct inv_node *n = probe("roce", 1);
	const struct inv_nic *p0 = nic(n, "mlx5_0:1"), *p1 = nic(n, "mlx5_1:1");

	CHECK_EQ(p0->kind, INV_KIND_ROCE);
	CHECK_EQ(p1->kind, INV_KIND_ROCE);
	CHECK(p0->gid_index == 5); /* RoCE v2, IPv4-mapped */
	CHECK(p1->gid_index == 3); /* RoCE v2, IPv6 (no IPv4) */
	CHECK_STR(p0->netdev, "ens6f0np0");
	CHECK_STR(p0->guid_or_mac, "0c:42:a1:22:30:00");
	CHECK_NEAR(p0->rate_gbps, 100, 0);
	CHECK_EQ(p0->mtu, 9000);
	CHECK_STR(p0->ipv4, "10.2.0.21");
	CHECK_EQ(p0->ipv4_prefix, 24);
	CHECK(inv_node_has_path(n, "tcp:ens6f0np0", 0));
	CHECK(!inv_node_has_path(n, "tcp:ens6f1np1", 0));
	CHECK(inv_node_has_path(n, "verbs:mlx5_1:1", 0));
	if (!have_hwloc()) {
		printf("skip - test_fixture_roce_gpus: hwloc not built\n");
		free(n);
		return;
	}
	CHECK(n->ngpus == 2);
	CHECK_EQ(n->gpus[0].path_class, INV_PHB);
	CHECK_STR(gpu_nic(n, 0), "mlx5_0:1");
	CHECK_EQ(n->gpus[1].path_class, INV_PXB);
	CHECK_STR(gpu_nic(n, 1), "mlx5_1:1");
	CHECK(inv_node_has_path(n, "nccl", "nccl"));
	CHECK(!inv_node_has_path(n, "nccl", NULL));
	free(n);
}

static void test_fixture_eth25(void)
{
	struct inv_node *n = probe("eth25", 0);

	CHECK_EQ(n->sockets, 1);
	CHECK_EQ(n->cores, 4);
	CHECK_EQ(n->threads, 8);
	CHECK_EQ(n->numa_nodes, 1);
	CHECK(n->numa_mem_bytes == 67108864LL * 1024);
	CHECK_EQ(nic(n, "eth0")->kind, INV_KIND_ETHERNET);
	CHECK(!nic(n, "eth0")->is_virtual);
	CHECK_NEAR(nic(n, "eth0")->rate_gbps, 25, 0);
	CHECK(isnan(nic(n, "eth1")->rate_gbps)); /* speed -1: unknown, not 0 */
	CHECK_STR(nic(n, "eth1")->state, "down");
	CHECK_EQ(nic(n, "eth1")->numa, 0);
	CHECK(nic(n, "docker0")->is_virtual);
	CHECK(nic(n, "veth12ab")->is_virtual);
	CHECK(nic(n, "lo")->is_virtual);
	CHECK(inv_node_has_path(n, "tcp:eth0", "nccl"));
	CHECK(!inv_node_has_path(n, "tcp:eth1", "nccl"));
	CHECK(!inv_node_has_path(n, "tcp:veth12ab", "nccl"));
	CHECK_EQ(n->ngpus, 0);
	CHECK(!inv_node_has_path(n, "nccl", "nccl"));
	CHECK(strstr(n->probes_missing, "hwloc") != NULL);
	free(n);
}

static void test_fixture_degraded(void)
{
	struct inv_node *n = probe("ib-degraded", 1);

	CHECK_NEAR(nic(n, "mlx5_1:1")->rate_gbps, 100, 0);
	CHECK(nic(n, "mlx5_1:1")->width == 2);
	CHECK_STR(nic(n, "mlx5_2:1")->state, "down");
	CHECK(isnan(nic(n, "mlx5_2:1")->rate_gbps));
	CHECK(!inv_node_has_path(n, "verbs:mlx5_2:1", 0));
	CHECK(inv_node_has_path(n, "verbs:mlx5_1:1", 0));
	CHECK(has_note(n, "port mlx5_1:1 runs at 2X while others run at 4X"));
	CHECK(has_note(n, "port mlx5_2:1 is down"));
	if (!have_hwloc()) {
		printf("skip - test_fixture_degraded_gpus: hwloc not built\n");
		free(n);
		return;
	}
	CHECK(n->ngpus == 3);
	CHECK_STR(gpu_nic(n, 0), "mlx5_0:1");
	CHECK_STR(gpu_nic(n, 1), "mlx5_0:1");
	CHECK_EQ(n->gpus[0].path_class, INV_PIX);
	CHECK_EQ(n->gpus[1].path_class, INV_PIX);
	CHECK(n->gpus[2].path_class == INV_SYS);
	CHECK(has_note(n, "2 GPUs share NIC mlx5_0:1 while NIC mlx5_3:1 is idle"));
	CHECK(has_note(n, "GPU 2 (0000:83:00.0): nearest usable NIC mlx5_1:1 is across the socket"));
	free(n);
}

static void test_fixture_bad(void)
{
	struct inv_node *n = probe("bad", 1);

	CHECK(has_note(n, FX "bad/sysfs/class/infiniband/mlx5_0/ports/1/rate: malformed"));
	CHECK(has_note(n, FX "bad/sysfs/class/infiniband/mlx5_0/ports/1/state: malformed"));
	CHECK(has_note(n, FX "bad/sysfs/class/infiniband/mlx5_0/ports/1/gids/0: malformed GID"));
	CHECK(has_note(n, FX "bad/sysfs/class/infiniband/mlx5_1/ports/1/link_layer: unreadable"));
	CHECK(has_note(n, FX "bad/sysfs/class/net/eth0/speed: malformed"));
	if (have_hwloc())
		CHECK(has_note(n, FX "bad/topo.xml: cannot load"));
	/* the probe went on: what could be read is there */
	CHECK_NEAR(nic(n, "mlx5_1:1")->rate_gbps, 56, 0);
	CHECK_EQ(nic(n, "eth0")->mtu, 1500);
	CHECK(isnan(nic(n, "eth0")->rate_gbps));
	free(n);
}

/* a hostile tree: a captured tree with FIFOs never hangs the probe; a speed of 10^23
 * Mb/s and an MTU of "abc" are left empty with a warning, never a figure */
static void hung(int sig)
{
	(void)sig;
	printf("not ok - test_hostile_tree: the probe hung on a FIFO\n");
	fflush(stdout);
	_exit(1);
}

static void put(const char *root, const char *rel, const char *text)
{
	char path[512], cmd[600];
	FILE *f;

	snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s/%s')\"", root, rel);
	if (system(cmd))
		return;
	snprintf(path, sizeof path, "%s/%s", root, rel);
	if (!text) {
		mkfifo(path, 0600);
		return;
	}
	if ((f = fopen(path, "w"))) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_hostile_tree(void)
{
	char root[] = "/tmp/fp-inv-XXXXXX", cmd[64];
	struct inv_node *n = malloc(sizeof *n);
	struct inv_probe_ctx ctx = { root, NULL, NULL };

	if (!n || !mkdtemp(root))
		SKIP("no temporary directory");
	put(root, "class/net/eth0/type", "1\n");
	put(root, "class/net/eth0/operstate", "up\n");
	put(root, "class/net/eth0/mtu", NULL);
	put(root, "class/net/eth0/speed", "100000000000000000000000\n");
	put(root, "class/net/eth1/type", "1\n");
	put(root, "class/net/eth1/operstate", "up\n");
	put(root, "class/net/eth1/mtu", "abc\n");
	put(root, "class/net/eth1/speed", "25000\n");
	put(root, "fabprobe-ipv4", NULL);
	inv_node_init(n);
	strcpy(n->host, "hostile");
	signal(SIGALRM, hung);
	alarm(20);
	inv_probe_all(&ctx, n);
	alarm(0);
	CHECK(isnan(nic(n, "eth0")->rate_gbps) && nic(n, "eth0")->mtu == -1);
	CHECK(nic(n, "eth1")->mtu == -1);
	CHECK_NEAR(nic(n, "eth1")->rate_gbps, 25, 0);
	CHECK(has_note(n, "rate 9.22337e+15 Gb/s is outside"));
	CHECK(has_note(n, "mtu = 0 is outside"));
	CHECK(has_note(n, "fabprobe-ipv4: not a regular file"));
	snprintf(cmd, sizeof cmd, "rm -rf %s", root);
	if (system(cmd))
		printf("# could not remove %s\n", root);
	free(n);
}

/* ------------------------------------------------------------------ paths and mismatches */

static void test_paths_and_mismatches(void)
{
	struct inv_node *a = probe("ib-hdr", 0), *nodes = malloc(3 * sizeof *nodes);
	struct inv_path p[INV_PATHS_MAX];
	struct inv_mismatch m[64];
	int np, nm;

	for (int k = 0; k < 3; k++)
		nodes[k] = *a;
	strcpy(nodes[2].host, "odd");
	strcpy(nodes[2].nics[4].fw_ver, "20.99.9999");      /* mlx5_3:1 */
	nodes[2].nics[6].rate_gbps = 100;                      /* mlx5_5:1 */
	strcpy(nodes[2].nics[8].netdev_state, "down");         /* ib7: its tcp path is gone */
	CHECK_STR(nodes[2].nics[4].device, "mlx5_3");
	np = inv_paths(nodes, 3, "nccl", p, INV_PATHS_MAX);
	CHECK(np == 1 + 9 + 8); /* mpi, tcp eth0 ib0-7, verbs x8; no GPUs without hwloc XML */
	CHECK_STR(p[0].name, "mpi");
	CHECK_STR(p[1].name, "tcp:eth0");
	CHECK_EQ(p[1].kind, INV_KIND_ETHERNET);
	CHECK_STR(p[1].subnet, "192.168.1.0/24");
	CHECK_EQ(p[1].nnodes, 3);
	CHECK_STR(p[9].name, "tcp:ib7");
	CHECK_EQ(p[9].nnodes, 2);
	CHECK_EQ(p[9].kind, INV_KIND_IPOIB); /* tcp over ib7: as the tcp transport says */
	CHECK_STR(p[10].name, "verbs:mlx5_0:1");
	nm = inv_mismatches(nodes, 3, "nccl", m, 64);
	CHECK_EQ(nm, 3);
	for (int i = 0; i < nm; i++) {
		CHECK_EQ(m[i].node, 2);
		CHECK(!m[i].tie);
		printf("#   %s %s %s (majority %s)\n", m[i].item, m[i].field, m[i].value, m[i].majority);
	}
	if (nm >= 3) { /* (nm == 3 is checked above) */
		CHECK_STR(m[0].item, "mlx5_3:1");
		CHECK_STR(m[0].field, "fw_ver");
		CHECK_STR(m[0].majority, "20.31.1014");
		CHECK_STR(m[1].item, "mlx5_5:1");
		CHECK_STR(m[1].field, "rate_Gbps");
		CHECK_STR(m[1].value, "100");
		CHECK_STR(m[1].majority, "200");
		CHECK_STR(m[2].item, "path tcp:ib7");
		CHECK_STR(m[2].value, "no");
	}
	/* two nodes that differ: a tie, the first node is the reference */
	nm = inv_mismatches(nodes + 1, 2, "nccl", m, 64);
	CHECK_EQ(nm, 3);
	if (nm >= 1) {
		CHECK_EQ(m[0].node, 1);
		CHECK(m[0].tie);
	}
	CHECK(inv_mismatches(nodes, 2, "nccl", m, 64) == 0);
	CHECK(inv_mismatches(nodes, 1, "nccl", m, 64) == 0);
	free(a);
	free(nodes);
}

/* which of the paths `run` measures when not told */
static int taken(const struct inv_path *p, int np, const int *take, const char *name)
{
	for (int i = 0; i < np; i++)
		if (!strcmp(p[i].name, name))
			return take[i];
	return -1;
}

/* the NIC whose netdev this is (an RDMA port's netdev too) */
static struct inv_nic *nic_rw(struct inv_node *n, const char *netdev)
{
	static struct inv_nic none;

	for (int i = 0; i < n->nnics; i++)
		if (!strcmp(n->nics[i].netdev, netdev))
			return &n->nics[i];
	printf("#   no netdev %s on %s\n", netdev, n->host);
	return &none;
}

static void test_default_paths(void)
{
	struct inv_node *a = probe("ib-hdr", 0), *nodes = malloc(4 * sizeof *nodes);
	struct inv_path p[INV_PATHS_MAX];
	char why[INV_PATHS_MAX][INV_WHY_MAX];
	int take[INV_PATHS_MAX], np;

	for (int k = 0; k < 4; k++) {
		nodes[k] = *a;
		snprintf(nodes[k].host, sizeof nodes[k].host, "gpu%d", k);
		/* every node its own addresses */
		for (int i = 0; i < nodes[k].nnics; i++)
			if (nodes[k].nics[i].ipv4[0])
				snprintf(strrchr(nodes[k].nics[i].ipv4, '.') + 1, 4, "%u", (unsigned)(10 + k) % 256u);
	}
	strcpy(nic_rw(&nodes[3], "ib7")->netdev_state, "down");   /* ib7 on 3 of 4: most */
	strcpy(nic_rw(&nodes[2], "ib6")->netdev_state, "down");
	strcpy(nic_rw(&nodes[3], "ib6")->netdev_state, "down");   /* ib6 on 2 of 4: not most */
	np = inv_paths(nodes, 4, 0, p, INV_PATHS_MAX);
	CHECK(inv_paths_default(p, np, 4, take, why) > 0);
	CHECK(taken(p, np, take, "mpi") == 1);
	CHECK(taken(p, np, take, "tcp:ib7") == 1);
	CHECK(taken(p, np, take, "tcp:ib6") == 0);
	CHECK(taken(p, np, take, "verbs:mlx5_0:1") == 1);
	/* the fixture's eth0 runs at 1 Gb/s beside 200 Gb/s ports: the management network */
	CHECK(taken(p, np, take, "tcp:eth0") == 0);
	for (int i = 0; i < np; i++)
		if (!strcmp(p[i].name, "tcp:eth0"))
			CHECK(strstr(why[i], "management") != NULL);
	for (int k = 0; k < 4; k++)
		nic_rw(&nodes[k], "eth0")->rate_gbps = 25;
	np = inv_paths(nodes, 4, 0, p, INV_PATHS_MAX);
	inv_paths_default(p, np, 4, take, why);
	CHECK(taken(p, np, take, "tcp:eth0") == 1);
	/* the same address on two nodes: a node-local network (docker0, virbr0) */
	strcpy(nic_rw(&nodes[1], "eth0")->ipv4, nic_rw(&nodes[0], "eth0")->ipv4);
	nic_rw(&nodes[1], "eth0")->rate_gbps = nic_rw(&nodes[0], "eth0")->rate_gbps = NAN;
	np = inv_paths(nodes, 4, 0, p, INV_PATHS_MAX);
	inv_paths_default(p, np, 4, take, why);
	CHECK(taken(p, np, take, "tcp:eth0") == 0);
	/* a virtual netdev (a container's veth) is a path only where no physical one has an
	 * address: the emulated cluster's nodes */
	for (int k = 0; k < 4; k++) {
		for (int i = 0; i < nodes[k].nnics; i++)
			nodes[k].nics[i].ipv4[0] = 0;
		struct inv_nic *e = nic_rw(&nodes[k], "eth0");
		snprintf(e->ipv4, sizeof e->ipv4, "10.77.0.%u", (unsigned)(k + 1) % 256u);
		e->is_virtual = 1;
	}
	np = inv_paths(nodes, 4, 0, p, INV_PATHS_MAX);
	inv_paths_default(p, np, 4, take, why);
	CHECK(taken(p, np, take, "tcp:eth0") == 1);
	snprintf(nic_rw(&nodes[0], "ib0")->ipv4, 16, "192.168.9.1"); /* node 0 has a physical one */
	np = inv_paths(nodes, 4, 0, p, INV_PATHS_MAX);
	for (int i = 0; i < np; i++)
		if (!strcmp(p[i].name, "tcp:eth0"))
			CHECK(p[i].nnodes == 3);
	free(a);
	free(nodes);
}

static void test_expand_and_opts(void)
{
	struct inv_opts o;
	char out[64], err[OPTS_ERR_MAX];
	char *ok[] = { "inventory", "--sysfs-root", "fx/n%r/%h%%", "--hwloc-xml", "t.xml", NULL };
	char *bad1[] = { "inventory", "--sysfs-root", "fx/%x", NULL };
	char *bad2[] = { "inventory", "-o", "d", "--name", "n", NULL };
	char *bad3[] = { "inventory", "--paths", "mpi", NULL };

	CHECK(inv_expand("fx/n%r/%h%%", "gpu01", 3, out, sizeof out) == 0);
	CHECK_STR(out, "fx/n3/gpu01%");
	CHECK(inv_expand("%q", "h", 0, out, sizeof out) == FP_EUSAGE);
	CHECK(inv_expand("%h%h%h", "0123456789012345678901234", 0, out, sizeof out) == FP_EUSAGE);
	if (strstr(FP_FEATURES, "hwloc=no")) { /* a build without hwloc says so, up front */
		CHECK_EQ(inv_opts_parse(5, ok, &o, err), FP_EUSAGE);
		CHECK_HAS(err, "no hwloc");
	} else {
		CHECK_EQ(inv_opts_parse(5, ok, &o, err), 0);
		CHECK_STR(o.hwloc_xml, "t.xml");
	}
	CHECK_EQ(inv_opts_parse(3, bad1, &o, err), FP_EUSAGE);
	CHECK_HAS(err, "--sysfs-root");
	CHECK_EQ(inv_opts_parse(5, bad2, &o, err), FP_EUSAGE);
	CHECK_HAS(err, "cannot be combined");
	CHECK_EQ(inv_opts_parse(3, bad3, &o, err), FP_EUSAGE);
	CHECK_HAS(err, "unknown option --paths");
}

/* The one netdev reader (the sysfs probe and the tcp transport): kinds named as the tcp
 * transport writes them into p2p.csv. */
static void test_netdev_read(void)
{
	struct inv_netdev d;

	inv_netdev_read(FX "ib-hdr/sysfs", "ib0", &d);
	CHECK(d.kind == INV_KIND_IPOIB);
	CHECK(!d.is_virtual);
	CHECK(d.mtu == 4092);
	CHECK(d.bad == 0);
	CHECK_STR(inv_kind_name(d.kind), "ipoib");
	CHECK_NEAR(d.rate_gbps, 200, 0);
	inv_netdev_read(FX "eth25/sysfs", "eth0", &d);
	CHECK(d.kind == INV_KIND_ETHERNET);
	CHECK(!d.is_virtual);
	CHECK(d.mtu == 9000);
	CHECK_STR(inv_kind_name(d.kind), "ethernet");
	CHECK_STR(d.operstate, "up");
	CHECK_STR(d.address, "b8:59:9f:25:00:10");
	CHECK_NEAR(d.rate_gbps, 25, 0);
	inv_netdev_read(FX "eth25/sysfs", "eth1", &d);
	CHECK(isnan(d.rate_gbps)); /* speed -1: unknown, not 0 */
	inv_netdev_read(FX "eth25/sysfs", "veth12ab", &d);
	CHECK(d.kind == INV_KIND_ETHERNET);
	CHECK(d.is_virtual);
	inv_netdev_read(FX "eth25/sysfs", "lo", &d);
	CHECK(d.kind == INV_KIND_LOOPBACK);
	CHECK(d.is_virtual);
	CHECK_STR(inv_kind_name(d.kind), "loopback");
	inv_netdev_read(FX "bad/sysfs", "eth0", &d);
	CHECK(d.bad == INV_NETDEV_BAD_SPEED);
	CHECK(isnan(d.rate_gbps));
	inv_netdev_read(FX "eth25/sysfs", "nosuch0", &d);
	CHECK(d.kind == INV_KIND_UNKNOWN);
	CHECK(d.is_virtual);
	CHECK(d.mtu == -1);
	CHECK(isnan(d.rate_gbps));
	CHECK(d.bad == INV_NETDEV_BAD_OPERSTATE);
	CHECK_STR(inv_kind_name(d.kind), "");
	/* a port's netdev: RoCE runs over ethernet, InfiniBand over ipoib */
	CHECK(inv_kind_netdev(INV_KIND_ROCE) == INV_KIND_ETHERNET);
	CHECK(inv_kind_netdev(INV_KIND_INFINIBAND) == INV_KIND_IPOIB);
	CHECK(inv_kind_netdev(INV_KIND_ETHERNET) == INV_KIND_ETHERNET);
}

/* The netdev a verbs rail is probed on: RoCE's (gid_attrs/ndevs/0), IPoIB's (the function's
 * net/), none for a device or port that is not there */
static void test_port_netdev(void)
{
	char nd[64];

	inv_port_netdev("tests/fixtures/roce/sysfs", "mlx5_1", 1, nd, sizeof nd);
	CHECK_STR(nd, "ens6f1np1");
	inv_port_netdev("tests/fixtures/ib-hdr/sysfs", "mlx5_3", 1, nd, sizeof nd);
	CHECK_STR(nd, "ib3");
	inv_port_netdev("tests/fixtures/ib-hdr/sysfs", "mlx5_9", 1, nd, sizeof nd);
	CHECK_STR(nd, "");
	inv_port_netdev("tests/fixtures/roce/sysfs", "../../..", 1, nd, sizeof nd);
	CHECK_STR(nd, "");
}

int main(void)
{
	RUN(test_width_and_speed);
	RUN(test_rate_and_state_strings);
	RUN(test_gid_pick);
	RUN(test_class_tree);
	RUN(test_fixture_ib_hdr);
	RUN(test_fixture_roce);
	RUN(test_fixture_eth25);
	RUN(test_fixture_degraded);
	RUN(test_fixture_bad);
	RUN(test_netdev_read);
	RUN(test_port_netdev);
	RUN(test_hostile_tree);
	RUN(test_paths_and_mismatches);
	RUN(test_default_paths);
	RUN(test_expand_and_opts);
	CHECK_EXIT();
}
