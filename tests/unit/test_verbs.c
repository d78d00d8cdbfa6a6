/* The verbs transport's pure parts (verbs_wire.c), in every build: the path argument, what a
 * port offers, the RoCE v2 GID choice on synthetic sysfs trees (a 40-entry table), the
 * connection-info message and its checks, MTU, PSN, selective signalling, the INIT/RTR/RTS
 * attribute sets for InfiniBand (with a GRH where a port requires one or the subnets differ)
 * and RoCE, the QoS, whose fault a failed completion is, the XDR speed code, and the teardown's
 * order. Whether the transport is registered follows the build. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/log.h"
#include "cmd/cmd.h"
#include "p2p/p2p.h"
#include "p2p/transport.h"
#include "p2p/verbs_wire.h"

#define FX "tests/fixtures/"

static void test_arg_parse(void)
{
	char dev[TR_DEV_MAX], why[TR_WHY_MAX];
	int port = 0;

	CHECK(verbs_arg_parse("mlx5_0:1", dev, sizeof dev, &port, why) == 0);
	CHECK_STR(dev, "mlx5_0");
	CHECK(port == 1);
	CHECK_EQ(verbs_arg_parse("bnxt_re0:2", dev, sizeof dev, &port, why), 0);
	CHECK_EQ(port, 2);
	CHECK_STR(dev, "bnxt_re0");
	static const char *const bad[] = { "mlx5_0", ":1", "mlx5_0:", "mlx5_0:0", "mlx5_0:256",
					    "mlx5_0:1x", "0123456789012345678901234567890123:1" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		why[0] = 0;
		CHECK_EQ(verbs_arg_parse(bad[i], dev, sizeof dev, &port, why), FP_EUSAGE);
		CHECK(why[0]);
	}
	CHECK(verbs_arg_parse(NULL, dev, sizeof dev, &port, why) == FP_EUSAGE);
	CHECK(strstr(why, "verbs:<device>:<port>") != NULL);
	/* the one parser under every reader of the argument (placement, GID, rail probes) */
	CHECK_EQ(inv_verbs_arg("a/b:1", dev, sizeof dev, &port), -1);  /* never a path in sysfs */
	CHECK_EQ(inv_verbs_arg("..:1", dev, sizeof dev, &port), -1);
	CHECK_EQ(inv_verbs_arg("mlx5\n0:1", dev, sizeof dev, &port), -1); /* a line break reaches no row */
	CHECK_EQ(inv_verbs_arg("mlx 5:1", dev, sizeof dev, &port), -1);
	CHECK_EQ(inv_verbs_arg("mlx5_0:+1", dev, sizeof dev, &port), -2);
	CHECK_EQ(inv_verbs_arg("mlx5_0: 1", dev, sizeof dev, &port), -2);
	CHECK_EQ(inv_verbs_arg("mlx5_0:99999999999999999999", dev, sizeof dev, &port), -2);
	CHECK_EQ(inv_verbs_arg("odd:name:2", dev, sizeof dev, &port), 0); /* the last ':' splits */
	CHECK_STR(dev, "odd:name");
	CHECK_EQ(port, 2);
}

static void test_rate_decode(void)
{
	CHECK_NEAR(verbs_rate_gbps(64, 2), 200, 0);   /* 4x HDR */
	CHECK_NEAR(verbs_rate_gbps(128, 2), 400, 0);  /* 4x NDR */
	CHECK_NEAR(verbs_rate_gbps(32, 2), 100, 0);   /* 4x EDR */
	CHECK_NEAR(verbs_rate_gbps(16, 2), 56, 1e-9); /* 4x FDR */
	CHECK_NEAR(verbs_rate_gbps(64, 16), 100, 0);  /* 2x HDR */
	CHECK_NEAR(verbs_rate_gbps(1, 1), 2.5, 0);    /* 1x SDR */
	CHECK(isnan(verbs_rate_gbps(0, 2)));          /* unknown speed */
	CHECK(isnan(verbs_rate_gbps(64, 3)));         /* unknown width */
}

static struct verbs_port port_ok(int ll)
{
	return (struct verbs_port){ .state = VERBS_PORT_ACTIVE, .link_layer = ll, .lid = 7,
				    .active_mtu = VERBS_MTU_4096, .active_speed = 64, .active_width = 2,
				    .gid_index = 3 };
}

