/* fuzz_expect.c — the --expect reader (exp_parse) on any bytes. Oracles: a refusal says why
 * and names the file; an accepted spec has rules that each say where they came from; the same
 * text with a byte order mark before it, or with its LFs made CRLF, gives the same answer (the
 * same number of rules, or a refusal): line ends and a BOM are read the same way everywhere.
 * Seeds: tests/fuzz/seeds/fuzz_expect. */
#include "fuzz.h"

#include "fabric/judge/expect.h"

/* exp_parse over text[0..len): its rc, and the rule count in *n (-1 when refused). */
static int parse(const char *text, size_t len, int *n)
{
	char err[EXPECT_ERR_MAX] = "";
	struct exp_set s = { 0 };
	FILE *f = fmemopen((void *)text, len ? len : 1, "r");
	int rc;

	if (!f)
		abort();
	if (!len) /* fmemopen wants a size: an empty file is read as none */
		fseek(f, 0, SEEK_END);
	rc = exp_parse(f, "spec.conf", &s, err);
	fclose(f);
	FUZZ_ASSERT(rc == 0 || ((rc == FP_EUSAGE || rc == FP_ERUNTIME) && !strncmp(err, "spec.conf", 9)),
		    "exp_parse: rc %d, err '%s'", rc, err);
	for (int i = 0; rc == 0 && i < s.n; i++)
		FUZZ_ASSERT((!strncmp(s.r[i].from, "spec.conf:", 10) || !strncmp(s.r[i].from, "preset ", 7)) && s.r[i].key[0],
			    "rule %d: from '%s', key '%s'", i, s.r[i].from, s.r[i].key);
	*n = rc == 0 ? s.n : -1;
	exp_free(&s);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_variants v;
	int n, n_bom, n_crlf;

	if (size > 1 << 16)
		return 0;
	parse((const char *)data, size, &n);
	if (size >= 3 && !memcmp(data, "\xef\xbb\xbf", 3))
		return 0; /* a second mark would be text */
	fuzz_variants(data, size, &v);
	parse(v.bom, v.nbom, &n_bom);
	parse(v.crlf, v.ncrlf, &n_crlf);
	FUZZ_ASSERT(n_bom == n, "with a BOM: %d rules, without: %d", n_bom, n);
	if (!memchr(data, 0, size)) /* a NUL's line number moves, not its refusal */
		FUZZ_ASSERT(n_crlf == n, "with CRLF: %d rules, with LF: %d", n_crlf, n);
	fuzz_variants_free(&v);
	return 0;
}
