/* fuzz_escape.c — arbitrary bytes (split at NUL into strings) through each rule of
 * core/escape.h, each output decoded back: the YAML scalar is one double-quoted ASCII string
 * whose decoding is the input (or the input is not UTF-8 and nothing is written); the shell
 * word is quoted runs joined by \' only, nothing unquoted; the terminal text and the comment
 * line are printable ASCII that \xHH-decode to the input; the JSON string holds no raw
 * control byte, DEL, U+2028 or U+2029 and decodes to the input; the Prometheus label value
 * holds no raw LF or unescaped quote and decodes to the input. Seeds: tests/fuzz/seeds. */
#include "core/escape.h"
#include "fuzz.h"

struct fuzz_out {
	char *text;
	size_t len;
	FILE *f;
};

/* o writing into memory (out_close ends it; the caller frees o->text) */
static void out_open(struct fuzz_out *o)
{
	*o = (struct fuzz_out){ 0 };
	if (!(o->f = open_memstream(&o->text, &o->len)))
		abort();
}

/* o->text and o->len final */
static void out_close(struct fuzz_out *o)
{
	if (fclose(o->f))
		abort();
}

/* What w (escape_term_write, escape_json_write) writes for s with flags, in o->text. */
static void out_of(struct fuzz_out *o, void (*w)(FILE *, const char *, unsigned), const char *s, unsigned flags)
{
	out_open(o);
	w(o->f, s, flags);
	out_close(o);
}

/* hex digits at p, n of them, as a number; -1 when one is not a hex digit */
static long hex(const char *p, int n)
{
	long v = 0;

	for (int i = 0; i < n; i++) {
		int c = p[i], d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/* code point c as UTF-8 at out; its length */
static size_t utf8_put(long c, char *out)
{
	if (c < 0x80)
		return out[0] = (char)c, 1;
	if (c < 0x800)
		return out[0] = (char)(0xC0 | c >> 6), out[1] = (char)(0x80 | (c & 0x3F)), 2;
	if (c < 0x10000)
		return out[0] = (char)(0xE0 | c >> 12), out[1] = (char)(0x80 | (c >> 6 & 0x3F)),
		       out[2] = (char)(0x80 | (c & 0x3F)), 3;
	out[0] = (char)(0xF0 | c >> 18), out[1] = (char)(0x80 | (c >> 12 & 0x3F));
	out[2] = (char)(0x80 | (c >> 6 & 0x3F)), out[3] = (char)(0x80 | (c & 0x3F));
	return 4;
}

/* Every byte of t printable ASCII? */
static void check_ascii(const char *rule, const char *t, size_t len)
{
	for (size_t i = 0; i < len; i++)
		FUZZ_ASSERT((unsigned char)t[i] >= 0x20 && (unsigned char)t[i] < 0x7f, "%s: raw byte 0x%02x at %zu",
			    rule, (unsigned char)t[i], i);
}

/* The YAML rule: "..." with \" \\ \xHH \uHHHH \UHHHHHHHH only, decoding to s. */
static void check_yaml(const char *s, char *dec)
{
	struct fuzz_out o;
	size_t n = 0;
	int rc;

	out_open(&o);
	rc = escape_yaml_write(o.f, s);
	out_close(&o);
	FUZZ_ASSERT(rc == 0 || (rc == FP_EUSAGE && o.len == 0), "yaml: rc %d with %zu bytes written", rc, o.len);
	for (const char *p = s; rc && *p; p++) /* ASCII is always valid UTF-8 */
		if ((unsigned char)*p >= 0x80)
			rc = 0, n = 1;
	FUZZ_ASSERT(rc == 0, "yaml: ASCII refused");
	rc = n ? FP_EUSAGE : 0, n = 0;
	if (rc == 0) {
		check_ascii("yaml", o.text, o.len);
		FUZZ_ASSERT(o.len >= 2 && o.text[0] == '"' && o.text[o.len - 1] == '"', "yaml: not double-quoted");
		for (size_t i = 1; i + 1 < o.len; i++) {
			const char *p = o.text + i;
			int w = p[1] == 'x' ? 2 : p[1] == 'u' ? 4 : p[1] == 'U' ? 8 : 0;
			long c;

			FUZZ_ASSERT(*p != '"', "yaml: a raw quote at %zu", i);
			if (*p != '\\') {
				dec[n++] = *p;
				continue;
			}
			FUZZ_ASSERT(i + 2 < o.len, "yaml: a backslash at the end");
			if (!w) {
				FUZZ_ASSERT(p[1] == '"' || p[1] == '\\', "yaml: escape \\%c", p[1]);
				dec[n++] = p[1], i++;
				continue;
			}
			FUZZ_ASSERT(i + 1 + (size_t)w < o.len - 1 && (c = hex(p + 2, w)) >= 0, "yaml: bad \\%c", p[1]);
			n += utf8_put(c, dec + n);
			i += 1 + (size_t)w;
		}
		FUZZ_ASSERT(n == strlen(s) && !memcmp(dec, s, n), "yaml: decodes to something else");
	}
	free(o.text);
}

/* The shell rule: '...' runs joined by \' and nothing else, decoding to s. */
static void check_shell(const char *s, char *dec)
{
	struct fuzz_out o;
	size_t n = 0, i = 0;

	out_open(&o);
	escape_shell_write(o.f, s);
	out_close(&o);
	while (i < o.len) {
		FUZZ_ASSERT(o.text[i] == '\'', "shell: unquoted byte 0x%02x at %zu", (unsigned char)o.text[i], i);
		for (i++; i < o.len && o.text[i] != '\''; i++)
			dec[n++] = o.text[i];
		FUZZ_ASSERT(i < o.len, "shell: an open quote");
		if (++i < o.len) {
			FUZZ_ASSERT(o.len - i >= 3 && !memcmp(o.text + i, "\\''", 3), "shell: unquoted text at %zu", i);
			dec[n++] = '\'', i += 2;
		}
	}
	FUZZ_ASSERT(n == strlen(s) && !memcmp(dec, s, n), "shell: decodes to something else");
	free(o.text);
}

/* The terminal rule (and the comment line): printable ASCII, \xHH-decoding to s. */
static void check_term(const char *s, char *dec)
{
	struct fuzz_out o;
	size_t n = 0;

	out_of(&o, escape_term_write, s, ESCAPE_TERM_QUOTES);
	check_ascii("term", o.text, o.len);
	for (size_t i = 0; i < o.len; i++)
		if (o.text[i] == '\\') {
			long c = i + 3 < o.len && o.text[i + 1] == 'x' ? hex(o.text + i + 2, 2) : -1;

			FUZZ_ASSERT(c >= 0, "term: a backslash not \\xHH at %zu", i);
			dec[n++] = (char)c, i += 3;
		} else {
			FUZZ_ASSERT(o.text[i] != '"' && o.text[i] != '\'', "term: a raw quote");
			dec[n++] = o.text[i];
		}
	FUZZ_ASSERT(n == strlen(s) && !memcmp(dec, s, n), "term: decodes to something else");
	free(o.text);
	out_open(&o);
	emit_comment(o.f, s);
	out_close(&o);
	FUZZ_ASSERT(o.len >= 3 && !memcmp(o.text, "# ", 2) && o.text[o.len - 1] == '\n', "comment: not a comment line");
	check_ascii("comment", o.text, o.len - 1);
	free(o.text);
}

/* The length of the valid UTF-8 sequence at s (written here again, apart from the library's:
 * shortest form, no surrogate, at most U+10FFFF), 0 when the byte starts none */
static size_t utf8_ok(const unsigned char *s)
{
	size_t n = s[0] < 0x80 ? 1 : s[0] >= 0xC2 && s[0] <= 0xDF ? 2 : s[0] >= 0xE0 && s[0] <= 0xEF ? 3
		 : s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : 0;

	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 0;
	if ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0) || (s[0] == 0xF0 && s[1] < 0x90) ||
	    (s[0] == 0xF4 && s[1] >= 0x90))
		return 0;
	return n;
}

