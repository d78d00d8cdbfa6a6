/* tr_verbs.c — the "verbs:<dev>:<port>" transport: RDMA writes over one RC queue pair per pair
 * of endpoints, on one InfiniBand or RoCE port, as perftest's ib_write_lat / ib_write_bw do.
 * Compiled only with libibverbs; the pure parts (attributes, connection info, MTU, PSN,
 * signalling, GID choice, buffer layout) are in verbs_wire.c and unit-tested everywhere; the
 * data path (the ping-pong and the windows) is in io_verbs.c.
 *
 * open: device, port query (ACTIVE; IB needs a LID, RoCE a v2 GID), PD, one registered buffer
 * (verbs_wire.h gives its layout). A port that is absent or unusable is not an error: the
 * path is marked unusable with the reason, and the engine skips its pairs.
 * connect: a CQ and an RC QP of their own per pair, so that a pair that failed (QP in the error
 * state, flushed completions, a late write) can never disturb the next one; creating them
 * costs well under a millisecond, outside the timed loops. QP info is exchanged over MPI
 * (a private duplicate of env->comm, tag from seq), checked, then INIT→RTR→RTS, then a second
 * one-byte exchange so that neither side writes before the other's QP can receive.
 * Data: every message is an RDMA write into the peer's receive half at offset 0. Latency: the
 * last byte carries an iteration marker that the peer busy-polls for, then writes back.
 * Bandwidth: a window of writes, selectively signalled (through the relaxed-ordering key), then
 * the window's marker as a one-byte strictly ordered write into the receiver's end flag; the
 * receiver answers with the marker into the sender's acknowledgement byte (RDMA writes rather
 * than send/recv: no receive queue to keep posted, no RNR, the same polling as latency). A
 * strict write cannot pass the writes before it, so seeing the end flag means the window has
 * landed. Windows are pipelined two deep (verbs_wire.h): the sender posts the next window
 * before the last one's acknowledgement is back. A polled byte is cleared once seen, so an
 * old marker is never mistaken for a new one; the marker itself comes from a constant byte per
 * value (verbs_wire.h), so nothing a posted write may still read is ever changed.
 *
 * NOT RUN ON HARDWARE: no RDMA device was available when this was written (the README says
 * what has run where). */
#include "tr_verbs.h"

enum { TAG_INFO, TAG_READY, TAG_DONE, TAG_KINDS };

/* The mirrors in verbs_wire.h must be libibverbs' values (compared as int: distinct enums). */
#define SAME(a, b) ((int)(a) == (int)(b))
_Static_assert(SAME(IBV_QPS_INIT, VERBS_QPS_INIT) && SAME(IBV_QPS_RTR, VERBS_QPS_RTR) &&
	       SAME(IBV_QPS_RTS, VERBS_QPS_RTS), "QP states");
_Static_assert(SAME(IBV_MTU_256, VERBS_MTU_256) && SAME(IBV_MTU_4096, VERBS_MTU_4096), "MTU codes");
_Static_assert(SAME(IBV_PORT_ACTIVE, VERBS_PORT_ACTIVE), "port state");
_Static_assert(SAME(IBV_LINK_LAYER_INFINIBAND, VERBS_LL_INFINIBAND) &&
	       SAME(IBV_LINK_LAYER_ETHERNET, VERBS_LL_ETHERNET), "link layers");
_Static_assert(SAME(IBV_ACCESS_LOCAL_WRITE, VERBS_ACCESS_LOCAL_WRITE) &&
	       SAME(IBV_ACCESS_REMOTE_WRITE, VERBS_ACCESS_REMOTE_WRITE), "access flags");
