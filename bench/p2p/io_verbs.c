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
			enum verbs_blame b = verbs_wc_blame(wc[i].status);

			c->broken = 1;
			snprintf(c->base.why, TR_WHY_MAX, "%.32s:%d: RDMA write %s: %s (vendor error 0x%x)",
				 c->ctx->dev, c->ctx->port,
				 b == VERBS_BLAME_LOCAL ? "failed on this side" : b == VERBS_BLAME_REMOTE
				 ? "failed at the peer or on the path" : b == VERBS_BLAME_FLUSH
				 ? "flushed (an earlier failure)" : "failed", ibv_wc_status_str(wc[i].status),
				 wc[i].vendor_err);
			return b == VERBS_BLAME_LOCAL ? FP_ERUNTIME : FP_EPEER;
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
		if (n == 0 && spin % POLL_CHECK == 0 && (rc = verbs_async_check(c)))
			return rc;
		if (n == 0 && spin % POLL_CHECK == 0 && clock_now() > deadline) {
			snprintf(c->base.why, TR_WHY_MAX, "timed out waiting for write completions");
			return FP_ETIMEDOUT;
		}
	}
	return 0;
}

enum { POST_LAST = 1, /* signal it (a batch ends) */
       POST_BULK = 2  /* data someone does not poll: the relaxed key (verbs_remote_key) */ };

/* One RDMA write of size bytes to the peer at raddr, from our send half at loff; with a marker
 * (not 0), its last byte comes from that marker's constant byte instead. */