static void test_port_describe(void)
{
	struct verbs_port p = port_ok(VERBS_LL_INFINIBAND);
	struct tr_port t;

	verbs_port_describe(&p, "mlx5_0", 1, "gpu01", NULL, &t);
	CHECK(t.usable == 1);
	CHECK_STR(t.dev, "mlx5_0:1");
	CHECK_STR(t.kind, "infiniband");
	CHECK_NEAR(t.rate_gbps, 200, 0);
	p.link_layer = 0; /* unspecified is InfiniBand, as libibverbs says */
	verbs_port_describe(&p, "mlx5_0", 1, "gpu01", NULL, &t);
	CHECK(t.usable == 1);
	CHECK_STR(t.kind, "infiniband");
	p = port_ok(VERBS_LL_ETHERNET);
	verbs_port_describe(&p, "mlx5_2", 1, "gpu01", NULL, &t);
	CHECK(t.usable == 1);
	CHECK_STR(t.kind, "roce");
	/* the reasons a port is skipped, each naming port and host */
	p.gid_index = -1;
	verbs_port_describe(&p, "mlx5_2", 1, "gpu01", NULL, &t);
	CHECK(!t.usable);
	CHECK_HAS(t.why, "mlx5_2:1 on gpu01 has no usable RoCE v2 GID");
	p = port_ok(VERBS_LL_INFINIBAND);
	p.lid = 0;
	verbs_port_describe(&p, "mlx5_0", 1, "gpu01", NULL, &t);
	CHECK(!t.usable);
	CHECK_HAS(t.why, "mlx5_0:1 on gpu01 has no LID");
	p = port_ok(VERBS_LL_INFINIBAND);
	p.state = 1;
	verbs_port_describe(&p, "mlx5_0", 1, "gpu01", NULL, &t);
	CHECK(!t.usable);
	CHECK_HAS(t.why, "mlx5_0:1 on gpu01 is not active");
	CHECK(isnan(t.rate_gbps)); /* no negotiated rate on a port that is down */
	p = port_ok(VERBS_LL_INFINIBAND);
	p.active_mtu = 9;
	verbs_port_describe(&p, "mlx5_0", 1, "gpu01", NULL, &t);
	CHECK(!t.usable);
	CHECK_HAS(t.why, "unknown MTU");
}

static void test_gid_choose_fixture(void)
{
	uint8_t gid[16] = { 0 };
	static const uint8_t v4[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 2, 0, 0x15 };

	/* types: 0 v1 link-local, 1 v2 link-local, 2 v1 fd00::21, 3 v2 fd00::21, 4 v1 ::ffff:10.2.0.21,
	 * 5 v2 ::ffff:10.2.0.21, 6 zero (no type): the IPv4-mapped RoCE v2 one wins */
	CHECK(inv_gid_choose(FX "roce/sysfs", "mlx5_0", 1, gid) == 5);
	CHECK(!memcmp(gid, v4, 16));
	CHECK(inv_gid_choose(FX "roce/sysfs", "mlx5_0", 1, NULL) == 5);
	/* InfiniBand ports have no RoCE v2 GID; absent devices and ports have none */
	CHECK(inv_gid_choose(FX "ib-hdr/sysfs", "mlx5_0", 1, NULL) == -1);
	CHECK(inv_gid_choose(FX "roce/sysfs", "mlx5_9", 1, NULL) == -1);
	CHECK(inv_gid_choose(FX "roce/sysfs", "mlx5_0", 2, NULL) == -1);
}

static void test_mtu_and_psn(void)
{
	static const int bytes[] = { 256, 512, 1024, 2048, 4096 };

	for (int m = VERBS_MTU_256; m <= VERBS_MTU_4096; m++) {
		CHECK(verbs_mtu_bytes(m) == bytes[m - 1]);
		CHECK(verbs_mtu_from_bytes(bytes[m - 1]) == m);
	}
	CHECK_EQ(verbs_mtu_bytes(0), 0);
	CHECK_EQ(verbs_mtu_bytes(6), 0);
	CHECK_EQ(verbs_mtu_from_bytes(1500), -1);
	CHECK_EQ(verbs_mtu_from_bytes(9000), -1);
	CHECK(verbs_mtu_path(VERBS_MTU_4096, VERBS_MTU_1024) == VERBS_MTU_1024);
	CHECK(verbs_mtu_path(VERBS_MTU_2048, VERBS_MTU_4096) == VERBS_MTU_2048);
	CHECK(verbs_mtu_path(VERBS_MTU_4096, VERBS_MTU_4096) == VERBS_MTU_4096);
	CHECK(verbs_psn(0xffffffffu) == 0xffffff);
	CHECK(verbs_psn(0x12345678u) == 0x345678);
	CHECK(verbs_psn(0) == 0);
	for (uint32_t i = 0, r = 1; i < 100000; i++, r = r * 1664525u + 1013904223u)
		if (verbs_psn(r) > VERBS_PSN_MASK || verbs_psn(r) != (r & 0xffffff)) {
			CHECK(0);
			break;
		}
	for (unsigned long i = 0; i < 1000; i++)
		if (verbs_marker(i) == 0 || verbs_marker(i) == verbs_marker(i + 1))
			CHECK(0);
}