_Static_assert(SAME(IBV_QP_STATE, VERBS_ATTR_STATE) && SAME(IBV_QP_ACCESS_FLAGS, VERBS_ATTR_ACCESS_FLAGS) &&
	       SAME(IBV_QP_PKEY_INDEX, VERBS_ATTR_PKEY_INDEX) && SAME(IBV_QP_PORT, VERBS_ATTR_PORT) &&
	       SAME(IBV_QP_AV, VERBS_ATTR_AV) && SAME(IBV_QP_PATH_MTU, VERBS_ATTR_PATH_MTU) &&
	       SAME(IBV_QP_TIMEOUT, VERBS_ATTR_TIMEOUT) && SAME(IBV_QP_RETRY_CNT, VERBS_ATTR_RETRY_CNT) &&
	       SAME(IBV_QP_RNR_RETRY, VERBS_ATTR_RNR_RETRY) && SAME(IBV_QP_RQ_PSN, VERBS_ATTR_RQ_PSN) &&
	       SAME(IBV_QP_MAX_QP_RD_ATOMIC, VERBS_ATTR_MAX_QP_RD_ATOMIC) &&
	       SAME(IBV_QP_MIN_RNR_TIMER, VERBS_ATTR_MIN_RNR_TIMER) && SAME(IBV_QP_SQ_PSN, VERBS_ATTR_SQ_PSN) &&
	       SAME(IBV_QP_MAX_DEST_RD_ATOMIC, VERBS_ATTR_MAX_DEST_RD_ATOMIC) &&
	       SAME(IBV_QP_DEST_QPN, VERBS_ATTR_DEST_QPN), "QP attribute mask bits");
_Static_assert(SAME(IBV_WC_LOC_LEN_ERR, VERBS_WC_LOC_LEN_ERR) && SAME(IBV_WC_WR_FLUSH_ERR, VERBS_WC_WR_FLUSH_ERR) &&
	       SAME(IBV_WC_REM_ACCESS_ERR, VERBS_WC_REM_ACCESS_ERR) && SAME(IBV_WC_RETRY_EXC_ERR, VERBS_WC_RETRY_EXC_ERR) &&
	       SAME(IBV_WC_FATAL_ERR, VERBS_WC_FATAL_ERR) && SAME(IBV_WC_GENERAL_ERR, VERBS_WC_GENERAL_ERR),
	       "completion statuses");
_Static_assert(SAME(IBV_EVENT_QP_FATAL, VERBS_EVENT_QP_FATAL) && SAME(IBV_EVENT_DEVICE_FATAL, VERBS_EVENT_DEVICE_FATAL) &&
	       SAME(IBV_EVENT_PORT_ERR, VERBS_EVENT_PORT_ERR) && SAME(IBV_EVENT_LID_CHANGE, VERBS_EVENT_LID_CHANGE) &&
	       SAME(IBV_EVENT_GID_CHANGE, VERBS_EVENT_GID_CHANGE), "async event types");

/* ---------------------------------------------------------------- error reporting */

void verbs_report(const struct verbs_ctx *x, int peer, char *why, const char *call, int err,
		  const char *file, int line)
{
	char who[24] = "while opening";
	/* the usual cause of a registration failure, said where the user looks */
	const char *hint = !strncmp(call, "ibv_reg_mr", 10) && (err == ENOMEM || err == EPERM)
				   ? " (locked-memory limit too low? see ulimit -l)" : "";

	if (peer >= 0)
		snprintf(who, sizeof who, "peer %d", peer);
	log_msg("error", file, line, "verbs:%s:%d %s: %s: %s%s", x->dev, x->port, who, call, strerror(err),
		hint);
	if (why)
		snprintf(why, TR_WHY_MAX, "%.32s:%d: %.*s: %s%s", x->dev, x->port, (int)strcspn(call, "("), call,
			 strerror(err), hint);
}

/* ---------------------------------------------------------------- open / close */

static void verbs_close(void *vctx)
{
	struct verbs_ctx *x = vctx;

	if (!x)
		return;
	if (x->mr_ctl)
		ibv_dereg_mr(x->mr_ctl);
	if (x->mr)
		ibv_dereg_mr(x->mr);
	free(x->buf);
	if (x->pd)
		ibv_dealloc_pd(x->pd);
	if (x->ibv)
		ibv_close_device(x->ibv);
	if (x->comm != MPI_COMM_NULL)
		MPI_Comm_free(&x->comm);
	free(x);
}