static int verbs_post_at(struct verbs_conn *c, size_t loff, size_t size, uint64_t raddr, uint8_t marker,
			 int how, double deadline)
{
	struct verbs_ctx *x = c->ctx;
	struct ibv_sge sge[2];
	struct ibv_send_wr wr = { .sg_list = sge, .opcode = IBV_WR_RDMA_WRITE,
				  .wr.rdma = { .remote_addr = raddr,
					       .rkey = verbs_remote_key(&c->peer, x->max, raddr,
									how & POST_BULK) } }, *bad;
	size_t body = marker ? size - 1 : size;
	int rc;

	if (body)
		sge[wr.num_sge++] = (struct ibv_sge){ (uintptr_t)(x->buf + loff), (uint32_t)body, x->mr->lkey };
	if (marker)
		sge[wr.num_sge++] = (struct ibv_sge){ (uintptr_t)(x->buf + VERBS_MARKER_OFFSET(x->max, marker)), 1,
						      x->mr_ctl->lkey };
	if (size <= c->max_inline)
		wr.send_flags |= IBV_SEND_INLINE;
	if (c->inflight >= x->sq_depth && (rc = verbs_reap(c, x->sq_depth - 1, deadline)))
		return rc;
	if (verbs_sig_due(c->unsig, c->every, how & POST_LAST)) {
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

/* a byte of the peer's lent region at our layout's offset off (the peer's is the same) */
static uint64_t peer_byte(const struct verbs_conn *c, size_t off)
{
	return c->peer.addr + (off - c->ctx->max);
}

/* One marker byte, strictly ordered after everything posted before it, at the peer's off. */
static int verbs_post_flag(struct verbs_conn *c, size_t off, uint8_t marker, double deadline)
{
	return verbs_post_at(c, 0, 1, peer_byte(c, off), marker, POST_LAST, deadline);
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
		if ((rc = verbs_poll_once(c, &n)) || (rc = verbs_async_check(c)))
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

	rc = verbs_post_at(c, 0, size, c->peer.addr, m, 0, deadline);
	return rc ? rc : verbs_wait_byte(c, c->ctx->buf + c->ctx->max + size - 1, m, deadline, "the echo");
}

int verbs_echo(struct tr_conn *base, size_t size, double deadline)
{
	struct verbs_conn *c = (struct verbs_conn *)base;
	uint8_t m = verbs_marker(c->iter++);
	int rc = verbs_wait_byte(c, c->ctx->buf + c->ctx->max + size - 1, m, deadline, "the ping");

	return rc ? rc : verbs_post_at(c, 0, size, c->peer.addr, m, 0, deadline);
}

/* Wait for the acknowledgements of the windows before `upto`. */
static int verbs_stream_end_to(struct verbs_conn *c, unsigned long upto, double deadline)
{
	for (int rc; c->win_acked < upto; c->win_acked++) {
		unsigned long a = c->win_acked;

		rc = verbs_wait_byte(c, c->ctx->buf + VERBS_WACK_OFFSET(c->ctx->max, a % VERBS_WIN_SLOTS),
				     verbs_marker(a), deadline, "a window's acknowledgement");
		if (rc)
			return rc;
	}
	return 0;
}

/* Windows are pipelined (verbs_wire.h, verbs_win_ack_due): the next is posted before the
 * last one's acknowledgement is back, so no round trip idles the link between windows, as in
 * ib_write_bw's continuous posting; the send queue's depth paces the posting. */
int verbs_stream_send(struct tr_conn *base, size_t size, int window, double deadline)
{
	struct verbs_conn *c = (struct verbs_conn *)base;
	struct verbs_ctx *x = c->ctx;
	unsigned long w = c->win_sent;
	long due;
	int rc;

	for (int i = 0; i < window; i++) {
		if (x->fault == TR_FAULT_RESET && w == 1 && i == window / 2) {
			/* test only: break the connection mid-stream */
			struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };

			ibv_modify_qp(c->qp, &qa, IBV_QP_STATE);
			snprintf(base->why, TR_WHY_MAX, "test fault: moved the QP to the error state mid-stream");
			return FP_EPEER;
		}
		if ((rc = verbs_post_at(c, 0, size, c->peer.addr, 0, POST_BULK, deadline)))
			return rc;
	}
	if ((rc = verbs_post_flag(c, VERBS_WFLAG_OFFSET(x->max, w % VERBS_WIN_SLOTS), verbs_marker(w), deadline)))
		return rc;
	c->win_sent = w + 1;
	due = verbs_win_ack_due(w);
	return due < 0 ? 0 : verbs_stream_end_to(c, (unsigned long)due + 1, deadline);
}

int verbs_stream_end(struct tr_conn *base, double deadline)
{
	struct verbs_conn *c = (struct verbs_conn *)base;

	return verbs_stream_end_to(c, c->win_sent, deadline);
}

int verbs_stream_recv(struct tr_conn *base, size_t size, int window, double deadline)
{
	struct verbs_conn *c = (struct verbs_conn *)base;
	size_t max = c->ctx->max;
	unsigned long w = c->win_recvd;
	int rc;

	(void)size, (void)window; /* only the end flag is looked at */
	if ((rc = verbs_wait_byte(c, c->ctx->buf + VERBS_WFLAG_OFFSET(max, w % VERBS_WIN_SLOTS), verbs_marker(w),
				  deadline, "the window's end")))
		return rc;
	c->win_recvd = w + 1;
	return verbs_post_flag(c, VERBS_WACK_OFFSET(max, w % VERBS_WIN_SLOTS), verbs_marker(w), deadline);
}

/* The ring's step: verbs_ring.h's slot protocol, with this endpoint's buffer (verbs_wire.h's
 * layout) and its two connections: to the right neighbour (data and flags out, credits in)
 * and from the left one (data and flags in, credits out). */
struct ring_io {
	struct verbs_conn *to, *from;
	size_t seg;
	double deadline;
};

static void rio_stage(void *v, int slot, const uint8_t *src, size_t n)
{
	struct ring_io *r = v;

	memcpy(r->to->ctx->buf + (size_t)slot * r->seg, src, n);
}

static int rio_post_data(void *v, int slot, size_t n)
{
	struct ring_io *r = v;

	return verbs_post_at(r->to, (size_t)slot * r->seg, n, r->to->peer.addr + (size_t)slot * r->seg, 0,
			     POST_BULK, r->deadline);
}


/* signalled: the step's last reap then waits for every write */
static int rio_post_flag(void *v, int slot, uint8_t marker)
{
	struct ring_io *r = v;

	return verbs_post_flag(r->to, VERBS_FLAG_OFFSET(r->to->ctx->max, slot), marker, r->deadline);
}

static uint8_t rio_flag(void *v, int slot)
{
	struct ring_io *r = v;

	return __atomic_load_n(r->from->ctx->buf + VERBS_FLAG_OFFSET(r->from->ctx->max, slot), __ATOMIC_ACQUIRE);
}

static void rio_take(void *v, int slot, uint8_t *dst, size_t n)
{
	struct ring_io *r = v;
	struct verbs_ctx *x = r->from->ctx;

	memcpy(dst, x->buf + x->max + (size_t)slot * r->seg, n);
	__atomic_store_n(x->buf + VERBS_FLAG_OFFSET(x->max, slot), 0, __ATOMIC_RELEASE);
}

static int rio_post_credit(void *v, int slot, uint8_t marker)
{
	struct ring_io *r = v;

	return verbs_post_flag(r->from, VERBS_CREDIT_OFFSET(r->from->ctx->max, slot), marker, r->deadline);
}

static uint8_t rio_credit(void *v, int slot)
{
	struct ring_io *r = v;

	return __atomic_load_n(r->to->ctx->buf + VERBS_CREDIT_OFFSET(r->to->ctx->max, slot), __ATOMIC_ACQUIRE);
}

int verbs_exchange(struct tr_conn *tb, const void *sbuf, size_t slen, struct tr_conn *fb, void *rbuf,
		   size_t rlen, double deadline)
{
	struct verbs_conn *to = (struct verbs_conn *)tb, *from = (struct verbs_conn *)fb;
	struct ring_io rio = { to, from, to->ctx->max / VERBS_RING_SLOTS, deadline };
	const struct vring_io io = { &rio, rio_stage, rio_post_data, rio_post_flag, rio_flag, rio_take, rio_post_credit,
				     rio_credit };
	struct vring ring;
	int rc, n;

	if (rio.seg == 0) {
		snprintf(tb->why, TR_WHY_MAX, "the ring needs buffers of %d bytes at least", VERBS_RING_SLOTS);
		return FP_ERUNTIME;
	}
	vring_start(&ring, rio.seg, sbuf, slen, rbuf, rlen, &to->ring_sent, &from->ring_recvd);
	for (unsigned spin = 1; (rc = vring_progress(&ring, &io)) == 0; spin++) {
		if (spin % POLL_CHECK)
			continue;
		/* a failed write ends the step at once; so does the deadline */
		if ((rc = verbs_poll_once(to, &n)) || (from != to && (rc = verbs_poll_once(from, &n))) ||
		    (rc = verbs_async_check(to)))
			return rc;
		if (clock_now() > deadline) {
			snprintf(tb->why, TR_WHY_MAX, "timed out in the ring's step (%lu segments out, %lu in)", to->ring_sent,
				 from->ring_recvd);
			return FP_ETIMEDOUT;
		}
	}
	if (rc < 0)
		return rc;
	if ((rc = verbs_reap(to, 0, deadline)))
		return rc;
	return verbs_reap(from, 0, deadline);
}

/* ---------------------------------------------------------------- events, teardown */

int verbs_async_check(struct verbs_conn *c)
{
	struct verbs_ctx *x = c->ctx;
	struct ibv_async_event ev;
	const char *what;
	int mine;

	while (x->async_ok && ibv_get_async_event(x->ibv, &ev) == 0) { /* non-blocking (tr_verbs.c) */
		what = verbs_async_fatal(ev.event_type);
		switch (ev.event_type) {
		case IBV_EVENT_PORT_ERR: case IBV_EVENT_LID_CHANGE: case IBV_EVENT_GID_CHANGE:
			mine = ev.element.port_num == x->port;
			break;
		case IBV_EVENT_QP_FATAL: case IBV_EVENT_QP_REQ_ERR: case IBV_EVENT_QP_ACCESS_ERR:
			mine = ev.element.qp == c->qp;
			break;
		case IBV_EVENT_CQ_ERR:
			mine = ev.element.cq == c->cq;
			break;
		default:
			mine = ev.event_type == IBV_EVENT_DEVICE_FATAL;
		}
		ibv_ack_async_event(&ev);
		if (what && mine) {
			c->broken = 1;
			snprintf(c->base.why, TR_WHY_MAX, "%.32s:%d: %s (%s)", x->dev, x->port, what,
				 ibv_event_type_str(ev.event_type));
			return FP_EPEER;
		}
	}
	return 0;
}

static int td_fence(void *v)
{
	struct verbs_conn *c = v;
	struct ibv_send_wr wr = { .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
				  .wr_id = (uint64_t)c->unsig + 1, .wr.rdma = { .remote_addr = c->peer.addr,
									       .rkey = c->peer.rkey } }, *bad;

	if (!c->peer.addr || c->inflight >= c->ctx->sq_depth || ibv_post_send(c->qp, &wr, &bad))
		return 1;
	c->unsig = 0;
	c->inflight++;
	return 0;
}

static int td_reap(void *v, double deadline)
{
	return verbs_reap(v, 0, deadline);
}

static int td_agree(void *v, double deadline)
{
	return verbs_agree_done(v, deadline);
}

static void td_destroy_qp(void *v)
{
	struct verbs_conn *c = v;

	ibv_destroy_qp(c->qp);
	c->qp = NULL;
}

static void td_destroy_cq(void *v)
{
	struct verbs_conn *c = v;

	if (c->cq)
		ibv_destroy_cq(c->cq);
	c->cq = NULL;
}

void verbs_conn_teardown(struct verbs_conn *c)
{
	static const struct verbs_teardown_ops ops = { td_fence, td_reap, td_agree, td_destroy_qp, td_destroy_cq };

	verbs_teardown(&ops, c, c->qp != NULL, c->ready, c->broken, clock_now() + TEARDOWN_S);
}
