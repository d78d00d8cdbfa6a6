/* verbs_wire.c — see verbs_wire.h: the verbs transport's pure parts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "verbs_wire.h"

/* ---------------------------------------------------------------- the port */

int verbs_arg_parse(const char *arg, char *dev, size_t devlen, int *port, char *why)
{
	int rc = inv_verbs_arg(arg, dev, devlen, port);

	if (rc == -1)
		snprintf(why, TR_WHY_MAX, "path verbs needs a device and port: verbs:<device>:<port>, "
			 "e.g. verbs:mlx5_0:1");
	else if (rc == -2)
		snprintf(why, TR_WHY_MAX, "path verbs: port '%.32s' is not a number 1..255", strrchr(arg, ':') + 1);
	return rc ? FP_EUSAGE : 0;
}

double verbs_rate_gbps(int active_speed, int active_width)
{
	int lanes = inv_width_lanes(active_width);
	double lane = inv_speed_lane_gbps(active_speed, NULL);

	return lanes > 0 ? lanes * lane : NAN; /* NAN lane rate stays NAN */
}

int verbs_port_is_roce(const struct verbs_port *p)
{
	return p->link_layer == VERBS_LL_ETHERNET;
}

void verbs_port_describe(const struct verbs_port *p, const char *dev, int port, const char *host,
			 const struct tr_qos *qos, struct tr_port *out)
{
	size_t k;

	int roce = verbs_port_is_roce(p);

	snprintf(out->dev, sizeof out->dev, "%.20s:%d", dev, port);
	snprintf(out->kind, sizeof out->kind, "%s", inv_kind_name(roce ? INV_KIND_ROCE : INV_KIND_INFINIBAND));
	out->rate_gbps = NAN;
	out->usable = 0;
	if (p->state != VERBS_PORT_ACTIVE) {
		/* a port that is not active has no negotiated rate: unknown, not the default */
		snprintf(out->why, sizeof out->why, "%.40s:%d on %.60s is not active (state %d)", dev, port,
			 host, p->state);
		return;
	}
	out->rate_gbps = verbs_rate_gbps(p->active_speed, p->active_width);
	if (!roce && p->lid == 0)
		snprintf(out->why, sizeof out->why, "%.40s:%d on %.60s has no LID (no subnet manager?)", dev,
			 port, host);
	else if (roce && p->gid_index < 0)
		snprintf(out->why, sizeof out->why, "%.40s:%d on %.60s has no usable RoCE v2 GID (no IP "
			 "address on its netdev?)", dev, port, host);
	else if (verbs_mtu_bytes(p->active_mtu) == 0)
		snprintf(out->why, sizeof out->why, "%.40s:%d on %.60s reports an unknown MTU code %d", dev,
			 port, host, p->active_mtu);
	else
		out->usable = 1;
	if (!roce)
		k = (size_t)snprintf(out->carried, sizeof out->carried, "RDMA RC on %.40s:%d, InfiniBand LID %u%s", dev,
				     port, p->lid, p->grh_required ? " (GRH required)" : "");
	else
		k = (size_t)snprintf(out->carried, sizeof out->carried, "RDMA RC on %.40s:%d, RoCE v2 GID index %d", dev,
				     port, p->gid_index);
	if (qos && k < sizeof out->carried)
		k += (size_t)snprintf(out->carried + k, sizeof out->carried - k, ", traffic class %d, SL %d", qos->tclass,
				      qos->sl);
	if (qos && qos->flow_label && k < sizeof out->carried)
		snprintf(out->carried + k, sizeof out->carried - k, ", flow label %d", qos->flow_label);
}

/* NCCL's variable as a QoS field: its value when a whole number in 0..max, else -1 */
static int qos_env(const char *v, int max)
{
	char *end;
	long n;

	if (!v || !*v)
		return -1;
	n = strtol(v, &end, 10);
	return *end || n < 0 || n > max ? -2 : (int)n;
}

void verbs_qos_resolve(const struct tr_qos *given, const char *env_tc, const char *env_sl, struct tr_qos *out,
		       char *warn, size_t wlen)
{
	int tc = qos_env(env_tc, 255), sl = qos_env(env_sl, 15);

	warn[0] = 0;
	*out = (struct tr_qos){ 0, 0, 0 };
	if (given && given->tclass >= 0)
		out->tclass = given->tclass;
	else if (tc >= 0)
		out->tclass = tc;
	else if (tc == -2)
		snprintf(warn, wlen, "NCCL_IB_TC='%.40s' is not a traffic class (0..255): 0 taken", env_tc);
	if (given && given->sl >= 0)
		out->sl = given->sl;
	else if (sl >= 0)
		out->sl = sl;
	else if (sl == -2 && !warn[0])
		snprintf(warn, wlen, "NCCL_IB_SL='%.40s' is not a service level (0..15): 0 taken", env_sl);
	if (given && given->flow_label >= 0)
		out->flow_label = given->flow_label;
}

