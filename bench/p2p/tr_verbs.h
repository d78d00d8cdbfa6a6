/* tr_verbs.h — private to the verbs transport (tr_verbs.c: open, connect; io_verbs.c: the data
 * path). Included only by files built with libibverbs. */
#ifndef FP_TR_VERBS_H
#define FP_TR_VERBS_H

#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "core/clock.h"
#include "core/mpi_util.h"
#include "node/inv_verbs.h"
#include "transport.h"
#include "verbs_wire.h"

#define SQ_MIN 128        /* send queue depth at least; more when the window is larger */
#define SQ_MAX 4096       /* ... up to this (and to what the device allows) */
#define INLINE_WANT 220   /* inline bytes asked for (perftest's default for writes) */
#define POLL_CHECK 256    /* byte polls between looking at the CQ and the clock */
#define INFO_ROOM (VERBS_INFO_BYTES + 64) /* receive room: a longer message is refused, not cut */
#define TEARDOWN_S 1.0    /* how long teardown waits for the last writes to be placed */

struct verbs_ctx {
	MPI_Comm comm;          /* private duplicate of env->comm for the pairs' exchanges */
	int me, fault, tag_span;
	char host[64];
	char dev[TR_DEV_MAX];   /* "mlx5_0" */
	int port;
	struct verbs_port vp;
	uint8_t gid[16];        /* RoCE: the GID at vp.gid_index */
	struct ibv_context *ibv;
	struct ibv_pd *pd;
	struct ibv_mr *mr;      /* the halves, [0, 2max): relaxed ordering where the device has it */
	struct ibv_mr *mr_ctl;  /* the rest: ack, markers, flags, credits (strict ordering) */
	uint8_t *buf;           /* VERBS_BUF_BYTES(max), laid out as verbs_wire.h says */
	size_t max;
	int sq_depth;           /* send queue and CQ entries per pair */
	int async_ok;           /* the async event fd is non-blocking: events are read */
	struct tr_qos qos;      /* resolved (verbs_qos_resolve) */
};

struct verbs_conn {
	struct tr_conn base;
	struct verbs_ctx *ctx;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct verbs_info mine, peer;
	uint32_t max_inline;    /* what the QP granted */
	int every;              /* signal every this many writes */
	int unsig;              /* unsignalled writes since the last signalled one */
	int inflight;           /* writes whose send queue slot is not yet free */
	unsigned long iter;     /* latency messages: both sides advance in step (their markers) */
	unsigned long ring_sent, ring_recvd; /* the ring's segments each way (their markers) */
	unsigned long win_sent, win_acked, win_recvd; /* bandwidth windows (their markers) */
	int broken;             /* a write failed: the QP is in the error state */
	int ready;              /* both sides brought their QP up (verbs_handshake) */
	unsigned seq;           /* the engine's pair number */
};

/* Log `verbs:<dev>:<port> peer <p>: call: reason` (peer -1: while opening) and put the short
 * form in why (when not NULL). */
void verbs_report(const struct verbs_ctx *x, int peer, char *why, const char *call, int err,
		  const char *file, int line);

/* Check a verbs call returning 0 or an errno value (or -1 with errno set); on failure report it
 * and run `fail` (a goto into the unwinding ladder, or a return). */
#define CHECK_IBV(x, peer, why, call, fail)                                                  \
	do {                                                                                 \
		int e_ = (call);                                                             \
		if (e_) {                                                                    \
			verbs_report((x), (peer), (why), #call, e_ > 0 ? e_ : errno ? errno : EIO, \
				     __FILE__, __LINE__);                                              \
			fail;                                                                \
		}                                                                            \
	} while (0)
/* The same for a call returning a pointer, NULL (errno set) on failure. */
#define CHECK_IBV_PTR(x, peer, why, var, call, fail)                                         \
	do {                                                                                 \
		errno = 0;                                                                   \
		if (!((var) = (call))) {                                                     \
			verbs_report((x), (peer), (why), #call, errno ? errno : ENOMEM, __FILE__, __LINE__); \
			fail;                                                                \
		}                                                                            \
	} while (0)


/* Read the device's asynchronous events without waiting; one that ends c's pairs (its port's,
 * its QP's, the device's: verbs_async_fatal) is said in c's why: FP_EPEER. Else 0. */
int verbs_async_check(struct verbs_conn *c);
/* The connection's teardown (verbs_teardown: fence, reap, agree, destroy). */
void verbs_conn_teardown(struct verbs_conn *c);
/* The teardown's agreement: one byte each way with the peer over MPI before the deadline. */
int verbs_agree_done(struct verbs_conn *c, double deadline);

/* The data path (io_verbs.c), as transport_ops entries. */
int verbs_roundtrip(struct tr_conn *base, size_t size, double deadline);
int verbs_echo(struct tr_conn *base, size_t size, double deadline);
int verbs_stream_send(struct tr_conn *base, size_t size, int window, double deadline);
int verbs_stream_recv(struct tr_conn *base, size_t size, int window, double deadline);
int verbs_stream_end(struct tr_conn *base, double deadline);
int verbs_exchange(struct tr_conn *to, const void *sbuf, size_t slen, struct tr_conn *from, void *rbuf,
		   size_t rlen, double deadline);

#endif