/* s with each byte that starts no valid UTF-8 sequence as U+FFFD, into out (3 x strlen(s) + 1):
 * what a JSON or Prometheus value of s must decode to (they are UTF-8 text) */
static size_t utf8_fixed(const char *s, char *out)
{
	size_t k = 0, n;

	for (const unsigned char *p = (const unsigned char *)s; *p; p += n ? n : 1)
		if ((n = utf8_ok(p))) {
			memcpy(out + k, p, n);
			k += n;
		} else {
			memcpy(out + k, "\xEF\xBF\xBD", 3);
			k += 3;
		}
	out[k] = 0;
	return k;
}

/* The JSON rule: no raw control byte, DEL, U+2028 or U+2029; \uHHHH, \" \\ \n decode to s
 * (each byte of s that is not UTF-8 as U+FFFD). */
static void check_json(const char *s, char *dec)
{
	struct fuzz_out o;
	size_t n = 0;

	out_of(&o, escape_json_write, s, ESCAPE_JSON_HTML);
	FUZZ_ASSERT(o.len >= 2 && o.text[0] == '"' && o.text[o.len - 1] == '"', "json: not a string");
	for (size_t i = 1; i + 1 < o.len; i++) {
		const unsigned char *p = (const unsigned char *)o.text + i;
		long c;

		FUZZ_ASSERT(*p >= 0x20 && *p != 0x7f && *p != '"' && *p != '<' && *p != '>' && *p != '&',
			    "json: raw byte 0x%02x at %zu", *p, i);
		FUZZ_ASSERT(!(p[0] == 0xE2 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9)), "json: raw U+2028/9");
		if (*p != '\\') {
			dec[n++] = (char)*p;
			continue;
		}
		if (p[1] == 'u') {
			FUZZ_ASSERT(i + 6 < o.len && (c = hex((const char *)p + 2, 4)) >= 0, "json: bad \\u");
			n += utf8_put(c, dec + n), i += 5;
			continue;
		}
		FUZZ_ASSERT(p[1] == '"' || p[1] == '\\' || p[1] == 'n', "json: escape \\%c", p[1]);
		dec[n++] = p[1] == 'n' ? '\n' : (char)p[1], i++;
	}
	char *want = malloc(3 * strlen(s) + 1);
	size_t wn = want ? utf8_fixed(s, want) : 0;

	FUZZ_ASSERT(want && n == wn && !memcmp(dec, want, n), "json: decodes to something else");
	free(want);
	free(o.text);
}