/* ---------------------------------------------------------------- connection info */

static uint8_t *put(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = bytes - 1; i >= 0; i--)
		*p++ = (uint8_t)(v >> (8 * i));
	return p;
}

static const uint8_t *get(const uint8_t *p, uint64_t *v, int bytes)
{
	*v = 0;
	for (int i = 0; i < bytes; i++)
		*v = *v << 8 | *p++;
	return p;
}

/* The wire layout: field, width in bytes (big-endian). The GID travels between lid and mtu. */
#define INFO_FIELDS(X)                                                                   \
	X(magic, 4) X(version, 2) X(link_layer, 1) X(gid_type, 1) X(from, 4) X(to, 4)   \
	X(seq, 4) X(qpn, 4) X(psn, 4) X(lid, 2) X(gid_index, 2)
#define INFO_TAIL(X) X(mtu, 1) X(rkey, 4) X(rkey_ctl, 4) X(addr, 8) X(size, 8)

void verbs_info_encode(const struct verbs_info *in, uint8_t out[VERBS_INFO_BYTES])
{
	uint8_t *p = out;

#define PUT(f, n) p = put(p, in->f, n);
	INFO_FIELDS(PUT)
	memcpy(p, in->gid, 16);
	p += 16;
	INFO_TAIL(PUT)
#undef PUT
	*p = (uint8_t)in->flags;
}

int verbs_info_decode(const uint8_t *buf, size_t len, struct verbs_info *out, char *why)
{
	const uint8_t *p = buf;
	uint64_t v;

	if (len != VERBS_INFO_BYTES) {
		snprintf(why, TR_WHY_MAX, "connection info of %zu bytes, expected %d (truncated, or "
			 "another fabprobe version)", len, VERBS_INFO_BYTES);
		return FP_EPEER;
	}
	memset(out, 0, sizeof *out);
#define GET(f, n) p = get(p, &v, n), out->f = v;
	INFO_FIELDS(GET)
	memcpy(out->gid, p, 16);
	p += 16;
	INFO_TAIL(GET)
#undef GET
	out->flags = *p;
	return 0;
}

static const char *ll_name(uint32_t ll)
{
	return ll == VERBS_LL_ETHERNET ? "RoCE" : ll == VERBS_LL_INFINIBAND ? "InfiniBand" : "unknown";
}

int verbs_info_check(const struct verbs_info *mine, const struct verbs_info *peer, char *why)
{
#define REFUSE(...) return snprintf(why, TR_WHY_MAX, __VA_ARGS__), FP_EPEER
	if (peer->magic != VERBS_INFO_MAGIC)
		REFUSE("not a fabprobe verbs connection message (magic 0x%08x)", peer->magic);
	if (peer->version != VERBS_INFO_VERSION)
		REFUSE("the peer speaks connection protocol %u, we speak %d (mixed fabprobe versions?)",
		       peer->version, VERBS_INFO_VERSION);
	if (peer->seq != mine->seq || peer->from != mine->to || peer->to != mine->from)
		REFUSE("connection info for pair %u (%u to %u), expected pair %u (%u to %u)", peer->seq,
		       peer->from, peer->to, mine->seq, mine->to, mine->from);
	if (peer->qpn == 0)
		REFUSE("the peer could not set up its queue pair (see its log)");
	if (peer->qpn > VERBS_PSN_MASK || peer->psn > VERBS_PSN_MASK)
		REFUSE("the peer sent a QP number or PSN wider than 24 bits");
	if (peer->link_layer != mine->link_layer)
		REFUSE("link layers differ: ours is %s, the peer's %s", ll_name(mine->link_layer),
		       ll_name(peer->link_layer));
	if (peer->gid_type != mine->gid_type)
		REFUSE("GID types differ: ours %u, the peer's %u (both sides must use RoCE v2)",
		       mine->gid_type, peer->gid_type);
	if (mine->link_layer == VERBS_LL_ETHERNET && inv_gid_is_zero(peer->gid))
		REFUSE("the peer sent an empty GID");
	if (mine->link_layer == VERBS_LL_ETHERNET && inv_gid_is_v4(mine->gid) != inv_gid_is_v4(peer->gid)) {
		char a[48], b[48];

		inv_gid_format(mine->gid, a, sizeof a);
		inv_gid_format(peer->gid, b, sizeof b);
		REFUSE("RoCE v2 GIDs of two IP versions: ours %s (index %u), the peer's %s (index %u); give both "
		       "ports an address of one version", a, mine->gid_index, b, peer->gid_index);
	}
	if (mine->link_layer != VERBS_LL_ETHERNET && verbs_ib_needs_grh(mine, peer) &&
	    (inv_gid_is_zero(peer->gid) || inv_gid_is_zero(mine->gid)))
		REFUSE("a GRH is needed (%s) but %s port GID is empty",
		       (mine->flags | peer->flags) & VERBS_INFO_GRH ? "a port requires one" : "the subnets differ",
		       inv_gid_is_zero(mine->gid) ? "our" : "the peer's");
	if (mine->link_layer != VERBS_LL_ETHERNET && (peer->lid == 0 || peer->lid >= 0xc000))
		REFUSE("the peer sent LID %u, not a unicast LID", peer->lid);
	if (verbs_mtu_bytes((int)peer->mtu) == 0)
		REFUSE("the peer sent MTU code %u", peer->mtu);
	if (peer->addr == 0)
		REFUSE("the peer sent no buffer address");
	if (peer->size != mine->size)
		REFUSE("buffer sizes differ: ours %llu B, the peer's %llu B (different --sizes?)",
		       (unsigned long long)mine->size, (unsigned long long)peer->size);
#undef REFUSE
	return 0;
}