/* Open the device named x->dev, or say in why that this node has no such device (and which it
 * has, since a typo is the likeliest cause). */
static int verbs_device_open(struct verbs_ctx *x, char *why)
{
	struct ibv_device **list;
	char have[128] = "";
	int n = 0, rc = 0, found = -1;

	if (!(list = ibv_get_device_list(&n)) || n == 0) {
		/* NULL: no RDMA support at all (ENOSYS without the kernel modules) */
		snprintf(why, TR_WHY_MAX, "no RDMA device %.32s on %.60s (it has none%s%.60s)", x->dev, x->host,
			 list ? "" : ": ", list ? "" : strerror(errno));
		if (list)
			ibv_free_device_list(list);
		return FP_ERUNTIME;
	}
	for (int i = 0; i < n; i++) {
		const char *name = ibv_get_device_name(list[i]);

		snprintf(have + strlen(have), sizeof have - strlen(have), "%s%s", i ? ", " : "", name);
		if (!strcmp(name, x->dev))
			found = i;
	}
	if (found < 0) {
		snprintf(why, TR_WHY_MAX, "no RDMA device %.32s on %.60s (it has %.120s)", x->dev, x->host, have);
		rc = FP_ERUNTIME;
	} else {
		CHECK_IBV_PTR(x, -1, why, x->ibv, ibv_open_device(list[found]), rc = FP_ERUNTIME);
	}
	ibv_free_device_list(list); /* an open device keeps what it needs */
	return rc;
}

/* Query the port into x->vp and choose the RoCE v2 GID; describe it in *port. */
static int verbs_port_query(struct verbs_ctx *x, int max_window, struct tr_port *port)
{
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	union ibv_gid gid;

	CHECK_IBV(x, -1, port->why, ibv_query_device(x->ibv, &da), return FP_ERUNTIME);
	if (x->port > da.phys_port_cnt) {
		snprintf(port->why, TR_WHY_MAX, "%.32s on %.60s has no port %d (it has %d)", x->dev, x->host,
			 x->port, da.phys_port_cnt);
		return FP_ERUNTIME;
	}
	CHECK_IBV(x, -1, port->why, ibv_query_port(x->ibv, (uint8_t)x->port, &pa), return FP_ERUNTIME);
	x->vp = (struct verbs_port){ .state = pa.state, .lid = pa.lid, .active_mtu = pa.active_mtu,
				     .active_speed = inv_port_speed_code(&pa), .active_width = pa.active_width,
				     .grh_required = !!(pa.flags & IBV_QPF_GRH_REQUIRED),
				     .link_layer = pa.link_layer == IBV_LINK_LAYER_ETHERNET ? VERBS_LL_ETHERNET
											      : VERBS_LL_INFINIBAND,
				     .gid_index = -1 };
	/* RoCE: the choice `fabprobe inventory` reports, from the whole GID table; InfiniBand:
	 * the port GID (index 0: subnet prefix and GUID), for a GRH where one is needed */
	if (verbs_port_is_roce(&x->vp) && pa.state == IBV_PORT_ACTIVE)
		x->vp.gid_index = inv_gid_choose_live(x->ibv, x->port, x->gid);
	else if (!verbs_port_is_roce(&x->vp) && pa.state == IBV_PORT_ACTIVE &&
		 ibv_query_gid(x->ibv, (uint8_t)x->port, 0, &gid) == 0) {
		x->vp.gid_index = 0;
		memcpy(x->gid, gid.raw, 16);
	}
	verbs_port_describe(&x->vp, x->dev, x->port, x->host, &x->qos, port);
	/* the pipelined windows in flight (each its messages and end flag) when the device allows;
	 * otherwise posting waits for slots */
	x->sq_depth = VERBS_WIN_SLOTS * (max_window + 1) > SQ_MIN ? VERBS_WIN_SLOTS * (max_window + 1) : SQ_MIN;
	if (x->sq_depth > SQ_MAX)
		x->sq_depth = SQ_MAX;
	if (x->sq_depth > da.max_qp_wr)
		x->sq_depth = da.max_qp_wr;
	if (x->sq_depth > da.max_cqe - 1)
		x->sq_depth = da.max_cqe - 1;
	return port->usable ? 0 : FP_ERUNTIME;
}