static void test_signalling(void)
{
	/* every is half the queue, at least 1, at most 64 */
	CHECK_EQ(verbs_sig_every(128), 64);
	CHECK_EQ(verbs_sig_every(4096), 64);
	CHECK_EQ(verbs_sig_every(20), 10);
	CHECK_EQ(verbs_sig_every(1), 1);
	CHECK_EQ(verbs_sig_every(0), 1);
	CHECK_EQ(verbs_sig_count(0, 16), 0);
	CHECK_EQ(verbs_sig_count(1, 16), 1);
	CHECK_EQ(verbs_sig_count(16, 16), 1);
	CHECK_EQ(verbs_sig_count(17, 16), 2);
	CHECK_EQ(verbs_sig_count(64, 16), 4);
	CHECK_EQ(verbs_sig_count(65, 16), 5);
	/* walking a batch as the transport does: the completions are verbs_sig_count, each covers
	 * at most `every` sends, they add up to the batch, and the last send is signalled */
	static const int cases[][2] = { { 64, 16 }, { 100, 16 }, { 1, 64 }, { 7, 1 }, { 129, 64 } };
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		int n = cases[k][0], every = cases[k][1], unsig = 0, nsig = 0, covered = 0, ok = 1, last = 0;

		for (int i = 0; i < n; i++) {
			last = i == n - 1;
			if (verbs_sig_due(unsig, every, last)) {
				ok &= unsig + 1 <= every;
				covered += unsig + 1;
				nsig++;
				unsig = 0;
			} else {
				unsig++;
			}
		}
		CHECK(ok);
		CHECK_EQ(unsig, 0);
		CHECK_EQ(covered, n);
		CHECK_EQ(nsig, verbs_sig_count(n, every));
	}
}

static struct verbs_info info_ok(int ll)
{
	struct verbs_info in = {
		.magic = VERBS_INFO_MAGIC, .version = VERBS_INFO_VERSION, .link_layer = (uint32_t)ll,
		.gid_type = ll == VERBS_LL_ETHERNET ? VERBS_GID_ROCE_V2 : VERBS_GID_NONE,
		.from = 3, .to = 5, .seq = 42, .qpn = 0xabcdef, .psn = 0x123456, .lid = 17, .gid_index = 5,
		.gid = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 2, 0, 0x15 },
		.mtu = VERBS_MTU_4096, .rkey = 0x8badf00d, .rkey_ctl = 0x0c0ffee1, .addr = 0x7f0012345000ull,
		.size = VERBS_LENT_BYTES(4194304),
	};
	return in;
}

/* the view from the other side of the same pair */
static struct verbs_info info_peer(int ll)
{
	struct verbs_info in = info_ok(ll);

	in.from = 5;
	in.to = 3;
	in.qpn = 0x000101;
	in.psn = 0xfedcba;
	in.lid = 23;
	in.gid[15] = 0x16;
	in.gid_index = 3;
	in.mtu = VERBS_MTU_1024;
	return in;
}

/* every field equal (a memcmp would also compare the padding before addr, which is garbage) */
static void check_info_equal(const struct verbs_info *a, const struct verbs_info *b)
{
	CHECK_EQ(a->magic, b->magic);
	CHECK_EQ(a->version, b->version);
	CHECK_EQ(a->link_layer, b->link_layer);
	CHECK_EQ(a->gid_type, b->gid_type);
	CHECK_EQ(a->from, b->from);
	CHECK_EQ(a->to, b->to);
	CHECK_EQ(a->seq, b->seq);
	CHECK_EQ(a->qpn, b->qpn);
	CHECK_EQ(a->psn, b->psn);
	CHECK_EQ(a->lid, b->lid);
	CHECK_EQ(a->gid_index, b->gid_index);
	CHECK(!memcmp(a->gid, b->gid, sizeof a->gid));
	CHECK_EQ(a->mtu, b->mtu);
	CHECK_EQ(a->rkey, b->rkey);
	CHECK_EQ(a->rkey_ctl, b->rkey_ctl);
	CHECK_EQ(a->addr, b->addr);
	CHECK_EQ(a->size, b->size);
	CHECK_EQ(a->flags, b->flags);
}

static void test_info_round_trip(void)
{
	struct verbs_info in = info_ok(VERBS_LL_ETHERNET), out;
	uint8_t buf[VERBS_INFO_BYTES];
	char why[TR_WHY_MAX];

	in.flags = VERBS_INFO_GRH;
	memset(&out, 0x55, sizeof out);
	verbs_info_encode(&in, buf);
	CHECK_EQ(buf[0], 0x66); /* "fpvb", big-endian */
	CHECK_EQ(buf[1], 0x70);
	CHECK_EQ(buf[2], 0x76);
	CHECK_EQ(buf[3], 0x62);
	CHECK(verbs_info_decode(buf, sizeof buf, &out, why) == 0);
	check_info_equal(&in, &out);
	/* truncated, or longer (another version): refused by length */
	CHECK_EQ(verbs_info_decode(buf, sizeof buf - 1, &out, why), FP_EPEER);
	CHECK_HAS(why, "truncated");
	CHECK(verbs_info_decode(buf, 0, &out, why) == FP_EPEER);
	CHECK(verbs_info_decode(buf, sizeof buf + 8, &out, why) == FP_EPEER);
}

/* encode, decode and check a peer message changed by `mutate`; returns the check's code */
static int check_mutated(int ll, void (*mutate)(struct verbs_info *), char *why)
{
	struct verbs_info mine = info_ok(ll), peer = info_peer(ll), got;
	uint8_t buf[VERBS_INFO_BYTES];

	if (mutate)
		mutate(&peer);
	verbs_info_encode(&peer, buf);
	why[0] = 0;
	if (verbs_info_decode(buf, sizeof buf, &got, why))
		return -100;
	return verbs_info_check(&mine, &got, why);
}