/* ---------------------------------------------------------------- MTU, PSN, signalling */

int verbs_mtu_bytes(int mtu)
{
	return mtu >= VERBS_MTU_256 && mtu <= VERBS_MTU_4096 ? 128 << mtu : 0;
}

int verbs_mtu_from_bytes(int bytes)
{
	for (int m = VERBS_MTU_256; m <= VERBS_MTU_4096; m++)
		if (verbs_mtu_bytes(m) == bytes)
			return m;
	return -1;
}

int verbs_mtu_path(int a, int b)
{
	return a < b ? a : b;
}

uint32_t verbs_psn(uint32_t random)
{
	return random & VERBS_PSN_MASK;
}

int verbs_sig_every(int sq_depth)
{
	int every = sq_depth / 2;

	return every < 1 ? 1 : every > 64 ? 64 : every;
}

int verbs_sig_due(int unsignalled, int every, int last)
{
	return last || unsignalled + 1 >= every;
}

long verbs_sig_count(long n, int every)
{
	return n <= 0 ? 0 : n / every + (n % every != 0);
}

uint8_t verbs_marker(unsigned long i)
{
	return (uint8_t)(i % 255 + 1);
}

/* ---------------------------------------------------------------- QP attributes */

uint32_t verbs_remote_key(const struct verbs_info *peer, uint64_t max, uint64_t raddr, int bulk)
{
	return bulk && raddr >= peer->addr && raddr < peer->addr + max ? peer->rkey : peer->rkey_ctl;
}

long verbs_win_ack_due(unsigned long w)
{
	return w + 1 >= VERBS_WIN_SLOTS ? (long)(w + 1 - VERBS_WIN_SLOTS) : -1;
}

int verbs_ib_needs_grh(const struct verbs_info *mine, const struct verbs_info *peer)
{
	/* the subnet prefix: a GID's first 8 bytes; an empty GID says nothing */
	int differ = !inv_gid_is_zero(mine->gid) && !inv_gid_is_zero(peer->gid) && memcmp(mine->gid, peer->gid, 8);

	return ((mine->flags | peer->flags) & VERBS_INFO_GRH) || differ;
}

void verbs_attr_init(int port, struct verbs_qp_attr *a)
{
	memset(a, 0, sizeof *a);
	a->qp_state = VERBS_QPS_INIT;
	a->pkey_index = 0;
	a->port_num = (uint8_t)port;
	a->qp_access_flags = VERBS_ACCESS_LOCAL_WRITE | VERBS_ACCESS_REMOTE_WRITE;
	a->mask = VERBS_ATTR_STATE | VERBS_ATTR_PKEY_INDEX | VERBS_ATTR_PORT | VERBS_ATTR_ACCESS_FLAGS;
}

