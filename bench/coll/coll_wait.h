/* coll_wait.h — the one bounded wait of the GPU backend: a device or library operation polled
 * until it is done, fails, or outlasts its bound, sleeping between polls (never a blocking
 * call that a dead peer could hold for ever). NCCL's communicator creation, its enqueueing in
 * non-blocking mode, a stream and an event all wait through it (coll_nccl.c); the unit test
 * drives it with fake states. No NCCL or CUDA here. */
#ifndef FP_COLL_WAIT_H
#define FP_COLL_WAIT_H

#include <stddef.h>

/* One poll: COLL_POLL_DONE, COLL_POLL_AGAIN (still in progress), or COLL_POLL_FAILED with the
 * library's reason in why (len bytes). */
enum { COLL_POLL_DONE = 0, COLL_POLL_AGAIN = 1, COLL_POLL_FAILED = -1 };
typedef int (*coll_poll_fn)(void *arg, char *why, size_t len);

/* Poll until done (0), failed (FP_ERUNTIME), or wait_s seconds passed (FP_ETIMEDOUT); the sleep
 * between polls grows from 20 us to 2 ms (a short operation is seen at once, a long one costs
 * no CPU). On failure or timeout why says what (`what`: "allreduce float 1048576 B") and
 * why, in one line. wait_s <= 0: no bound. */
int coll_wait_poll(coll_poll_fn poll, void *arg, double wait_s, const char *what, char *why, size_t len);

#endif