static void m_magic(struct verbs_info *p) { p->magic ^= 0xdeadbeef; }
static void m_version(struct verbs_info *p) { p->version = 3; } /* an older fabprobe */
static void m_seq(struct verbs_info *p) { p->seq = 41; }
static void m_from(struct verbs_info *p) { p->from = 4; }
static void m_qpn0(struct verbs_info *p) { p->qpn = 0; }
static void m_ll_ib(struct verbs_info *p) { p->link_layer = VERBS_LL_INFINIBAND; }
static void m_gid_type(struct verbs_info *p) { p->gid_type = 1; }
static void m_gid0(struct verbs_info *p) { memset(p->gid, 0, 16); }
static void m_lid0(struct verbs_info *p) { p->lid = 0; }
static void m_mtu(struct verbs_info *p) { p->mtu = 7; }
static void m_size(struct verbs_info *p) { p->size = 1025; }
static void m_addr(struct verbs_info *p) { p->addr = 0; }
static void m_gid_v6(struct verbs_info *p)
{
	static const uint8_t v6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x16 };

	memcpy(p->gid, v6, 16);
}
static void m_grh_gid0(struct verbs_info *p) { p->flags = VERBS_INFO_GRH, memset(p->gid, 0, 16); }

static void test_info_check(void)
{
	static const struct { int ll; void (*mutate)(struct verbs_info *); const char *says; } bad[] = {
		{ VERBS_LL_ETHERNET, m_magic, "not a fabprobe verbs connection message" },
		{ VERBS_LL_ETHERNET, m_version, "connection protocol 3, we speak 4" },
		{ VERBS_LL_ETHERNET, m_gid_v6, "RoCE v2 GIDs of two IP versions: ours 10.2.0.21 (index 5), the peer's "
					       "fd00:0:0:0:0:0:0:16 (index 3)" },
		{ VERBS_LL_INFINIBAND, m_grh_gid0, "a GRH is needed (a port requires one) but the peer's port GID is empty" },
		{ VERBS_LL_ETHERNET, m_seq, "for pair 41 (5 to 3), expected pair 42 (5 to 3)" },
		{ VERBS_LL_INFINIBAND, m_from, "for pair 42 (4 to 3)" },
		{ VERBS_LL_ETHERNET, m_qpn0, "could not set up its queue pair" },
		{ VERBS_LL_ETHERNET, m_ll_ib, "link layers differ: ours is RoCE, the peer's InfiniBand" },
		{ VERBS_LL_ETHERNET, m_gid_type, "GID types differ" },
		{ VERBS_LL_ETHERNET, m_gid0, "empty GID" },
		{ VERBS_LL_INFINIBAND, m_lid0, "LID 0" },
		{ VERBS_LL_INFINIBAND, m_mtu, "MTU code 7" },
		{ VERBS_LL_INFINIBAND, m_size, "buffer sizes differ: ours 4194572 B, the peer's 1025 B" },
		{ VERBS_LL_ETHERNET, m_addr, "no buffer address" },
	};
	char why[TR_WHY_MAX];

	CHECK(check_mutated(VERBS_LL_ETHERNET, NULL, why) == 0);
	CHECK(check_mutated(VERBS_LL_INFINIBAND, NULL, why) == 0);
	CHECK(check_mutated(VERBS_LL_INFINIBAND, m_gid0, why) == 0); /* IB: the GID is not used */
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int rc = check_mutated(bad[i].ll, bad[i].mutate, why);

		if (rc != FP_EPEER || !strstr(why, bad[i].says)) {
			printf("#   case %zu: rc %d, why \"%s\"\n", i, rc, why);
			CHECK(0);
		}
	}
}