void verbs_attr_rtr(int port, const struct verbs_info *mine, const struct verbs_info *peer,
		    const struct tr_qos *qos, struct verbs_qp_attr *a)
{
	memset(a, 0, sizeof *a);
	a->qp_state = VERBS_QPS_RTR;
	a->path_mtu = verbs_mtu_path((int)mine->mtu, (int)peer->mtu);
	a->dest_qp_num = peer->qpn;
	a->rq_psn = peer->psn;
	a->max_dest_rd_atomic = VERBS_RD_ATOMIC;
	a->min_rnr_timer = VERBS_MIN_RNR_TIMER;
	a->ah.port_num = (uint8_t)port;
	a->ah.sl = qos ? (uint8_t)qos->sl : 0;
	if (mine->link_layer != VERBS_LL_ETHERNET)
		a->ah.dlid = (uint16_t)peer->lid; /* LID routing: within a subnet, the peer itself */
	/* RoCE has no LIDs: every packet carries a GRH (IP header for v2); InfiniBand does where
	 * a port requires it (virtual functions) or a router sits between the subnets */
	if (mine->link_layer == VERBS_LL_ETHERNET || verbs_ib_needs_grh(mine, peer)) {
		a->ah.is_global = 1;
		memcpy(a->ah.dgid, peer->gid, 16);
		a->ah.sgid_index = (uint8_t)mine->gid_index;
		a->ah.hop_limit = VERBS_HOP_LIMIT;
		a->ah.traffic_class = qos ? (uint8_t)qos->tclass : 0;
		a->ah.flow_label = qos ? (uint32_t)qos->flow_label : 0;
	}
	a->mask = VERBS_ATTR_STATE | VERBS_ATTR_AV | VERBS_ATTR_PATH_MTU | VERBS_ATTR_DEST_QPN |
		  VERBS_ATTR_RQ_PSN | VERBS_ATTR_MAX_DEST_RD_ATOMIC | VERBS_ATTR_MIN_RNR_TIMER;
}

void verbs_attr_rts(const struct verbs_info *mine, struct verbs_qp_attr *a)
{
	memset(a, 0, sizeof *a);
	a->qp_state = VERBS_QPS_RTS;
	a->timeout = VERBS_TIMEOUT;
	a->retry_cnt = VERBS_RETRY_CNT;
	a->rnr_retry = VERBS_RNR_RETRY;
	a->sq_psn = mine->psn;
	a->max_rd_atomic = VERBS_RD_ATOMIC;
	a->mask = VERBS_ATTR_STATE | VERBS_ATTR_TIMEOUT | VERBS_ATTR_RETRY_CNT | VERBS_ATTR_RNR_RETRY |
		  VERBS_ATTR_SQ_PSN | VERBS_ATTR_MAX_QP_RD_ATOMIC;
}

/* ---------------------------------------------------------------- failures */

enum verbs_blame verbs_wc_blame(int status)
{
	switch (status) {
	case VERBS_WC_LOC_LEN_ERR: case VERBS_WC_LOC_QP_OP_ERR: case VERBS_WC_LOC_EEC_OP_ERR:
	case VERBS_WC_LOC_PROT_ERR: case VERBS_WC_MW_BIND_ERR: case VERBS_WC_LOC_ACCESS_ERR:
	case VERBS_WC_LOC_RDD_VIOL_ERR: case VERBS_WC_FATAL_ERR: case VERBS_WC_GENERAL_ERR:
		return VERBS_BLAME_LOCAL;
	case VERBS_WC_BAD_RESP_ERR: case VERBS_WC_REM_INV_REQ_ERR: case VERBS_WC_REM_ACCESS_ERR:
	case VERBS_WC_REM_OP_ERR: case VERBS_WC_RETRY_EXC_ERR: case VERBS_WC_RNR_RETRY_EXC_ERR:
	case VERBS_WC_REM_INV_RD_REQ_ERR: case VERBS_WC_REM_ABORT_ERR: case VERBS_WC_RESP_TIMEOUT_ERR:
		return VERBS_BLAME_REMOTE;
	case VERBS_WC_WR_FLUSH_ERR:
		return VERBS_BLAME_FLUSH;
	default:
		return VERBS_BLAME_UNKNOWN;
	}
}

const char *verbs_async_fatal(int event_type)
{
	switch (event_type) {
	case VERBS_EVENT_CQ_ERR: return "a completion queue overran (CQ error)";
	case VERBS_EVENT_QP_FATAL: return "a queue pair failed (QP fatal)";
	case VERBS_EVENT_QP_REQ_ERR: return "the peer sent an invalid request (QP request error)";
	case VERBS_EVENT_QP_ACCESS_ERR: return "a remote access was refused (QP access error)";
	case VERBS_EVENT_DEVICE_FATAL: return "the device failed (device fatal: reset it)";
	case VERBS_EVENT_PORT_ERR: return "the port went down (port error)";
	case VERBS_EVENT_GID_CHANGE: return "the port's GID table changed (an address changed)";
	case VERBS_EVENT_LID_CHANGE: return "the port's LID changed";
	default: return NULL;
	}
}

/* ---------------------------------------------------------------- teardown */

int verbs_teardown(const struct verbs_teardown_ops *ops, void *c, int has_qp, int ready, int broken,
		   double deadline)
{
	int rc = 1;

	if (has_qp && ready && !broken && ops->fence(c) == 0)
		rc = ops->reap(c, deadline);
	if (ready && ops->agree(c, deadline))
		rc = 1;
	if (has_qp)
		ops->destroy_qp(c);
	ops->destroy_cq(c);
	return rc;
}