/* Everything open builds on a usable port; on failure release exactly that, in reverse, and say
 * why in port. */
static int verbs_setup(struct verbs_ctx *x, const struct tr_env *env, struct tr_port *port)
{
	size_t len = VERBS_BUF_BYTES(x->max);

	int fl;

	if (verbs_device_open(x, port->why))
		return FP_ERUNTIME;
	/* asynchronous events (a port down, a fatal QP) are read while waiting, never waited for */
	x->async_ok = (fl = fcntl(x->ibv->async_fd, F_GETFL)) >= 0 &&
		      fcntl(x->ibv->async_fd, F_SETFL, fl | O_NONBLOCK) == 0;
	if (!x->async_ok)
		LOG_WARN("verbs:%s:%d: the async event fd stays blocking (%s): port events not read", x->dev, x->port,
			 strerror(errno));
	if (verbs_port_query(x, env->max_window, port))
		goto err_device;
	CHECK_IBV_PTR(x, -1, port->why, x->pd, ibv_alloc_pd(x->ibv), goto err_device);
	if (posix_memalign((void **)&x->buf, 4096, len)) {
		snprintf(port->why, TR_WHY_MAX, "out of memory for a %zu-byte buffer", len);
		goto err_pd;
	}
	memset(x->buf, 0, len); /* touch every page now: no page fault in a timed loop */
	for (int m = 1; m <= 255; m++)
		x->buf[VERBS_MARKER_OFFSET(x->max, m)] = (uint8_t)m;
	/* relaxed ordering is an optional access flag: a device without it registers as if unasked */
	CHECK_IBV_PTR(x, -1, port->why, x->mr,
		      ibv_reg_mr(x->pd, x->buf, 2 * x->max, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
							     IBV_ACCESS_RELAXED_ORDERING),
		      goto err_buf);
	CHECK_IBV_PTR(x, -1, port->why, x->mr_ctl,
		      ibv_reg_mr(x->pd, x->buf, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE),
		      goto err_mr);
	return 0;
err_mr:
	ibv_dereg_mr(x->mr);
	x->mr = NULL;
err_buf:
	free(x->buf);
	x->buf = NULL;
err_pd:
	ibv_dealloc_pd(x->pd);
	x->pd = NULL;
err_device:
	ibv_close_device(x->ibv);
	x->ibv = NULL;
	port->usable = 0;
	return FP_ERUNTIME;
}

static int verbs_check(const char *arg, char *why)
{
	char dev[TR_DEV_MAX];
	int port;

	return verbs_arg_parse(arg, dev, sizeof dev, &port, why);
}

static int verbs_open(const struct tr_env *env, const char *arg, void **out, struct tr_port *port)
{
	struct verbs_ctx *x;
	MPI_Comm comm;
	int *tag_ub = NULL, flag = 0;

	/* the one collective: made first, by every endpoint, whatever its port is like */
	if (MPI_Comm_dup(env->comm, &comm) != MPI_SUCCESS)
		return FP_ERUNTIME;
	if (!(x = calloc(1, sizeof *x))) {
		MPI_Comm_free(&comm);
		return FP_ERUNTIME;
	}
	x->comm = comm;
	MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
	x->tag_span = (flag && *tag_ub > 32767 ? *tag_ub : 32767) / TAG_KINDS - 1;
	x->me = env->ep;
	x->fault = env->fault;
	x->max = env->max_size ? env->max_size : 1;
	snprintf(x->host, sizeof x->host, "%s", env->host ? env->host : "?");
	port->rate_gbps = NAN;
	port->usable = 0;
	snprintf(port->dev, sizeof port->dev, "%s", arg ? arg : "");
	verbs_qos_resolve(env->qos, getenv("NCCL_IB_TC"), getenv("NCCL_IB_SL"), &x->qos, port->why, sizeof port->why);
	if (port->why[0] && env->ep == 0)
		LOG_WARN("verbs:%s: %s", arg ? arg : "", port->why);
	port->why[0] = 0;
	if (verbs_arg_parse(arg, x->dev, sizeof x->dev, &x->port, port->why) == 0)
		verbs_setup(x, env, port); /* port->usable and why say how it went */
	*out = x;
	return 0;
}

