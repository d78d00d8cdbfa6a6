/* transport.h — the point-to-point transport interface (mpi, tcp, verbs, nccl).
 *
 * The engine (p2p.c) owns scheduling, warm-up, timing, statistics and deadlines; a
 * transport owns only the wire protocol of one round trip and of one window of a stream.
 * So every transport is timed by the same loop, and a new one plugs in by filling this
 * struct and adding one line to transports.c.
 *
 * Lifecycle per path: open (collective over env->comm: every endpoint calls it, also one
 * whose port is missing, so that addresses can be exchanged), then for each pair connect
 * (both sides), the measurement calls, disconnect; close at the end. Every call that waits
 * takes an absolute deadline (clock_now() seconds) and returns FP_ETIMEDOUT once it has
 * passed; FP_EPEER when the peer misbehaved (reset, bad token); FP_ERUNTIME otherwise.
 *
 * The ring (bench/coll/coll_ring.c) holds two connections of one context at once, to the
 * endpoint before it and to the one after, and moves real data with `exchange`. */
#ifndef FP_TRANSPORT_H
#define FP_TRANSPORT_H

#include <mpi.h>
#include <stddef.h>

#define TR_DEV_MAX 32
#define TR_KIND_MAX 16
#define TR_WHY_MAX 256

/* Test-only faults a transport acts out on one endpoint (--test-fault KIND:RANK). STRANGER
 * (tcp): before each dial, two connections to the peer's listener that never say a whole
 * hello (one silent, one half), held open through the pair, and a pause past the listener's
 * hello time before the real connection. */
enum { TR_FAULT_NONE, TR_FAULT_BAD_TOKEN, TR_FAULT_NO_CONNECT, TR_FAULT_RESET, TR_FAULT_STRANGER };

/* RDMA QoS for the verbs transport: the GRH's traffic class (on RoCE the IP header's DSCP << 2
 * | ECN, which picks the switch queue: a lossless class or not), the service level
 * (InfiniBand's SL, mapped to a virtual lane), the flow label. -1: not given (then NCCL's
 * NCCL_IB_TC and NCCL_IB_SL where set, as NCCL would ride, else 0). */
struct tr_qos {
	int tclass, sl, flow_label;
};

struct tr_env {
	MPI_Comm comm;      /* endpoints only; ranks are endpoint indices */
	int ep, nep;        /* this endpoint, how many */
	const char *host;   /* this endpoint's node name */
	int single_node;    /* every endpoint on one node: the intra-node map */
	size_t max_size;    /* largest message any call will ask for */
	int max_window;     /* largest stream window any call will ask for */
	int fault;          /* TR_FAULT_* to act out on this endpoint (tests only) */
	int shared_core;    /* the two sides of a pair share one core: wait asleep or yielding,
			     * never spinning (p2p.c's pinning on a machine the endpoints share) */
	const struct tr_qos *qos; /* NULL: none given */
};

/* What one endpoint offers on a path. */
struct tr_port {
	char dev[TR_DEV_MAX];   /* "mlx5_0:1", "eth0", "rank3" */
	char kind[TR_KIND_MAX]; /* infiniband, roce, ethernet, shm, gpu; "" when unknown */
	double rate_gbps;       /* negotiated line rate, NAN when unknown */
	int usable;             /* 0: the path is absent or down here; why says so */
	char why[TR_WHY_MAX];
	/* where this endpoint measures the path (p2p.c, topo/node/nic_place.h): enum
	 * nic_place_status, the port's NUMA node (-1), the cores, as a CPU list */
	int place, numa;
	char cpus[TR_WHY_MAX];
	/* what carries this endpoint's traffic on the path, as the transport set it up ("TCP,
	 * both ends bound to eth1", "RDMA RC on mlx5_0:1, RoCE v2 GID 3", "Open MPI pml=ob1
	 * btl=tcp,self"): p2p.csv's carried_by. "" when not said. */
	char carried[TR_WHY_MAX];
};

/* Every transport's connection struct starts with this. */
struct tr_conn {
	int peer;              /* endpoint index */
	char why[TR_WHY_MAX];  /* the reason of the last failure, for the result row */
};

struct transport_ops {
	const char *name;    /* the path prefix: "mpi", "tcp", … */
	const char *absent;  /* NULL, or why this build lacks it (core/registry.h) */
	const char *summary; /* one line for --help */
	/* NULL, or why the ring over this transport (exchange) is no line-rate figure: a ring's
	 * busbw is then said, never judged against --min-pct (a healthy fabric would fail) */
	const char *exchange_capped;
	/* Before launch (pure): the path's argument ("eth0" of tcp:eth0; NULL when the path has
	 * no ':') is well formed. 0, or FP_EUSAGE with why. NULL: any argument. */
	int (*check)(const char *arg, char *why);
	int (*open)(const struct tr_env *env, const char *arg, void **ctx, struct tr_port *port);
	/* seq is the same on both sides and unique per pair within a path. */
	int (*connect)(void *ctx, int peer, unsigned seq, double deadline, struct tr_conn **conn,
		       char *why);
	/* initiator: send size bytes, return when the peer's echo has arrived */
	int (*roundtrip)(struct tr_conn *c, size_t size, double deadline);
	/* responder: wait for size bytes, send them back */
	int (*echo)(struct tr_conn *c, size_t size, double deadline);
	/* sender: a window of size-byte messages, return when the receiver acknowledged it, or,
	 * where stream_end is set, an earlier window (the windows are pipelined) */
	int (*stream_send)(struct tr_conn *c, size_t size, int window, double deadline);
	int (*stream_recv)(struct tr_conn *c, size_t size, int window, double deadline);
	/* sender, NULL or: return when every window sent was acknowledged (before anything else
	 * goes between the pair, and at the end of a timed series) */
	int (*stream_end)(struct tr_conn *c, double deadline);
	/* the ring's step: send slen bytes of sbuf to to's peer and, at the same time, receive
	 * rlen bytes from from's peer into rbuf (either length may be 0; to == from: both
	 * directions of one pair); returns when both are done. The bytes arrive exactly (the
	 * ring's results are checked). NULL: the transport has no ring. */
	int (*exchange)(struct tr_conn *to, const void *sbuf, size_t slen, struct tr_conn *from, void *rbuf,
			size_t rlen, double deadline);
	void (*disconnect)(struct tr_conn *c); /* accepts NULL */
	void (*close)(void *ctx);              /* accepts NULL */
};

/* The registry (transports.c): every known transport, NULL-terminated; one not in this build
 * has `absent` set. */
extern const struct transport_ops *const transport_registry[];
/* The transport named by a path ("tcp:eth0" → tcp), absent or not; NULL when unknown. */
const struct transport_ops *transport_find(const char *path);

extern const struct transport_ops transport_mpi;
extern const struct transport_ops transport_tcp;
extern const struct transport_ops transport_verbs; /* only with libibverbs (HAVE_IBVERBS) */

#endif