static void test_attrs_ib(void)
{
	struct verbs_info mine = info_ok(VERBS_LL_INFINIBAND), peer = info_peer(VERBS_LL_INFINIBAND);
	struct verbs_qp_attr a;

	verbs_attr_init(1, &a);
	CHECK_EQ(a.qp_state, VERBS_QPS_INIT);
	CHECK_EQ(a.port_num, 1);
	CHECK_EQ(a.pkey_index, 0);
	CHECK(a.qp_access_flags == (VERBS_ACCESS_LOCAL_WRITE | VERBS_ACCESS_REMOTE_WRITE));
	CHECK(a.mask == (VERBS_ATTR_STATE | VERBS_ATTR_PKEY_INDEX | VERBS_ATTR_PORT | VERBS_ATTR_ACCESS_FLAGS));
	CHECK(a.mask == 0x39); /* libibverbs' IBV_QP_STATE | ACCESS_FLAGS | PKEY_INDEX | PORT */

	verbs_attr_rtr(1, &mine, &peer, NULL, &a);
	CHECK(a.qp_state == VERBS_QPS_RTR);
	CHECK(a.path_mtu == VERBS_MTU_1024); /* min of 4096 and the peer's 1024 */
	CHECK_EQ(a.dest_qp_num, 0x000101);
	CHECK_EQ(a.rq_psn, 0xfedcba);
	CHECK_EQ(a.max_dest_rd_atomic, 1);
	CHECK_EQ(a.min_rnr_timer, 12);
	CHECK_EQ(a.ah.dlid, 23);
	CHECK_EQ(a.ah.is_global, 0);
	CHECK_EQ(a.ah.port_num, 1);
	CHECK_EQ(a.ah.sl, 0);
	CHECK(a.mask == (VERBS_ATTR_STATE | VERBS_ATTR_AV | VERBS_ATTR_PATH_MTU | VERBS_ATTR_DEST_QPN |
			 VERBS_ATTR_RQ_PSN | VERBS_ATTR_MAX_DEST_RD_ATOMIC | VERBS_ATTR_MIN_RNR_TIMER));
	CHECK(a.mask == 0x129181);

	verbs_attr_rts(&mine, &a);
	CHECK_EQ(a.qp_state, VERBS_QPS_RTS);
	CHECK_EQ(a.sq_psn, 0x123456);
	CHECK_EQ(a.timeout, 14);
	CHECK_EQ(a.retry_cnt, 7);
	CHECK_EQ(a.rnr_retry, 7);
	CHECK_EQ(a.max_rd_atomic, 1);
	CHECK(a.mask == (VERBS_ATTR_STATE | VERBS_ATTR_TIMEOUT | VERBS_ATTR_RETRY_CNT | VERBS_ATTR_RNR_RETRY |
			 VERBS_ATTR_SQ_PSN | VERBS_ATTR_MAX_QP_RD_ATOMIC));
	CHECK(a.mask == 0x12e01);
}

static void test_attrs_roce(void)
{
	struct verbs_info mine = info_ok(VERBS_LL_ETHERNET), peer = info_peer(VERBS_LL_ETHERNET);
	struct verbs_qp_attr a;

	verbs_attr_rtr(2, &mine, &peer, NULL, &a);
	CHECK_EQ(a.qp_state, VERBS_QPS_RTR);
	CHECK_EQ(a.path_mtu, VERBS_MTU_1024);
	CHECK_EQ(a.dest_qp_num, 0x000101);
	CHECK_EQ(a.rq_psn, 0xfedcba);
	CHECK_EQ(a.ah.is_global, 1);
	CHECK_EQ(a.ah.dlid, 0);
	CHECK_EQ(a.ah.port_num, 2);
	CHECK(!memcmp(a.ah.dgid, peer.gid, 16));    /* the peer's GID */
	CHECK(a.ah.sgid_index == 5);                /* our own GID index, not the peer's 3 */
	CHECK_EQ(a.ah.hop_limit, 0xff);
	CHECK_EQ(a.ah.traffic_class, 0);
	CHECK(a.mask & VERBS_ATTR_AV);
}

/* InfiniBand with a GRH: a port that requires one (an SR-IOV virtual function), on either side,
 * or peers in two subnets (GID prefixes differ); else LID routing alone */
static void test_attrs_ib_grh(void)
{
	static const uint8_t pfx_a[8] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0 }, pfx_b[8] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 1 };
	struct verbs_info mine = info_ok(VERBS_LL_INFINIBAND), peer = info_peer(VERBS_LL_INFINIBAND);
	struct verbs_qp_attr a;
	char why[TR_WHY_MAX];

	mine.gid_index = peer.gid_index = 0;
	memcpy(mine.gid, pfx_a, 8), memcpy(peer.gid, pfx_a, 8);
	mine.gid[15] = 1, peer.gid[15] = 2;
	verbs_attr_rtr(1, &mine, &peer, NULL, &a);
	CHECK_EQ(a.ah.is_global, 0);
	CHECK_EQ(a.ah.dlid, 23);
	for (int side = 0; side < 2; side++) {
		struct verbs_info m = mine, p = peer;

		(side ? &p : &m)->flags = VERBS_INFO_GRH;
		CHECK(verbs_ib_needs_grh(&m, &p));
		CHECK_EQ(verbs_info_check(&m, &p, why), 0);
		verbs_attr_rtr(1, &m, &p, NULL, &a);
		CHECK_EQ(a.ah.is_global, 1);
		CHECK_EQ(a.ah.dlid, 23);           /* the LID still addresses the peer */
		CHECK(!memcmp(a.ah.dgid, p.gid, 16));
		CHECK_EQ(a.ah.sgid_index, 0);      /* the port GID */
		CHECK_EQ(a.ah.hop_limit, 0xff);
		CHECK(a.mask & VERBS_ATTR_AV);
	}
	memcpy(peer.gid, pfx_b, 8);            /* another subnet: a router between them */
	CHECK(verbs_ib_needs_grh(&mine, &peer));
	verbs_attr_rtr(1, &mine, &peer, NULL, &a);
	CHECK_EQ(a.ah.is_global, 1);
	memset(peer.gid, 0, 16);               /* a peer that sent no GID says nothing of subnets */
	CHECK(!verbs_ib_needs_grh(&mine, &peer));
}