/* ---------------------------------------------------------------- connect */

/* One message each way with the peer over MPI before the deadline. *got: bytes received. */
static int verbs_swap(struct verbs_conn *c, int kind, unsigned seq, const void *sbuf, int slen,
		      void *rbuf, int rlen, int *got, double deadline)
{
	struct verbs_ctx *x = c->ctx;
	int tag = (int)(seq % (unsigned)x->tag_span) * TAG_KINDS + kind, rc;
	MPI_Request r[2];
	MPI_Status st[2];

	/* what the row says should an MPI call fail (CHECK_MPI logs it and returns) */
	const char *what = kind == TAG_INFO ? "connection info" : kind == TAG_READY ? "ready message" : "done message";

	snprintf(c->base.why, TR_WHY_MAX, "MPI error exchanging the %s with the peer (see the log)", what);
	CHECK_MPI(MPI_Irecv(rbuf, rlen, MPI_BYTE, c->base.peer, tag, x->comm, &r[0]));
	CHECK_MPI(MPI_Isend(sbuf, slen, MPI_BYTE, c->base.peer, tag, x->comm, &r[1]));
	if ((rc = mpi_wait_deadline_status(r, 2, deadline, st))) {
		snprintf(c->base.why, TR_WHY_MAX, "%s the peer's %s", rc == FP_ETIMEDOUT ? "timed out waiting for"
			 : "MPI error receiving", what);
		return rc;
	}
	CHECK_MPI(MPI_Get_count(&st[0], MPI_BYTE, got));
	return 0;
}

/* A CQ and an RC QP in INIT. On failure releases what it made. */
static int verbs_qp_create(struct verbs_conn *c)
{
	struct verbs_ctx *x = c->ctx;
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 0,
		.cap = { .max_send_wr = (uint32_t)x->sq_depth, .max_recv_wr = 1, .max_send_sge = 2,
			 .max_recv_sge = 1, .max_inline_data = INLINE_WANT },
	};
	struct verbs_qp_attr va;
	struct ibv_qp_attr qa = { 0 };
	int peer = c->base.peer;

	CHECK_IBV_PTR(x, peer, c->base.why, c->cq, ibv_create_cq(x->ibv, x->sq_depth + 1, NULL, NULL, 0),
		      return FP_ERUNTIME);
	ia.send_cq = ia.recv_cq = c->cq;
	/* some providers refuse that much inline data: then none (writes read the buffer) */
	if (!(c->qp = ibv_create_qp(x->pd, &ia)))
		ia.cap.max_inline_data = 0;
	if (!c->qp)
		CHECK_IBV_PTR(x, peer, c->base.why, c->qp, ibv_create_qp(x->pd, &ia), goto err_cq);
	c->max_inline = ia.cap.max_inline_data; /* what the provider granted */
	c->every = verbs_sig_every(x->sq_depth);
	verbs_attr_init(x->port, &va);
	qa.qp_state = (enum ibv_qp_state)va.qp_state;
	qa.pkey_index = va.pkey_index;
	qa.port_num = va.port_num;
	qa.qp_access_flags = va.qp_access_flags;
	CHECK_IBV(x, peer, c->base.why, ibv_modify_qp(c->qp, &qa, va.mask), goto err_qp);
	return 0;
err_qp:
	ibv_destroy_qp(c->qp);
	c->qp = NULL;
err_cq:
	ibv_destroy_cq(c->cq);
	c->cq = NULL;
	return FP_ERUNTIME;
}

