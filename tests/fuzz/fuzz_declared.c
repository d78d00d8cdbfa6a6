/* fuzz_declared.c — the --declared reader (decl_parse: a Slurm topology.conf or a CSV) on any
 * bytes. Oracles: a refusal says why and starts with the file's name; an accepted declaration
 * has at least one host, 1 to 8 tiers, every host named once and every group named; the same
 * text with a byte order mark before it, or with its LFs made CRLF, gives the same hosts and
 * tiers; the hostlists never expand past DECL_NAMES_MAX (the input is at most 16 KiB: the cap,
 * not the input, bounds the memory). Seeds: tests/fuzz/seeds/fuzz_declared. */
#include "fuzz.h"

#include "fabric/judge/declared.h"

/* decl_parse over a copy of text[0..len): rc; hosts and tiers in *n, *tiers (-1 when refused). */
static int parse(const char *text, size_t len, int *n, int *tiers)
{
	char err[DECL_ERR_MAX] = "", *buf = malloc(len + 1);
	struct decl d;
	int rc;

	if (!buf)
		abort();
	memcpy(buf, text, len);
	buf[len] = 0;
	rc = decl_parse(buf, len, "decl.conf", &d, err);
	free(buf);
	FUZZ_ASSERT(rc == 0 || ((rc == FP_EUSAGE || rc == FP_ERUNTIME) && !strncmp(err, "decl.conf", 9)),
		    "decl_parse: rc %d, err '%s'", rc, err);
	FUZZ_ASSERT(rc == 0 || (d.n == 0 && !d.host && !d.group), "refused, yet %d hosts kept", d.n);
	if (rc == 0) {
		FUZZ_ASSERT(d.n >= 1 && d.n <= DECL_NAMES_MAX, "%d hosts", d.n);
		FUZZ_ASSERT(d.ntiers >= 1 && d.ntiers <= RUNDIR_TIERS_MAX, "%d tiers", d.ntiers);
		for (int i = 0; i < d.n; i++) {
			FUZZ_ASSERT(d.host[i] && d.host[i][0], "host %d unnamed", i);
			for (int k = 0; k < d.ntiers; k++)
				FUZZ_ASSERT(d.group[(size_t)i * d.ntiers + k] && d.group[(size_t)i * d.ntiers + k][0],
					    "host %s: tier %d unnamed", d.host[i], k);
			if (d.n <= 512)
				for (int j = 0; j < i; j++)
					FUZZ_ASSERT(strcmp(d.host[i], d.host[j]), "host %s declared twice", d.host[i]);
		}
	}
	*n = rc == 0 ? d.n : -1;
	*tiers = rc == 0 ? d.ntiers : -1;
	decl_free(&d);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_variants v;
	int n, t, n2, t2;

	if (size > 1 << 14)
		return 0;
	parse((const char *)data, size, &n, &t);
	if (size >= 3 && !memcmp(data, "\xef\xbb\xbf", 3))
		return 0; /* a second mark would be text */
	fuzz_variants(data, size, &v);
	parse(v.bom, v.nbom, &n2, &t2);
	FUZZ_ASSERT(n2 == n && t2 == t, "with a BOM: %d hosts, %d tiers; without: %d, %d", n2, t2, n, t);
	parse(v.crlf, v.ncrlf, &n2, &t2);
	if (!memchr(data, 0, size))
		FUZZ_ASSERT(n2 == n && t2 == t, "with CRLF: %d hosts, %d tiers; with LF: %d, %d", n2, t2, n, t);
	fuzz_variants_free(&v);
	return 0;
}
