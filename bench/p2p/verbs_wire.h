/* verbs_wire.h — the pure parts of the verbs transport (tr_verbs.c), compiled in every build
 * so that they are unit-tested without libibverbs or an RDMA device:
 *   - the path argument ("mlx5_0:1") and what a port offers (kind, line rate, usable, why);
 *   (the RoCE v2 GID is chosen by node/inv_link.h's inv_gid_choose, as the inventory does);
 *   - the connection-info message exchanged over MPI per pair: encode, decode, validate;
 *   - path MTU (enum <-> bytes, min of two), 24-bit PSNs, selective signalling;
 *   - the INIT / RTR / RTS attribute sets, as a plain mirror of the ibv_qp_attr fields used.
 * Enum and flag values equal libibverbs' own (tr_verbs.c checks that at compile time), so an
 * attribute set converts field by field and its mask passes through unchanged.
 *
 * Registered-buffer layout of one endpoint (max = env->max_size bytes), the contract both
 * sides of a pair rely on:
 *   [0, max)        send half: the payload of every write we post (zeros)
 *   [max, 2max)     receive half: the peer writes its messages here, always at offset 0
 *   2max            unused (0 is no marker)
 *   2max + m        for m = 1..255: a byte holding m, set once at open — the last byte of a
 *                   message marked m. No byte a posted write may still be reading ever
 *                   changes, so markers need no synchronisation with the device.
 *   2max + 256 + s  for s < VERBS_RING_SLOTS: the ring's flag byte of slot s (the left
 *                   neighbour writes a segment's marker there once its data is in slot s)
 *   2max + 256 + S + s  the ring's credit byte of slot s (the right neighbour writes the
 *                   marker back there once it copied slot s out)
 *   2max + 256 + 2S + w   for w < VERBS_WIN_SLOTS: the end flag of a bandwidth window w mod W
 *                   (the sender writes the window's marker there after its last message)
 *   2max + 256 + 2S + W + w  the acknowledgement of window w mod W (the receiver writes the
 *                   marker back there once it saw the end flag)
 * We advertise addr = base + max and size = max + 256 + 2S + 2W (receive half, markers, flags,
 * credits, window flags and acks: the peer writes all but the markers).
 * The ring (exchange, verbs_ring.h) splits each half into S slots of max / S bytes.
 * Two memory regions cover the buffer: the halves [0, 2max) registered with PCIe relaxed
 * ordering (the NIC may place a message's data out of order, which some hosts need for full
 * bandwidth), and the whole buffer again without it (strict). The bulk data of windows and of
 * the ring goes through the relaxed key; every byte someone polls (a window's end flag, its
 * acknowledgement, the ring's flags and credits) and every latency message go through the
 * strict key: a strictly ordered write cannot pass the writes posted before it on the queue
 * pair, so seeing the flag means the data before it has landed, and a latency message's last
 * byte lands last (the assumption perftest's ib_write_lat makes). */
#ifndef FP_VERBS_WIRE_H
#define FP_VERBS_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "node/inv_link.h"
#include "transport.h"
#include "verbs_ring.h"

#define VERBS_WIN_SLOTS 2 /* bandwidth windows in flight: the next is posted before the last's ack */
#define VERBS_BUF_BYTES(max) (2 * (size_t)(max) + 256 + 2 * VERBS_RING_SLOTS + 2 * VERBS_WIN_SLOTS)
#define VERBS_MARKER_OFFSET(max, m) (2 * (size_t)(max) + (size_t)(m))
#define VERBS_FLAG_OFFSET(max, s) (2 * (size_t)(max) + 256 + (size_t)(s))
#define VERBS_CREDIT_OFFSET(max, s) (2 * (size_t)(max) + 256 + VERBS_RING_SLOTS + (size_t)(s))
#define VERBS_WFLAG_OFFSET(max, w) (2 * (size_t)(max) + 256 + 2 * VERBS_RING_SLOTS + (size_t)(w))
#define VERBS_WACK_OFFSET(max, w) (VERBS_WFLAG_OFFSET(max, VERBS_WIN_SLOTS) + (size_t)(w))
#define VERBS_LENT_BYTES(max) (VERBS_BUF_BYTES(max) - (size_t)(max)) /* advertised at base + max */