static void attr_to_ibv(const struct verbs_qp_attr *a, struct ibv_qp_attr *q)
{
	memset(q, 0, sizeof *q);
	q->qp_state = (enum ibv_qp_state)a->qp_state;
	q->path_mtu = (enum ibv_mtu)a->path_mtu;
	q->dest_qp_num = a->dest_qp_num;
	q->rq_psn = a->rq_psn;
	q->sq_psn = a->sq_psn;
	q->max_dest_rd_atomic = a->max_dest_rd_atomic;
	q->min_rnr_timer = a->min_rnr_timer;
	q->max_rd_atomic = a->max_rd_atomic;
	q->timeout = a->timeout;
	q->retry_cnt = a->retry_cnt;
	q->rnr_retry = a->rnr_retry;
	q->ah_attr.dlid = a->ah.dlid;
	q->ah_attr.sl = a->ah.sl;
	q->ah_attr.src_path_bits = a->ah.src_path_bits;
	q->ah_attr.port_num = a->ah.port_num;
	q->ah_attr.is_global = a->ah.is_global;
	memcpy(q->ah_attr.grh.dgid.raw, a->ah.dgid, 16);
	q->ah_attr.grh.sgid_index = a->ah.sgid_index;
	q->ah_attr.grh.hop_limit = a->ah.hop_limit;
	q->ah_attr.grh.traffic_class = a->ah.traffic_class;
	q->ah_attr.grh.flow_label = a->ah.flow_label;
}

/* INIT → RTR → RTS toward the peer whose info was checked. */
static int verbs_qp_ready(struct verbs_conn *c)
{
	struct verbs_ctx *x = c->ctx;
	struct verbs_qp_attr va;
	struct ibv_qp_attr qa;

	verbs_attr_rtr(x->port, &c->mine, &c->peer, &x->qos, &va);
	attr_to_ibv(&va, &qa);
	CHECK_IBV(x, c->base.peer, c->base.why, ibv_modify_qp(c->qp, &qa, va.mask), return FP_ERUNTIME);
	verbs_attr_rts(&c->mine, &va);
	attr_to_ibv(&va, &qa);
	CHECK_IBV(x, c->base.peer, c->base.why, ibv_modify_qp(c->qp, &qa, va.mask), return FP_ERUNTIME);
	return 0;
}

static void verbs_info_fill(struct verbs_conn *c, unsigned seq)
{
	struct verbs_ctx *x = c->ctx;
	uint32_t r;

	if (getrandom(&r, sizeof r, GRND_NONBLOCK) != sizeof r)
		r = (uint32_t)(clock_now() * 1e9) ^ (uint32_t)c->base.peer * 2654435761u;
	c->mine = (struct verbs_info){
		.magic = VERBS_INFO_MAGIC, .version = VERBS_INFO_VERSION,
		.link_layer = (uint32_t)x->vp.link_layer,
		.gid_type = verbs_port_is_roce(&x->vp) ? VERBS_GID_ROCE_V2 : VERBS_GID_NONE,
		.from = (uint32_t)x->me, .to = (uint32_t)c->base.peer, .seq = seq,
		.qpn = c->qp ? c->qp->qp_num : 0, .psn = verbs_psn(r), .lid = x->vp.lid,
		.gid_index = x->vp.gid_index >= 0 ? (uint32_t)x->vp.gid_index : 0,
		.mtu = (uint32_t)x->vp.active_mtu, .rkey = x->mr->rkey, .rkey_ctl = x->mr_ctl->rkey,
		.addr = (uint64_t)(uintptr_t)(x->buf + x->max), .size = VERBS_LENT_BYTES(x->max),
		.flags = x->vp.grh_required ? VERBS_INFO_GRH : 0,
	};
	memcpy(c->mine.gid, x->gid, 16);
	if (x->fault == TR_FAULT_BAD_TOKEN)
		c->mine.magic ^= 0xdeadbeef; /* test only: the peer must refuse us */
}