/* a synthetic port with n GID entries under root: entry i is IPv6 fd00::i RoCE v2, except
 * those given: link-local, a 169.254 address, and one routable IPv4 address */
static void gid_tree(const char *root, int n, int v4_at, int ll4_at)
{
	char path[512], gid[64];

	snprintf(path, sizeof path, "mkdir -p %s/class/infiniband/mlx5_0/ports/1/gids "
		 "%s/class/infiniband/mlx5_0/ports/1/gid_attrs/types", root, root);
	CHECK(system(path) == 0);
	for (int i = 0; i < n; i++) {
		FILE *f;

		if (i < 2)
			snprintf(gid, sizeof gid, "fe80:0000:0000:0000:0e42:a1ff:fe22:3000");
		else if (i == v4_at)
			snprintf(gid, sizeof gid, "0000:0000:0000:0000:0000:ffff:0a02:0015");
		else if (i == ll4_at)
			snprintf(gid, sizeof gid, "0000:0000:0000:0000:0000:ffff:a9fe:0001");
		else
			snprintf(gid, sizeof gid, "fd00:0000:0000:0000:0000:0000:0000:%04x", i);
		snprintf(path, sizeof path, "%s/class/infiniband/mlx5_0/ports/1/gids/%d", root, i);
		CHECK((f = fopen(path, "w")) != NULL);
		fprintf(f, "%s\n", gid);
		fclose(f);
		snprintf(path, sizeof path, "%s/class/infiniband/mlx5_0/ports/1/gid_attrs/types/%d", root, i);
		CHECK((f = fopen(path, "w")) != NULL);
		fprintf(f, "%s\n", i % 2 ? "RoCE v2" : "IB/RoCE v1");
		fclose(f);
	}
}

/* mlx5 RoCE tables hold 255 entries (two per address, more with VLANs): the whole table is
 * read; IPv4 over IPv6; link-local in both families refused */
static void test_gid_table_large(void)
{
	char root[] = "/tmp/fp-gid-XXXXXX", cmd[64];
	uint8_t gid[16];

	CHECK(mkdtemp(root) != NULL);
	gid_tree(root, 40, 23, 5);
	CHECK_EQ(inv_gid_choose(root, "mlx5_0", 1, gid), 23);
	CHECK(inv_gid_is_v4(gid) && gid[12] == 10 && gid[15] == 0x15);
	snprintf(cmd, sizeof cmd, "rm -rf %s", root);
	CHECK(system(cmd) == 0);
	CHECK(mkdtemp(strcpy(root, "/tmp/fp-gid-XXXXXX")) != NULL);
	gid_tree(root, 40, -1, 5);             /* only 169.254 for IPv4: the first IPv6 v2 */
	CHECK_EQ(inv_gid_choose(root, "mlx5_0", 1, NULL), 3);
	snprintf(cmd, sizeof cmd, "rm -rf %s", root);
	CHECK(system(cmd) == 0);
}

/* a failed completion is ours, the peer's (or the path's), or a flush */
static void test_wc_blame(void)
{
	CHECK_EQ(verbs_wc_blame(VERBS_WC_LOC_LEN_ERR), VERBS_BLAME_LOCAL);
	CHECK_EQ(verbs_wc_blame(VERBS_WC_LOC_PROT_ERR), VERBS_BLAME_LOCAL);
	CHECK_EQ(verbs_wc_blame(VERBS_WC_LOC_ACCESS_ERR), VERBS_BLAME_LOCAL);
	CHECK_EQ(verbs_wc_blame(VERBS_WC_LOC_QP_OP_ERR), VERBS_BLAME_LOCAL);
	CHECK_EQ(verbs_wc_blame(VERBS_WC_REM_ACCESS_ERR), VERBS_BLAME_REMOTE);
	CHECK_EQ(verbs_wc_blame(VERBS_WC_RETRY_EXC_ERR), VERBS_BLAME_REMOTE);
	CHECK_EQ(verbs_wc_blame(VERBS_WC_REM_INV_REQ_ERR), VERBS_BLAME_REMOTE);
	CHECK_EQ(verbs_wc_blame(VERBS_WC_WR_FLUSH_ERR), VERBS_BLAME_FLUSH);
	CHECK_EQ(verbs_wc_blame(VERBS_WC_SUCCESS), VERBS_BLAME_UNKNOWN);
	CHECK_EQ(verbs_wc_blame(99), VERBS_BLAME_UNKNOWN);
	CHECK_HAS(verbs_async_fatal(VERBS_EVENT_PORT_ERR), "the port went down");
	CHECK_HAS(verbs_async_fatal(VERBS_EVENT_DEVICE_FATAL), "device fatal");
	CHECK_HAS(verbs_async_fatal(VERBS_EVENT_GID_CHANGE), "GID table changed");
	CHECK(verbs_async_fatal(VERBS_EVENT_PORT_ACTIVE) == NULL);
	CHECK(verbs_async_fatal(VERBS_EVENT_SM_CHANGE) == NULL);
}