#define VERBS_INFO_MAGIC 0x66707662u /* "fpvb" */
#define VERBS_INFO_VERSION 4         /* 2: flags, the port GID of InfiniBand ports; 3: rkey_ctl;
				      * 4: windows' flags and acks, rkey_ctl strict over all it lends */
#define VERBS_INFO_BYTES 74          /* encoded size of struct verbs_info, big-endian */
#define VERBS_PSN_MASK 0xffffffu     /* PSNs and QP numbers are 24-bit */

/* RC QP constants, as perftest sets them (docs/measurement.md, "RC setup"). */
#define VERBS_TIMEOUT 14        /* local ACK timeout: 4.096 us x 2^14 = 67 ms per try */
#define VERBS_RETRY_CNT 7
#define VERBS_RNR_RETRY 7       /* 7 = retry forever; no receive queue is used anyway */
#define VERBS_MIN_RNR_TIMER 12  /* 0.64 ms */
#define VERBS_HOP_LIMIT 0xff
#define VERBS_RD_ATOMIC 1       /* only writes are issued: one outstanding read is plenty */

/* Mirrors of libibverbs values (checked equal in tr_verbs.c). */
enum { /* ibv_wc_status */
	VERBS_WC_SUCCESS, VERBS_WC_LOC_LEN_ERR, VERBS_WC_LOC_QP_OP_ERR, VERBS_WC_LOC_EEC_OP_ERR,
	VERBS_WC_LOC_PROT_ERR, VERBS_WC_WR_FLUSH_ERR, VERBS_WC_MW_BIND_ERR, VERBS_WC_BAD_RESP_ERR,
	VERBS_WC_LOC_ACCESS_ERR, VERBS_WC_REM_INV_REQ_ERR, VERBS_WC_REM_ACCESS_ERR, VERBS_WC_REM_OP_ERR,
	VERBS_WC_RETRY_EXC_ERR, VERBS_WC_RNR_RETRY_EXC_ERR, VERBS_WC_LOC_RDD_VIOL_ERR,
	VERBS_WC_REM_INV_RD_REQ_ERR, VERBS_WC_REM_ABORT_ERR, VERBS_WC_INV_EECN_ERR, VERBS_WC_INV_EEC_STATE_ERR,
	VERBS_WC_FATAL_ERR, VERBS_WC_RESP_TIMEOUT_ERR, VERBS_WC_GENERAL_ERR,
};
enum { /* ibv_event_type */
	VERBS_EVENT_CQ_ERR, VERBS_EVENT_QP_FATAL, VERBS_EVENT_QP_REQ_ERR, VERBS_EVENT_QP_ACCESS_ERR,
	VERBS_EVENT_COMM_EST, VERBS_EVENT_SQ_DRAINED, VERBS_EVENT_PATH_MIG, VERBS_EVENT_PATH_MIG_ERR,
	VERBS_EVENT_DEVICE_FATAL, VERBS_EVENT_PORT_ACTIVE, VERBS_EVENT_PORT_ERR, VERBS_EVENT_LID_CHANGE,
	VERBS_EVENT_PKEY_CHANGE, VERBS_EVENT_SM_CHANGE, VERBS_EVENT_SRQ_ERR, VERBS_EVENT_SRQ_LIMIT_REACHED,
	VERBS_EVENT_QP_LAST_WQE_REACHED, VERBS_EVENT_CLIENT_REREGISTER, VERBS_EVENT_GID_CHANGE,
};
enum { VERBS_QPS_RESET, VERBS_QPS_INIT, VERBS_QPS_RTR, VERBS_QPS_RTS };
enum { VERBS_MTU_256 = 1, VERBS_MTU_512, VERBS_MTU_1024, VERBS_MTU_2048, VERBS_MTU_4096 };
enum { VERBS_PORT_ACTIVE = 4 };                     /* ibv_port_state */
enum { VERBS_LL_INFINIBAND = 1, VERBS_LL_ETHERNET = 2 }; /* ibv_port_attr.link_layer */
enum { VERBS_GID_NONE = 0, VERBS_GID_ROCE_V2 = 2 }; /* our wire code: LID routing, or RoCE v2 */
enum { VERBS_INFO_GRH = 1 << 0 };                   /* verbs_info.flags: the sender's port requires a GRH */
enum {
	VERBS_ACCESS_LOCAL_WRITE = 1 << 0,
	VERBS_ACCESS_REMOTE_WRITE = 1 << 1,
};
enum { /* ibv_qp_attr_mask bits */
	VERBS_ATTR_STATE = 1 << 0,
	VERBS_ATTR_ACCESS_FLAGS = 1 << 3,
	VERBS_ATTR_PKEY_INDEX = 1 << 4,
	VERBS_ATTR_PORT = 1 << 5,
	VERBS_ATTR_AV = 1 << 7,
	VERBS_ATTR_PATH_MTU = 1 << 8,
	VERBS_ATTR_TIMEOUT = 1 << 9,
	VERBS_ATTR_RETRY_CNT = 1 << 10,
	VERBS_ATTR_RNR_RETRY = 1 << 11,
	VERBS_ATTR_RQ_PSN = 1 << 12,
	VERBS_ATTR_MAX_QP_RD_ATOMIC = 1 << 13,
	VERBS_ATTR_MIN_RNR_TIMER = 1 << 15,
	VERBS_ATTR_SQ_PSN = 1 << 16,
	VERBS_ATTR_MAX_DEST_RD_ATOMIC = 1 << 17,
	VERBS_ATTR_DEST_QPN = 1 << 20,
};

