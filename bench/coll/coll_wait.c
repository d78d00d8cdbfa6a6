/* coll_wait.c — see coll_wait.h. */
#include "coll_wait.h"

#include <stdio.h>

#include "core/clock.h"
#include "core/log.h"

int coll_wait_poll(coll_poll_fn poll, void *arg, double wait_s, const char *what, char *why, size_t len)
{
	double start = clock_now();
	long sleep_us = 20;
	char reason[256] = "";

	for (;;) {
		int st = poll(arg, reason, sizeof reason);

		if (st == COLL_POLL_DONE)
			return 0;
		if (st != COLL_POLL_AGAIN) {
			snprintf(why, len, "%s: %s", what, reason[0] ? reason : "failed");
			return FP_ERUNTIME;
		}
		if (wait_s > 0 && clock_now() - start > wait_s) {
			snprintf(why, len, "%s: not done after %g s (--timeout): a peer or the network stopped", what,
				 wait_s);
			return FP_ETIMEDOUT;
		}
		clock_sleep_us(sleep_us);
		if (sleep_us < 2000)
			sleep_us *= 2;
	}
}
