/* io_verbs.c — the verbs transport's data path: RDMA-write ping-pong and windows (see
 * tr_verbs.c for the protocol). NOT RUN ON HARDWARE. */
#include "tr_verbs.h"

/* ---------------------------------------------------------------- data */

/* Take the completions there are (without waiting); each signalled completion frees the
 * slots of the writes it covers (its wr_id). *got: how many. A failed write ends the pair. */
static int verbs_poll_once(struct verbs_conn *c, int *got)
{
	struct ibv_wc wc[16];
	int n = ibv_poll_cq(c->cq, 16, wc);

	if (n < 0) {
		verbs_report(c->ctx, c->base.peer, c->base.why, "ibv_poll_cq", EIO, __FILE__, __LINE__);
		return FP_ERUNTIME;
	}
	for (int i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS) {
			/* retry exceeded: the peer's QP is gone or unreachable */
			snprintf(c->base.why, TR_WHY_MAX, "%.32s:%d: RDMA write to the peer failed: %s "
				 "(vendor error 0x%x)", c->ctx->dev, c->ctx->port,
				 ibv_wc_status_str(wc[i].status), wc[i].vendor_err);
			return FP_EPEER;
		}
		c->inflight -= (int)wc[i].wr_id;
	}
	*got = n;
	return 0;
}

/* Take completions until at most `target` writes are in flight. */
static int verbs_reap(struct verbs_conn *c, int target, double deadline)
{
	for (unsigned spin = 1; c->inflight > target; spin++) {
		int n = 0, rc = verbs_poll_once(c, &n);

		if (rc)
			return rc;
		if (n == 0 && spin % POLL_CHECK == 0 && clock_now() > deadline) {
			snprintf(c->base.why, TR_WHY_MAX, "timed out waiting for write completions");
			return FP_ETIMEDOUT;
		}
	}
	return 0;
}

/* One RDMA write of size bytes to the peer at raddr, from our send half; with a marker (not 0),
 * its last byte comes from that marker's constant byte instead. `last`: signal it (a batch
 * ends). */
static int verbs_post(struct verbs_conn *c, size_t size, uint64_t raddr, uint8_t marker, int last,
		      double deadline)
{
	struct verbs_ctx *x = c->ctx;
	struct ibv_sge sge[2];
	struct ibv_send_wr wr = { .sg_list = sge, .opcode = IBV_WR_RDMA_WRITE,
				  .wr.rdma = { .remote_addr = raddr, .rkey = c->peer.rkey } }, *bad;
	size_t body = marker ? size - 1 : size;
	int rc;

	if (body)
		sge[wr.num_sge++] = (struct ibv_sge){ (uintptr_t)x->buf, (uint32_t)body, x->mr->lkey };
	if (marker)
		sge[wr.num_sge++] = (struct ibv_sge){ (uintptr_t)(x->buf + VERBS_MARKER_OFFSET(x->max, marker)), 1,
						      x->mr->lkey };
	if (size <= c->max_inline)
		wr.send_flags |= IBV_SEND_INLINE;
	if (c->inflight >= x->sq_depth && (rc = verbs_reap(c, x->sq_depth - 1, deadline)))
		return rc;
	if (verbs_sig_due(c->unsig, c->every, last)) {
		wr.send_flags |= IBV_SEND_SIGNALED;
		wr.wr_id = (uint64_t)c->unsig + 1;
		c->unsig = 0;
	} else {
		c->unsig++;
	}
	CHECK_IBV(x, c->base.peer, c->base.why, ibv_post_send(c->qp, &wr, &bad), return FP_ERUNTIME);
	c->inflight++;
	return 0;
}

/* Busy-poll *p until it holds want, then clear it. Every POLL_CHECK polls take completions (a
 * failed write ends the wait at once) and look at the deadline. */
static int verbs_wait_byte(struct verbs_conn *c, uint8_t *p, uint8_t want, double deadline,
			   const char *what)
{
	for (unsigned spin = 1; __atomic_load_n(p, __ATOMIC_ACQUIRE) != want; spin++) {
		int rc, n;

		if (spin % POLL_CHECK)
			continue;
		if ((rc = verbs_poll_once(c, &n)))
			return rc;
		if (clock_now() > deadline) {
			snprintf(c->base.why, TR_WHY_MAX, "timed out waiting for %s", what);
			return FP_ETIMEDOUT;
		}
	}
	__atomic_store_n(p, 0, __ATOMIC_RELAXED);
	return 0;
}

int verbs_roundtrip(struct tr_conn *base, size_t size, double deadline)
{
	struct verbs_conn *c = (struct verbs_conn *)base;
	uint8_t m = verbs_marker(c->iter++);
	int rc;

	rc = verbs_post(c, size, c->peer.addr, m, 0, deadline);
	return rc ? rc : verbs_wait_byte(c, c->ctx->buf + c->ctx->max + size - 1, m, deadline, "the echo");
}

