/* verbs_ring.c — see verbs_ring.h. */
#include "verbs_ring.h"

#include "verbs_wire.h"

void vring_start(struct vring *r, size_t seg, const void *src, size_t slen, void *dst, size_t rlen,
		 unsigned long *sent, unsigned long *recvd)
{
	*r = (struct vring){ .seg = seg, .src = src, .slen = slen, .dst = dst, .rlen = rlen, .sent = sent,
			     .recvd = recvd };
}

/* the next segment in, when its flag is there */
static int receive(struct vring *r, const struct vring_io *io, int *moved)
{
	unsigned long g = *r->recvd;
	int slot = (int)(g % VERBS_RING_SLOTS);
	size_t n = r->rlen - r->r_off < r->seg ? r->rlen - r->r_off : r->seg;

	if (r->r_off == r->rlen || io->flag(io->ctx, slot) != verbs_marker(g))
		return 0;
	io->take(io->ctx, slot, r->dst + r->r_off, n);
	r->r_off += n;
	++*r->recvd;
	*moved = 1;
	return io->post_credit(io->ctx, slot, verbs_marker(g));
}

/* the next segment out, when its slot is free on both sides */
static int send(struct vring *r, const struct vring_io *io, int *moved)
{
	unsigned long g = *r->sent;
	int slot = (int)(g % VERBS_RING_SLOTS), rc;
	size_t n = r->slen - r->s_off < r->seg ? r->slen - r->s_off : r->seg;

	if (r->s_off == r->slen)
		return 0;
	if (g >= VERBS_RING_SLOTS && io->credit(io->ctx, slot) != verbs_marker(g - VERBS_RING_SLOTS))
		return 0; /* the receiver has not emptied the slot yet */
	io->stage(io->ctx, slot, r->src + r->s_off, n);
	if ((rc = io->post_data(io->ctx, slot, n)) || (rc = io->post_flag(io->ctx, slot, verbs_marker(g))))
		return rc;
	r->s_off += n;
	++*r->sent;
	*moved = 1;
	return 0;
}

int vring_progress(struct vring *r, const struct vring_io *io)
{
	int moved = 1, rc;

	while (moved) {
		moved = 0;
		/* receiving first: it frees the left neighbour's slot soonest */
		if ((rc = receive(r, io, &moved)) || (rc = send(r, io, &moved)))
			return rc;
	}
	return r->s_off == r->slen && r->r_off == r->rlen;
}
