/* fuzz_actions.c — arbitrary bytes, split at NUL into (name, reason) pairs (an empty reason: the
 * node passed), through the actions' writers (emit_actions.c) as run writes them. Oracles: the
 * drain script is printable ASCII (and tabs); it has one `node` line per failed node whose name
 * the Slurm policy takes and a comment for each other failed node, nothing else from the
 * input; each node line is `node 'NAME' 'fabprobe r: REASON'`, the name as given, the reason
 * one single-quoted word; the health YAML, when written, is ASCII with one Node per name, and
 * refused only when a name is not a Kubernetes node name. Seeds: tests/fuzz/seeds. */
#include <string.h>
#include <strings.h>

#include "core/escape.h"
#include "fuzz.h"

#define MAXN 64

/* the single-quoted shell word at *p, decoded into out (its length), *p past it; -1 when the
 * text at *p is not one */
static long shell_word(const char **p, char *out, size_t cap)
{
	size_t k = 0;

	if (**p != '\'')
		return -1;
	for (;;) {
		const char *q = strchr(*p + 1, '\'');

		if (!q || k + (size_t)(q - *p - 1) >= cap)
			return -1;
		memcpy(out + k, *p + 1, (size_t)(q - *p - 1));
		k += (size_t)(q - *p - 1);
		*p = q + 1;
		if (strncmp(*p, "\\''", 3)) /* the word goes on only with \' and a new quote */
			break;
		out[k++] = '\'';
		*p += 2;
	}
	out[k] = 0;
	return (long)k;
}

static void check_drain(const struct emit_health *h, const char *text, size_t len)
{
	int want = 0, comments = 0, got = 0;
	char why[EMIT_ERR_MAX];

	for (size_t i = 0; i < len; i++)
		FUZZ_ASSERT(text[i] == '\n' || text[i] == '\t' || (text[i] >= 0x20 && text[i] < 0x7f), "byte %02x at %zu",
			    (unsigned char)text[i], i);
	for (int i = 0; i < h->n; i++)
		if (h->why[i])
			*(emit_name_check(EMIT_FMT_SLURM, h->hosts[i], why) ? &comments : &want) += 1;
	for (const char *l = text; *l; l = strchr(l, '\n') + 1) {
		char name[4096], reason[4096];
		const char *p = l + 5;

		FUZZ_ASSERT(strchr(l, '\n'), "the file ends without a line end");
		if (strncmp(l, "node ", 5))
			continue;
		FUZZ_ASSERT(shell_word(&p, name, sizeof name) >= 0 && *p == ' ', "a node line's name is not one word: %.80s", l);
		p++;
		FUZZ_ASSERT(shell_word(&p, reason, sizeof reason) >= 0 && *p == '\n', "a node line's reason is not one word");
		FUZZ_ASSERT(!strncmp(reason, "fabprobe r: ", 12), "a reason without the run's tag: %.80s", reason);
		FUZZ_ASSERT(!emit_name_check(EMIT_FMT_SLURM, name, why), "a refused name drained: %.80s", name);
		/* apart from the policy: never a name Slurm reads as a set or scontrol as an option */
		FUZZ_ASSERT(strcasecmp(name, "all") && name[0] != '-' && !strpbrk(name, ",[] \t"),
			    "a name Slurm expands drained: %.80s", name);
		got++;
	}
	FUZZ_ASSERT(got == want, "%d node lines for %d failed nodes Slurm can name", got, want);
	(void)comments;
}

static void check_health(const struct emit_health *h, int rc, const char *text, size_t len)
{
	char why[EMIT_ERR_MAX];
	int bad = 0, docs = 0;

	for (int i = 0; i < h->n; i++)
		bad += emit_name_check(EMIT_FMT_K8S, h->hosts[i], why) != 0;
	FUZZ_ASSERT((rc == FP_EUSAGE) == (bad > 0), "rc %d with %d names Kubernetes refuses", rc, bad);
	if (rc)
		return;
	for (size_t i = 0; i < len; i++)
		FUZZ_ASSERT(text[i] == '\n' || (text[i] >= 0x20 && text[i] < 0x7f), "byte %02x", (unsigned char)text[i]);
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		docs += !strncmp(l, "---\n", 4);
	FUZZ_ASSERT(docs == h->n, "%d Node objects for %d nodes", docs, h->n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), *text = NULL;
	const char *hosts[MAXN], *why[MAXN];
	size_t len = 0;
	int n = 0, rc;
	char err[EMIT_ERR_MAX];
	FILE *f;

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = 0;
	for (char *p = s; p <= s + size && n < MAXN; n++) {
		hosts[n] = p;
		p += strlen(p) + 1;
		why[n] = p <= s + size && *p ? p : NULL;
		p += p <= s + size ? strlen(p) + 1 : 1;
	}
	struct emit_health h = { .n = n, .hosts = hosts, .why = why, .run_tag = "fabprobe r", .how = s,
				 .label_prefix = "fabprobe.io", .taint = size & 1 };

	if (!(f = open_memstream(&text, &len)))
		abort();
	rc = emit_drain_slurm(f, &h, err);
	fclose(f);
	FUZZ_ASSERT(rc == 0, "the drain script failed: %d", rc);
	check_drain(&h, text, len);
	free(text);
	text = NULL;
	if (!(f = open_memstream(&text, &len)))
		abort();
	rc = emit_k8s_health(f, &h, err);
	fclose(f);
	check_health(&h, rc, text, len);
	free(text);
	free(s);
	return 0;
}