/* ---------------------------------------------------------------- the port */

/* "mlx5_0:1" → dev "mlx5_0", port 1. 0, or FP_EUSAGE with why set. */
int verbs_arg_parse(const char *arg, char *dev, size_t devlen, int *port, char *why);

/* What ibv_query_port (and the GID choice) said about our port. */
struct verbs_port {
	int state;         /* ibv_port_state; VERBS_PORT_ACTIVE to be usable */
	int link_layer;    /* VERBS_LL_*; 0 (unspecified) is InfiniBand, as in libibverbs */
	uint16_t lid;
	int active_mtu;    /* VERBS_MTU_* */
	int active_speed;  /* ibv_port_attr.active_speed code */
	int active_width;  /* ibv_port_attr.active_width code */
	int gid_index;     /* RoCE: the RoCE v2 GID chosen, -1 none; InfiniBand: 0, the port GID */
	int grh_required;  /* the port's IBV_QPF_GRH_REQUIRED (SR-IOV virtual functions, routers) */
};

/* Line rate from the verbs codes (the inventory's decoders): Gb/s, NAN when unknown. */
double verbs_rate_gbps(int active_speed, int active_width);
/* 1 when the port's link layer is Ethernet (RoCE). */
int verbs_port_is_roce(const struct verbs_port *p);
/* Fill the tr_port of "dev:port" on host from what was queried: kind, rate, usable, why
 * (a port that is not active, an InfiniBand port without a LID, RoCE without a v2 GID), and
 * what carries its traffic (the address, and qos when not NULL). */
void verbs_port_describe(const struct verbs_port *p, const char *dev, int port, const char *host,
			 const struct tr_qos *qos, struct tr_port *out);
/* The QoS the pairs ride: each field given (>= 0) as given, else NCCL's variable (tclass:
 * NCCL_IB_TC 0..255, sl: NCCL_IB_SL 0..15; env_tc and env_sl their values or NULL) where set
 * and valid, else 0. A variable set but invalid is named in warn (else warn is ""). */
void verbs_qos_resolve(const struct tr_qos *given, const char *env_tc, const char *env_sl, struct tr_qos *out,
		       char *warn, size_t wlen);

/* ---------------------------------------------------------------- connection info */

