/* verbs_ring.h — the ring's slot protocol over RDMA writes (io_verbs.c's exchange), pure and in
 * every build, so that a simulated wire drives it in the unit tests.
 *
 * One ring step moves a message to the right neighbour while one arrives from the left. Each
 * direction goes in segments of at most `seg` bytes through VERBS_RING_SLOTS slots: segment g
 * (counted over the connection's life) uses slot g mod S on both sides.
 *   sender:   waits for the credit of segment g - S (the receiver emptied the slot), copies
 *             the segment into its staging slot, writes it into the receiver's slot (data),
 *             then writes marker(g) into the receiver's flag byte of that slot (a strictly
 *             ordered write: it cannot pass the data, even where the data may be placed out
 *             of order, PCIe relaxed ordering);
 *   receiver: waits for marker(g) in its flag byte of the slot, copies the slot out, clears
 *             the flag, and writes marker(g) into the sender's credit byte of that slot (strict).
 * The credit also frees the sender's staging slot: it follows the flag, which follows the
 * data, whose bytes the sending NIC had read before they were placed. So S segments are in
 * flight each way: the copies, the wire and the credits' round trips overlap, where a
 * single buffer waits a round trip and both copies per segment. The first S
 * segments of a connection need no credit. Flags and credits start at 0 (cleared at connect);
 * markers are 1..255 (verbs_marker), so the byte of segment g - 255·k never reads as g's
 * while S < 255. */
#ifndef FP_VERBS_RING_H
#define FP_VERBS_RING_H

#include <stddef.h>
#include <stdint.h>

#define VERBS_RING_SLOTS 4

/* What the protocol does to the buffers and the wire; ctx is the caller's. Posting returns 0,
 * or an FP_E* code that ends the step. */
struct vring_io {
	void *ctx;
	void (*stage)(void *ctx, int slot, const uint8_t *src, size_t n);  /* copy into staging slot */
	int (*post_data)(void *ctx, int slot, size_t n);                    /* staging → peer's slot */
	int (*post_flag)(void *ctx, int slot, uint8_t marker);              /* strict → peer's flag */
	uint8_t (*flag)(void *ctx, int slot);                               /* my flag byte (acquire) */
	void (*take)(void *ctx, int slot, uint8_t *dst, size_t n);          /* copy my slot out, clear flag */
	int (*post_credit)(void *ctx, int slot, uint8_t marker);            /* strict → peer's credit */
	uint8_t (*credit)(void *ctx, int slot);                             /* my credit byte (acquire) */
};

/* One step's two directions. sent / recvd: the connection's segments so far each way (they
 * advance; kept by the caller between steps). */
struct vring {
	size_t seg;
	const uint8_t *src;
	size_t slen, s_off;     /* bytes to send, sent (staged and posted) */
	uint8_t *dst;
	size_t rlen, r_off;     /* bytes to receive, received */
	unsigned long *sent, *recvd;
};

/* A step over seg-byte slots: slen bytes of src out, rlen into dst. */
void vring_start(struct vring *r, size_t seg, const void *src, size_t slen, void *dst, size_t rlen,
		 unsigned long *sent, unsigned long *recvd);
/* Make what progress there is without waiting: 1 when both directions are done (every
 * segment sent was also credited, so every staging slot may be reused), 0 when not yet, or
 * an FP_E* code from io. */
int vring_progress(struct vring *r, const struct vring_io *io);

#endif
