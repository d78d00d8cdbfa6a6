/* fuzz_nccl_log.c — arbitrary bytes as an NCCL INFO log (fabric/io/nccl_log.h), read as `coll`
 * reads each rank's log. Oracles: the devices stay within their table, every name and link is a
 * terminated string of its field, the text of what carried the traffic is printable ASCII, and the
 * check against each kind of path answers -1, 0 or 1, with a reason exactly when 1. Seeds:
 * tests/fixtures/nccl. */
#include "fabric/io/nccl_log.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const paths[] = { NULL, "mpi", "tcp:eth0", "verbs:mlx5_0:1", "verbs:mlx5_0:1+mlx5_1:1" };
	struct nccl_seen s;
	char text[256], why[512];
	FILE *f = size ? fmemopen((void *)data, size, "r") : NULL;

	if (!f)
		return 0;
	FUZZ_ASSERT(nccl_log_read(f, &s) == 0, "nccl_log_read failed on memory");
	fclose(f);
	FUZZ_ASSERT(s.ndevs >= 0 && s.ndevs <= NCCL_LOG_DEVS, "ndevs %d", s.ndevs);
	for (int i = 0; i < NCCL_LOG_DEVS; i++)
		FUZZ_ASSERT(memchr(s.dev[i], 0, sizeof s.dev[i]) && memchr(s.link[i], 0, sizeof s.link[i]),
			    "device %d unterminated", i);
	FUZZ_ASSERT(memchr(s.network, 0, sizeof s.network) && memchr(s.via_net_name, 0, sizeof s.via_net_name),
		    "a name unterminated");
	nccl_seen_text(&s, text, sizeof text);
	FUZZ_ASSERT(text[0], "no text");
	for (const char *t = text; *t; t++)
		FUZZ_ASSERT(*t >= 0x20 && *t < 0x7f, "text byte 0x%02x", (unsigned char)*t);
	for (size_t k = 0; k < sizeof paths / sizeof *paths; k++) {
		int rc = nccl_seen_check(&s, paths[k], why, sizeof why);

		FUZZ_ASSERT(rc >= -1 && rc <= 1 && (rc == 1) == (why[0] != 0), "check %d why '%s'", rc, why);
		FUZZ_ASSERT(!strpbrk(why, "\r\n"), "a reason of two lines");
	}
	return 0;
}