/* What each side of a pair sends the other before its QP leaves INIT. */
struct verbs_info {
	uint32_t magic, version;
	uint32_t link_layer;   /* VERBS_LL_* */
	uint32_t gid_type;     /* VERBS_GID_* */
	uint32_t from, to;     /* endpoint indices */
	uint32_t seq;          /* the engine's pair number */
	uint32_t qpn;          /* 0: the sender's setup failed (its log says why) */
	uint32_t psn;          /* its send queue's first PSN = our receive queue's */
	uint32_t lid;          /* InfiniBand */
	uint32_t gid_index;    /* the sender's own index (for its logs) */
	uint8_t gid[16];       /* RoCE: the sender's RoCE v2 GID; InfiniBand: its port GID (subnet
				* prefix, GUID); our dgid when a GRH is used */
	uint32_t mtu;          /* its port's active MTU, VERBS_MTU_* */
	uint32_t rkey;         /* of its receive half (relaxed ordering) */
	uint32_t rkey_ctl;     /* of all it lends, strictly ordered (latency, flags, acks, credits) */
	uint64_t addr;         /* its receive half */
	uint64_t size;         /* bytes we may write at addr: VERBS_LENT_BYTES */
	uint32_t flags;        /* VERBS_INFO_* */
};

void verbs_info_encode(const struct verbs_info *in, uint8_t out[VERBS_INFO_BYTES]);
/* 0, or FP_EPEER (why set) when len is not VERBS_INFO_BYTES. */
int verbs_info_decode(const uint8_t *buf, size_t len, struct verbs_info *out, char *why);
/* Check what the peer sent against ours and the pair (from, to, seq as we expect them to
 * read: from = the peer). 0, or FP_EPEER with why saying what does not match. */
int verbs_info_check(const struct verbs_info *mine, const struct verbs_info *peer, char *why);

/* ---------------------------------------------------------------- MTU, PSN, signalling */

/* VERBS_MTU_* ↔ bytes; 0 / -1 for values that are not an IB MTU. */
int verbs_mtu_bytes(int mtu);
int verbs_mtu_from_bytes(int bytes);
/* The path MTU: the smaller of the two ports' active MTUs (enum values are ordered). */
int verbs_mtu_path(int a, int b);
/* A PSN from 32 random bits: the low 24. */
uint32_t verbs_psn(uint32_t random);

/* Selective signalling: only every `every`-th send is signalled, and the last of a batch;
 * an unsignalled send's queue slot is freed by the next signalled completion, so `every` is
 * at most half the send queue's depth (and at most 64, as CQ moderation goes). */
int verbs_sig_every(int sq_depth);
/* 1 when the next send must be signalled: `unsignalled` sends since the last signalled one,
 * `last` = it ends a batch whose completion is awaited. */
int verbs_sig_due(int unsignalled, int every, int last);
/* Completions a batch of n sends produces, starting with no unsignalled send pending. */
long verbs_sig_count(long n, int every);
/* The marker of iteration i: 1..255, never 0 (0 is what the buffers hold). */
uint8_t verbs_marker(unsigned long i);

/* ---------------------------------------------------------------- QP attributes */

struct verbs_ah {
	uint16_t dlid;
	uint8_t sl, src_path_bits, port_num, is_global;
	uint8_t dgid[16];
	uint8_t sgid_index, hop_limit, traffic_class;
	uint32_t flow_label;
};

/* The ibv_qp_attr fields fabprobe sets, and the mask naming them. */
struct verbs_qp_attr {
	int mask;            /* VERBS_ATTR_* */
	int qp_state;        /* VERBS_QPS_* */
	int path_mtu;        /* VERBS_MTU_* */
	uint32_t qp_access_flags;
	uint16_t pkey_index;
	uint8_t port_num;
	uint32_t dest_qp_num, rq_psn, sq_psn;
	uint8_t max_dest_rd_atomic, min_rnr_timer, max_rd_atomic, timeout, retry_cnt, rnr_retry;
	struct verbs_ah ah;
};

/* The key for a write into the peer's lent region at raddr: bulk data (a window's messages, a
 * ring's segments) into the receive half takes the relaxed key; anything else (a latency
 * message, a flag, an acknowledgement, a credit: what someone polls) the strict one. */