/* Exchange and check the connection info, bring the QP up, then agree that both are ready. */
static int verbs_handshake(struct verbs_conn *c, unsigned seq, int local_rc, double deadline)
{
	uint8_t out[VERBS_INFO_BYTES], in[INFO_ROOM], ok, peer_ok = 0;
	int got = 0, rc;

	verbs_info_encode(&c->mine, out);
	if ((rc = verbs_swap(c, TAG_INFO, seq, out, sizeof out, in, sizeof in, &got, deadline)))
		return rc;
	if ((rc = local_rc) == 0 && /* else the peer got our qpn 0 and says so on its side */
	    (rc = verbs_info_decode(in, (size_t)got, &c->peer, c->base.why)) == 0 &&
	    (rc = verbs_info_check(&c->mine, &c->peer, c->base.why)) == 0)
		rc = verbs_qp_ready(c);
	ok = rc == 0;
	/* tell the peer either way, so that it does not wait for its deadline */
	if ((local_rc = verbs_swap(c, TAG_READY, seq, &ok, 1, &peer_ok, 1, &got, deadline)))
		return rc ? rc : local_rc;
	if (rc)
		return rc;
	if (!peer_ok) {
		snprintf(c->base.why, TR_WHY_MAX, "the peer refused our connection info or could not "
			 "bring its QP up (its side of the row says why)");
		return FP_EPEER;
	}
	c->ready = 1;
	return 0;
}

int verbs_agree_done(struct verbs_conn *c, double deadline)
{
	uint8_t done = 1, peer = 0;
	int got = 0;

	return verbs_swap(c, TAG_DONE, c->seq, &done, 1, &peer, 1, &got, deadline);
}

static void verbs_disconnect(struct tr_conn *base)
{
	struct verbs_conn *c = (struct verbs_conn *)base;

	if (!c)
		return;
	verbs_conn_teardown(c); /* the last writes placed at the peer before the QP goes */
	free(c);
}

static int verbs_connect(void *vctx, int peer, unsigned seq, double deadline, struct tr_conn **out,
			 char *why)
{
	struct verbs_ctx *x = vctx;
	struct verbs_conn *c = calloc(1, sizeof *c);
	int rc;

	if (!c) {
		snprintf(why, TR_WHY_MAX, "out of memory");
		return FP_ERUNTIME;
	}
	c->base.peer = peer;
	c->ctx = x;
	c->seq = seq;
	*out = &c->base;
	if (x->fault == TR_FAULT_NO_CONNECT) {
		/* test only: never exchange; the peer must give up at its deadline */
		while (clock_now() < deadline)
			clock_sleep_us(10000);
		snprintf(why, TR_WHY_MAX, "test fault: did not connect");
		return FP_ETIMEDOUT;
	}
	/* the receive half and ack byte start clear: no marker of an earlier pair is left */
	memset(x->buf + x->max, 0, x->max + 1);
	memset(x->buf + VERBS_FLAG_OFFSET(x->max, 0), 0, 2 * VERBS_RING_SLOTS); /* the ring's flags, credits */
	rc = verbs_qp_create(c);
	verbs_info_fill(c, seq);
	rc = verbs_handshake(c, seq, rc, deadline);
	if (rc)
		snprintf(why, TR_WHY_MAX, "%s", c->base.why);
	return rc;
}

const struct transport_ops transport_verbs = {
	.name = "verbs",
	.summary = "RDMA writes over an RC queue pair on one port, verbs:<device>:<port> (IB, RoCE v2)",
	.exchange_capped = "the ring copies each segment in and out of its registered slots on one core",
	.check = verbs_check,
	.open = verbs_open,
	.connect = verbs_connect,
	.roundtrip = verbs_roundtrip,
	.echo = verbs_echo,
	.stream_send = verbs_stream_send,
	.stream_recv = verbs_stream_recv,
	.stream_end = verbs_stream_end,
	.exchange = verbs_exchange,
	.disconnect = verbs_disconnect,
	.close = verbs_close,
};