/* The Prometheus rule: one quoted value, no raw LF, no raw quote, \\ \" \n decode to s (each
 * byte of s that is not UTF-8 as U+FFFD: the file is UTF-8). */
static void check_prom(const char *s, char *dec)
{
	struct fuzz_out o;
	size_t n = 0;

	out_open(&o);
	escape_prom_write(o.f, s);
	out_close(&o);
	FUZZ_ASSERT(o.len >= 2 && o.text[0] == '"' && o.text[o.len - 1] == '"', "prom: not a quoted value");
	for (size_t i = 1; i + 1 < o.len; i++) {
		FUZZ_ASSERT(o.text[i] != '\n' && o.text[i] != '"', "prom: raw byte 0x%02x at %zu", (unsigned char)o.text[i], i);
		if (o.text[i] != '\\') {
			dec[n++] = o.text[i];
			continue;
		}
		FUZZ_ASSERT(i + 2 < o.len && (o.text[i + 1] == '\\' || o.text[i + 1] == '"' || o.text[i + 1] == 'n'),
			    "prom: escape at %zu", i);
		dec[n++] = o.text[i + 1] == 'n' ? '\n' : o.text[i + 1], i++;
	}
	char *want = malloc(3 * strlen(s) + 1);
	size_t wn = want ? utf8_fixed(s, want) : 0;

	FUZZ_ASSERT(want && n == wn && !memcmp(dec, want, n), "prom: decodes to something else");
	free(want);
	free(o.text);
}

/* The XML rule: printable ASCII, no raw '<' '>' '"' '\'', every '&' a whole reference;
 * without a replacement character in it, its decoding is s. */
static void check_xml(const char *s, char *dec)
{
	static const struct { const char *e; char c; } named[] = { { "&amp;", '&' }, { "&lt;", '<' }, { "&gt;", '>' },
								     { "&quot;", '"' }, { "&apos;", '\'' } };
	struct fuzz_out o;
	size_t n = 0;
	int replaced = 0;

	out_open(&o);
	escape_xml_write(o.f, s);
	out_close(&o);
	check_ascii("xml", o.text, o.len);
	for (size_t i = 0; i < o.len; i++) {
		char c = o.text[i];
		size_t k;

		FUZZ_ASSERT(c != '<' && c != '>' && c != '"' && c != '\'', "xml: raw '%c' at %zu", c, i);
		if (c != '&') {
			if (!replaced)
				dec[n++] = c;
			continue;
		}
		for (k = 0; k < 5 && strncmp(o.text + i, named[k].e, strlen(named[k].e)); k++)
			;
		if (k < 5) {
			if (!replaced)
				dec[n++] = named[k].c;
			i += strlen(named[k].e) - 1;
			continue;
		}
		FUZZ_ASSERT(o.text[i + 1] == '#', "xml: '&' not a reference at %zu", i);
		int x = o.text[i + 2] == 'x';
		char *end;
		long cp = strtol(o.text + i + 2 + x, &end, x ? 16 : 10);

		FUZZ_ASSERT(*end == ';' && end > o.text + i + 2 + x, "xml: bad reference at %zu", i);
		i = (size_t)(end - o.text);
		if (cp == 0xFFFD) /* what it replaced may have been shorter: no decoding to compare */
			replaced = 1;
		else if (!replaced)
			n += utf8_put(cp, dec + n);
	}
	FUZZ_ASSERT(replaced || (n == strlen(s) && !memcmp(dec, s, n)), "xml: decodes to something else");
	free(o.text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), *dec = malloc(3 * size + 1); /* U+FFFD: 3 bytes for 1 */

	if (!s || !dec)
		abort();
	memcpy(s, data, size);
	s[size] = 0;
	for (char *p = s; p <= s + size; p += strlen(p) + 1) { /* each NUL-free string */
		check_yaml(p, dec);
		check_shell(p, dec);
		check_term(p, dec);
		check_json(p, dec);
		check_prom(p, dec);
		check_xml(p, dec);
	}
	free(s);
	free(dec);
	return 0;
}