uint32_t verbs_remote_key(const struct verbs_info *peer, uint64_t max, uint64_t raddr, int bulk);

/* Bandwidth windows, pipelined VERBS_WIN_SLOTS deep: window w (counted over the connection)
 * ends with its marker in the receiver's end flag w mod W, written strictly after its
 * messages; the receiver clears it and writes the marker into the sender's ack w mod W. The
 * sender posts window w, then waits for the ack of window verbs_win_ack_due(w) (-1: none), so
 * at most W windows are unacknowledged and a slot is never written before it was cleared;
 * at the end it waits for every ack. */
long verbs_win_ack_due(unsigned long w);

/* Whether packets between two InfiniBand ports need a GRH: either side's port requires it, or
 * their GIDs' subnet prefixes differ (a router between them). RoCE always has one. */
int verbs_ib_needs_grh(const struct verbs_info *mine, const struct verbs_info *peer);

/* RESET → INIT: port, pkey 0, remote write (the peer writes our receive half and ack byte). */
void verbs_attr_init(int port, struct verbs_qp_attr *a);
/* INIT → RTR toward the peer: its QPN and PSN; path MTU = min of both; the address:
 * InfiniBand by LID, with a GRH too where verbs_ib_needs_grh; RoCE by GRH (dgid = its GID,
 * sgid_index = ours); the service level, and in the GRH the traffic class and flow label, of
 * qos (resolved; NULL: all 0). */
void verbs_attr_rtr(int port, const struct verbs_info *mine, const struct verbs_info *peer,
		    const struct tr_qos *qos, struct verbs_qp_attr *a);
/* RTR → RTS: our PSN, timeout / retries as perftest. */
void verbs_attr_rts(const struct verbs_info *mine, struct verbs_qp_attr *a);

/* ---------------------------------------------------------------- failures */

/* Whose fault a failed work completion is: ours (a bad length, protection or access on our
 * side, our QP's state), the peer's or the path's (retries exceeded, the peer's access or
 * state), a flush (a failure before it moved the QP to the error state: not a cause), or not
 * known. */
enum verbs_blame { VERBS_BLAME_UNKNOWN, VERBS_BLAME_LOCAL, VERBS_BLAME_REMOTE, VERBS_BLAME_FLUSH };
/* From ibv_wc_status (values mirrored and checked in tr_verbs.c). */
enum verbs_blame verbs_wc_blame(int status);
/* An asynchronous event (ibv_event_type) that ends the pairs on this port: what to say; NULL
 * for events that do not (the port active again, a path migrated, the SM's changes). */
const char *verbs_async_fatal(int event_type);

/* ---------------------------------------------------------------- teardown */

/* Destroying a QP drops what its send queue still holds, the last unsignalled echo or window
 * acknowledgement among it: the peer would then wait out the pair's deadline. So teardown
 * fences first (a signalled zero-byte write: its completion, RC being ordered, says every
 * earlier write was placed at the peer), reaps up to the deadline, then agrees with the peer
 * over MPI (as perftest closes its connections), so that neither destroys its QP while the
 * other's fence is in flight; then destroys. A QP in the error state is not fenced (its
 * writes are flushed; the pair has failed); a pair whose QPs never both came up does not
 * agree (the peer is not waiting). */
struct verbs_teardown_ops {
	int (*fence)(void *c);                      /* post the signalled write: 0, or nonzero */
	int (*reap)(void *c, double deadline);      /* wait for every write: 0, or nonzero */
	int (*agree)(void *c, double deadline);     /* one message each way with the peer */
	void (*destroy_qp)(void *c);
	void (*destroy_cq)(void *c);
};
/* Run the teardown of connection c (has_qp: a QP exists; ready: both sides brought theirs
 * up; broken: a write failed). 0 when fenced and agreed, else nonzero (destroyed all the
 * same). */
int verbs_teardown(const struct verbs_teardown_ops *ops, void *c, int has_qp, int ready, int broken,
		   double deadline);

#endif