/* XDR exists only in the extended speed code: 4 lanes of 200 Gb/s */
static void test_speed_ex(void)
{
	CHECK_EQ(inv_speed_code(128, 0), 128);
	CHECK_EQ(inv_speed_code(0, 0x100), 256);
	CHECK(verbs_rate_gbps(inv_speed_code(0, 0x100), 2) == 800); /* width code 2 = 4x */
	CHECK(isnan(verbs_rate_gbps(0, 2)));   /* the old field alone: unknown */
}

/* the class a pair rides: given, else NCCL's variables (as NCCL would ride), else 0; in the
 * address (SL always, traffic class and flow label in a GRH) and in what the rows say */
static void test_qos(void)
{
	struct tr_qos given = { 106, -1, -1 }, q;
	struct verbs_info mine = info_ok(VERBS_LL_ETHERNET), peer = info_peer(VERBS_LL_ETHERNET);
	struct verbs_port p = { .state = VERBS_PORT_ACTIVE, .link_layer = VERBS_LL_ETHERNET, .active_mtu = VERBS_MTU_4096,
				.active_speed = 64, .active_width = 2, .gid_index = 3 };
	struct verbs_qp_attr a;
	struct tr_port t;
	char warn[TR_WHY_MAX];

	verbs_qos_resolve(NULL, NULL, NULL, &q, warn, sizeof warn);
	CHECK(q.tclass == 0 && q.sl == 0 && q.flow_label == 0 && !warn[0]);
	verbs_qos_resolve(NULL, "98", "3", &q, warn, sizeof warn);
	CHECK(q.tclass == 98 && q.sl == 3 && !warn[0]);
	verbs_qos_resolve(&given, "98", "3", &q, warn, sizeof warn); /* the option beats NCCL's */
	CHECK(q.tclass == 106 && q.sl == 3);
	verbs_qos_resolve(NULL, "0x60", "16", &q, warn, sizeof warn);
	CHECK(q.tclass == 0 && q.sl == 0);
	CHECK_HAS(warn, "NCCL_IB_TC='0x60' is not a traffic class (0..255)");
	given = (struct tr_qos){ 106, 5, 77 };
	verbs_qos_resolve(&given, NULL, NULL, &q, warn, sizeof warn);
	verbs_attr_rtr(1, &mine, &peer, &q, &a);
	CHECK(a.ah.sl == 5 && a.ah.traffic_class == 106 && a.ah.flow_label == 77);
	mine = info_ok(VERBS_LL_INFINIBAND), peer = info_peer(VERBS_LL_INFINIBAND);
	verbs_attr_rtr(1, &mine, &peer, &q, &a); /* LID routing: no GRH, no traffic class */
	CHECK(a.ah.sl == 5 && a.ah.is_global == 0 && a.ah.traffic_class == 0);
	verbs_port_describe(&p, "mlx5_3", 1, "gpu01", &q, &t);
	CHECK_STR(t.carried, "RDMA RC on mlx5_3:1, RoCE v2 GID index 3, traffic class 106, SL 5, flow label 77");
	p.link_layer = VERBS_LL_INFINIBAND, p.lid = 17, p.grh_required = 1;
	q.flow_label = 0;
	verbs_port_describe(&p, "mlx5_3", 1, "gpu01", &q, &t);
	CHECK_STR(t.carried, "RDMA RC on mlx5_3:1, InfiniBand LID 17 (GRH required), traffic class 106, SL 5");
}

/* ---------------------------------------------------------------- teardown */

static char td_log[128];
static int td_fence_rc;

static void td_say(const char *s)
{
	snprintf(td_log + strlen(td_log), sizeof td_log - strlen(td_log), "%s%s", td_log[0] ? " " : "", s);
}
static int t_fence(void *c) { (void)c; td_say("fence"); return td_fence_rc; }
static int t_reap(void *c, double d) { (void)c, (void)d; td_say("reap"); return 0; }
static int t_agree(void *c, double d) { (void)c, (void)d; td_say("agree"); return 0; }
static void t_qp(void *c) { (void)c; td_say("destroy_qp"); }
static void t_cq(void *c) { (void)c; td_say("destroy_cq"); }