int verbs_echo(struct tr_conn *base, size_t size, double deadline)
{
	struct verbs_conn *c = (struct verbs_conn *)base;
	uint8_t m = verbs_marker(c->iter++);
	int rc = verbs_wait_byte(c, c->ctx->buf + c->ctx->max + size - 1, m, deadline, "the ping");

	return rc ? rc : verbs_post(c, size, c->peer.addr, m, 0, deadline);
}

int verbs_stream_send(struct tr_conn *base, size_t size, int window, double deadline)
{
	struct verbs_conn *c = (struct verbs_conn *)base;
	struct verbs_ctx *x = c->ctx;
	uint8_t m = verbs_marker(c->iter++);
	int rc;

	for (int i = 0; i < window; i++) {
		if (x->fault == TR_FAULT_RESET && c->windows == 1 && i == window / 2) {
			/* test only: break the connection mid-stream */
			struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };

			ibv_modify_qp(c->qp, &qa, IBV_QP_STATE);
			snprintf(base->why, TR_WHY_MAX, "test fault: moved the QP to the error state mid-stream");
			return FP_EPEER;
		}
		if ((rc = verbs_post(c, size, c->peer.addr, i == window - 1 ? m : 0, i == window - 1, deadline)))
			return rc;
	}
	c->windows++;
	if ((rc = verbs_reap(c, 0, deadline)))
		return rc;
	return verbs_wait_byte(c, x->buf + 2 * x->max, m, deadline, "the window's acknowledgement");
}

int verbs_stream_recv(struct tr_conn *base, size_t size, int window, double deadline)
{
	struct verbs_conn *c = (struct verbs_conn *)base;
	uint8_t m = verbs_marker(c->iter++);
	int rc;

	(void)window; /* only the last message is looked at */
	if ((rc = verbs_wait_byte(c, c->ctx->buf + c->ctx->max + size - 1, m, deadline,
				  "the window's last message")))
		return rc;
	/* the ack: one byte, the marker, into the sender's ack byte (the end of what it lent us) */
	return verbs_post(c, 1, c->peer.addr + c->peer.size - 1, m, 0, deadline);
}


/* The ring's step (verbs_wire.h: segments, data flag, credit). Each segment: the send half
 * filled once the writes reading it completed, the data and its flag posted to `to`; the
 * left neighbour's segment awaited, copied out, credited; then the right neighbour's credit
 * for ours. Posting never waits on a peer, so no ring of endpoints can deadlock. */
int verbs_exchange(struct tr_conn *tb, const void *sbuf, size_t slen, struct tr_conn *fb, void *rbuf,
		   size_t rlen, double deadline)
{
	struct verbs_conn *to = (struct verbs_conn *)tb, *from = (struct verbs_conn *)fb;
	struct verbs_ctx *x = to->ctx;
	const uint8_t *s = sbuf;
	uint8_t *r = rbuf, *flag = x->buf + 2 * x->max, *credit = x->buf + 2 * x->max - 1;
	size_t seg = x->max - 1;
	int rc;

	if (seg == 0) {
		snprintf(tb->why, TR_WHY_MAX, "the ring needs buffers of 2 bytes at least");
		return FP_ERUNTIME;
	}
	while (slen || rlen) {
		size_t sn = slen < seg ? slen : seg, rn = rlen < seg ? rlen : seg;
		uint8_t ms = verbs_marker(to->ring_sent), mr = verbs_marker(from->ring_recvd);

		if (sn) {
			if ((rc = verbs_reap(to, 0, deadline)))
				return rc;
			memcpy(x->buf, s, sn);
			if ((rc = verbs_post(to, sn, to->peer.addr, 0, 0, deadline)) ||
			    (rc = verbs_post(to, 1, to->peer.addr + x->max, ms, 1, deadline)))
				return rc;
		}
		if (rn) {
			if ((rc = verbs_wait_byte(from, flag, mr, deadline, "the ring's data")))
				return rc;
			memcpy(r, x->buf + x->max, rn);
			if ((rc = verbs_post(from, 1, from->peer.addr + x->max - 1, mr, 1, deadline)))
				return rc;
			from->ring_recvd++;
			r += rn, rlen -= rn;
		}
		if (sn) {
			if ((rc = verbs_wait_byte(to, credit, ms, deadline, "the ring's credit")))
				return rc;
			to->ring_sent++;
			s += sn, slen -= sn;
		}
	}
	if ((rc = verbs_reap(to, 0, deadline)))
		return rc;
	return verbs_reap(from, 0, deadline);
}