/* the QP goes only after the last writes were placed at the peer and the peer agreed */
static void test_teardown_order(void)
{
	static const struct verbs_teardown_ops ops = { t_fence, t_reap, t_agree, t_qp, t_cq };
	static const struct { int has_qp, ready, broken, fence_rc, rc; const char *calls; } cases[] = {
		{ 1, 1, 0, 0, 0, "fence reap agree destroy_qp destroy_cq" },
		{ 1, 1, 1, 0, 1, "agree destroy_qp destroy_cq" },         /* a failed write: no fence */
		{ 1, 1, 0, 1, 1, "fence agree destroy_qp destroy_cq" },   /* the fence not posted */
		{ 1, 0, 0, 0, 1, "destroy_qp destroy_cq" },               /* never both up: nobody waits */
		{ 0, 0, 0, 0, 1, "destroy_cq" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		td_log[0] = 0;
		td_fence_rc = cases[i].fence_rc;
		CHECK_EQ(verbs_teardown(&ops, NULL, cases[i].has_qp, cases[i].ready, cases[i].broken, 0), cases[i].rc);
		CHECK_STR(td_log, cases[i].calls);
	}
}

static void test_buffer_layout(void)
{
	static const size_t maxes[] = { 4, 8, 4096, 4194305, 1u << 30 };

	for (size_t i = 0; i < sizeof maxes / sizeof maxes[0]; i++) {
		size_t max = maxes[i], recv = max, lent = VERBS_LENT_BYTES(max);

		/* marker bytes follow the halves; the ring's flags and credits, then the windows'
		 * end flags and acknowledgements follow them, lent, to the buffer's end */
		CHECK(VERBS_MARKER_OFFSET(max, 1) == 2 * max + 1);
		CHECK(VERBS_FLAG_OFFSET(max, 0) == VERBS_MARKER_OFFSET(max, 255) + 1);
		CHECK(VERBS_CREDIT_OFFSET(max, 0) == VERBS_FLAG_OFFSET(max, VERBS_RING_SLOTS - 1) + 1);
		CHECK(VERBS_WFLAG_OFFSET(max, 0) == VERBS_CREDIT_OFFSET(max, VERBS_RING_SLOTS - 1) + 1);
		CHECK(VERBS_WACK_OFFSET(max, 0) == VERBS_WFLAG_OFFSET(max, VERBS_WIN_SLOTS - 1) + 1);
		CHECK(VERBS_WACK_OFFSET(max, VERBS_WIN_SLOTS - 1) == VERBS_BUF_BYTES(max) - 1);
		CHECK(recv + lent == VERBS_BUF_BYTES(max));
		/* the ring's slots tile each half without reaching the next region */
		CHECK(VERBS_RING_SLOTS * (max / VERBS_RING_SLOTS) <= max);
	}
	/* bulk data into the receive half takes its (relaxed) key; what someone polls (a latency
	 * message's last byte, a flag, an acknowledgement, a credit) the strict one, so that
	 * none of it can pass the data before it */
	struct verbs_info peer = info_ok(VERBS_LL_ETHERNET);
	uint64_t max = 4194304, base = peer.addr - max;

	CHECK_EQ(verbs_remote_key(&peer, max, peer.addr, 1), 0x8badf00d);
	CHECK_EQ(verbs_remote_key(&peer, max, peer.addr + max - 1, 1), 0x8badf00d);
	CHECK_EQ(verbs_remote_key(&peer, max, peer.addr, 0), 0x0c0ffee1); /* a latency message */
	CHECK_EQ(verbs_remote_key(&peer, max, peer.addr + 7, 0), 0x0c0ffee1);
	CHECK_EQ(verbs_remote_key(&peer, max, base + VERBS_FLAG_OFFSET(max, 2), 0), 0x0c0ffee1);
	CHECK_EQ(verbs_remote_key(&peer, max, base + VERBS_CREDIT_OFFSET(max, 3), 0), 0x0c0ffee1);
	CHECK_EQ(verbs_remote_key(&peer, max, base + VERBS_WFLAG_OFFSET(max, 1), 0), 0x0c0ffee1);
	CHECK_EQ(verbs_remote_key(&peer, max, base + VERBS_WACK_OFFSET(max, 0), 0), 0x0c0ffee1);
	/* bulk never reaches past the receive half with the relaxed key */
	CHECK_EQ(verbs_remote_key(&peer, max, base + VERBS_WACK_OFFSET(max, 0), 1), 0x0c0ffee1);
	CHECK_EQ(verbs_remote_key(&peer, max, peer.addr - 1, 1), 0x0c0ffee1);
}

static void test_registry(void)
{
	struct p2p_opts o;
	char err[OPTS_ERR_MAX];
	char *argv[] = { "p2p", "-p", "verbs:mlx5_0:1", NULL };
	int rc = p2p_opts_parse(3, argv, &o, err);

#if HAVE_IBVERBS
	CHECK(transport_find("verbs:mlx5_0:1") == &transport_verbs);
	CHECK_EQ(rc, 0);
	CHECK_EQ(o.npaths, 1);
	CHECK_STR(o.paths[0], "verbs:mlx5_0:1");
#else
	const struct transport_ops *t = transport_find("verbs:mlx5_0:1");

	CHECK(t != NULL);
	if (t)
		CHECK(t->absent);
	CHECK_EQ(rc, FP_EUSAGE);
	CHECK_HAS(err, "'verbs:mlx5_0:1': this fabprobe was built without libibverbs");
#endif
}

int main(void)
{
	RUN(test_arg_parse);
	RUN(test_rate_decode);
	RUN(test_port_describe);
	RUN(test_gid_choose_fixture);
	RUN(test_mtu_and_psn);
	RUN(test_signalling);
	RUN(test_info_round_trip);
	RUN(test_info_check);
	RUN(test_attrs_ib);
	RUN(test_attrs_roce);
	RUN(test_attrs_ib_grh);
	RUN(test_gid_table_large);
	RUN(test_wc_blame);
	RUN(test_speed_ex);
	RUN(test_teardown_order);
	RUN(test_qos);
	RUN(test_buffer_layout);
	RUN(test_registry);
	CHECK_EXIT();
}
