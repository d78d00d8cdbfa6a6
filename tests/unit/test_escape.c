/* The escaping rules of core/escape.h on hostile input: U+2028, ESC[2J, quotes, backslashes,
 * newlines, binary bytes, words YAML would type; and the emitters that use them. */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "core/escape.h"
#include "core/log.h"
#include "fabric/emit/emit.h"
#include "fabric/judge/compare_out.h"
#include "fabric/judge/declared.h"

static char buf[4096];

/* What fn wrote for s, NUL-terminated in buf. */
static const char *out(void (*fn)(FILE *, const char *), const char *s)
{
	FILE *f = fmemopen(buf, sizeof buf, "w");

	fn(f, s);
	fclose(f);
	return buf;
}

static void yaml(FILE *f, const char *s) { CHECK_EQ(escape_yaml_write(f, s), 0); }
static void shell(FILE *f, const char *s) { escape_shell_write(f, s); }
static void json(FILE *f, const char *s) { escape_json_write(f, s, 0); }
static void prom(FILE *f, const char *s) { escape_prom_write(f, s); }
static void comment(FILE *f, const char *s) { emit_comment(f, s); }

static void test_term(void)
{
	char o[64];

	escape_term("a\x1b[2Jb\r\n\\\"'\x7f", o, sizeof o, ESCAPE_TERM_QUOTES);
	CHECK_STR(o, "a\\x1b[2Jb\\x0d\\x0a\\x5c\\x22\\x27\\x7f");
	escape_term("p\xE2\x80\xA8q\xC2\x85\x9b", o, sizeof o, 0); /* U+2028, NEL, 8-bit CSI */
	CHECK_STR(o, "p\\xe2\\x80\\xa8q\\xc2\\x85\\x9b");
	escape_term("it's \"x\"", o, sizeof o, 0); /* messages keep their quotes */
	CHECK_STR(o, "it's \"x\"");
	escape_term("\x1b\x1b\x1b\x1b\x1b\x1b", o, 16, 0); /* cut: never half an escape */
	CHECK_STR(o, "\\x1b\\x1b...");
	escape_term(NULL, o, sizeof o, 0);
	CHECK_STR(o, "");
	CHECK_STR(out(comment, "in\xE2\x80\xA8kind: Namespace\n---"), "# in\\xe2\\x80\\xa8kind: Namespace\\x0a---\n");
}

static void test_yaml(void)
{
	static const char *const typed[] = { "123", "yes", "on", "off", "no", "y", "n", "true", "null", "~",
					     "1.5", "1e3", "0x1f", "007", "0o17", ".inf", ".nan", "2024-01-01",
					     "1_000", "+1", "-1", "1:20", "", "- a", "a: b", "#x", "[1]", "&a", "*a",
					     "!t", "|", ">", "%x", "@x", "`x" };
	FILE *f = fmemopen(buf, sizeof buf, "w");

	for (size_t i = 0; i < sizeof typed / sizeof typed[0]; i++) {
		char want[64];

		snprintf(want, sizeof want, "\"%s\"", typed[i]);
		CHECK_STR(out(yaml, typed[i]), want);
	}
	CHECK_STR(out(yaml, "a\"b\\c\n\t\x1b\x7f"), "\"a\\\"b\\\\c\\x0a\\x09\\x1b\\x7f\"");
	CHECK_STR(out(yaml, "x\xE2\x80\xA8y\xC2\x85\xE2\x80\xA9\xF0\x9F\x98\x80"), "\"x\\u2028y\\u0085\\u2029\\U0001f600\"");
	CHECK_EQ(escape_yaml_write(f, "bad\xff"), FP_EUSAGE);         /* not UTF-8 */
	CHECK_EQ(escape_yaml_write(f, "\xC0\xAF"), FP_EUSAGE);        /* overlong '/' */
	CHECK_EQ(escape_yaml_write(f, "\xED\xA0\x80"), FP_EUSAGE);    /* a surrogate */
	CHECK_EQ(escape_yaml_write(f, "\xE2\x80"), FP_EUSAGE);        /* cut short */
	CHECK_EQ(ftell(f), 0);                                         /* and nothing written */
	fclose(f);
}

static void test_shell(void)
{
	CHECK_STR(out(shell, "n1"), "'n1'");
	CHECK_STR(out(shell, "a'b"), "'a'\\''b'");
	CHECK_STR(out(shell, "$(rm -rf /);x`y`\\ \"\n*"), "'$(rm -rf /);x`y`\\ \"\n*'");
	CHECK_STR(out(shell, ""), "''");
}

static void test_json(void)
{
	FILE *f = fmemopen(buf, sizeof buf, "w");

	CHECK_STR(out(json, "a\"b\\c\n\x01\x7f\xE2\x80\xA8\xE2\x80\xA9</x>&\xC3\xA9"),
		  "\"a\\\"b\\\\c\\n\\u0001\\u007f\\u2028\\u2029</x>&\xC3\xA9\"");
	escape_json_write(f, "</script>&", ESCAPE_JSON_HTML);
	fclose(f);
	CHECK_STR(buf, "\"\\u003c/script\\u003e\\u0026\"");
	CHECK_STR(out(json, NULL), "\"\"");
	/* bytes that are not UTF-8 (Latin-1, a stray continuation, an overlong '/', a surrogate, a
	 * sequence cut at the end): each as U+FFFD, the document valid UTF-8 JSON */
	CHECK_STR(out(json, "caf\xE9 \x80 \xC0\xAF \xED\xA0\x80 \xE2\x82"),
		  "\"caf\\ufffd \\ufffd \\ufffd\\ufffd \\ufffd\\ufffd\\ufffd \\ufffd\\ufffd\"");
	CHECK_STR(out(json, "\xF0\x9F\x98\x80"), "\"\xF0\x9F\x98\x80\"");
}

/* Prometheus label values: \\ \" \n escaped, UTF-8 kept, other bytes U+FFFD (node_exporter
 * drops a whole file that is not UTF-8) */
static void test_prom(void)
{
	CHECK_STR(out(prom, "a\\b\"c\nd\xC3\xA9"), "\"a\\\\b\\\"c\\nd\xC3\xA9\"");
	CHECK_STR(out(prom, "n\xE9\xFF"), "\"n\xEF\xBF\xBD\xEF\xBF\xBD\"");
	CHECK_STR(out(prom, NULL), "\"\"");
}

/* The terminal's streams (stdout and stderr behind escape_term_stream): control bytes, C1
 * controls, line separators and bytes that are not UTF-8 as \xHH; LF, tab and UTF-8 kept, also
 * when a character is cut between two writes */
static void test_term_stream(void)
{
	struct escape_term_state st;
	int p[2];
	FILE *f;
	ssize_t n;

	CHECK(pipe(p) == 0);
	f = escape_term_stream(&st, p[1], _IONBF);
	CHECK(f != NULL);
	if (!f)
		return;
	fputs("a\x1b[2J\tb\r\x7f\n", f);
	fputs("\xC2\x9B \xE2\x80\xA8 \xFF \xC3", f); /* C1 CSI, U+2028, a stray byte, half an é */
	fputs("\xA9 \xE2\x82 x\xC2\xB5s\n", f);     /* the é's end; a cut sequence, then ASCII */
	fclose(f);
	close(p[1]);
	n = read(p[0], buf, sizeof buf - 1);
	close(p[0]);
	buf[n > 0 ? n : 0] = 0;
	CHECK_STR(buf, "a\\x1b[2J\tb\\x0d\\x7f\n\\xc2\\x9b \\xe2\\x80\\xa8 \\xff \xC3\xA9 \\xe2\\x82 x\xC2\xB5s\n");
}

/* The emitters: YAML-typed host names come out double-quoted, kubectl words single-quoted. */
static void test_emitters_quote(void)
{
	static const char *hosts[] = { "yes", "007", "1e3", "null" };
	static int group[4] = { 0, 0, 1, 1 }, order[4] = { 0, 1, 2, 3 };
	struct infer_result r = { .n = 4, .ntiers = 1, .group = group, .order = order, .ngroups = { 2 } };
	struct emit_topo t = { .n = 4, .hosts = hosts, .tree = &r, .slots = 1, .label_prefix = "fp",
			       .how = "m\xE2\x80\xA8kind: Namespace" };
	char err[EMIT_ERR_MAX];
	FILE *f = fmemopen(buf, sizeof buf, "w");

	CHECK_EQ(emit_k8s_nodes(f, &t, err), 0);
	fclose(f);
	CHECK_HAS(buf, "# m\\xe2\\x80\\xa8kind: Namespace\n");
	CHECK_HAS(buf, "  name: \"007\"\n  labels:\n    \"fp/tier-0\": \"leaf00\"\n");
	CHECK(!strstr(buf, "name: yes"));
	f = fmemopen(buf, sizeof buf, "w");
	CHECK_EQ(emit_k8s_label_cmds(f, &t, err), 0);
	fclose(f);
	CHECK_HAS(buf, "kubectl label node 'null' 'fp/tier-0=leaf01' --overwrite\n");
	f = fmemopen(buf, sizeof buf, "w");
	CHECK_EQ(emit_volcano(f, &t, err), 0);
	fclose(f);
	CHECK_HAS(buf, "        name: \"1e3\"\n");
	CHECK_HAS(buf, "  name: \"leaf00\"\n");
}

/* No raw ESC, CR or non-ASCII byte in s */
static int term_clean(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if ((*p < 0x20 && *p != '\n') || *p >= 0x7f)
			return 0;
	return 1;
}

/* What reaches the terminal: compare's summary and the declared judge's read errors. */
static void test_terminal_writers(void)
{
	static const char evil[] = "n\x1b[2J\x1b]0;pwned\x07\r\xE2\x80\xA8x";
	struct cmp_map_row row = { .tier = 0, .tier_name = "leaf", .host = evil, .before = "leaf00",
				   .after = "leaf01", .after_as = "", .change = CMP_MAP_MOVED };
	struct cmp_report rep;
	struct decl d;
	char err[DECL_ERR_MAX], path[] = "/tmp/fp-esc-XXXXXX";
	int fd = mkstemp(path);
	FILE *f;

	CHECK_STR(out(comment, ""), "# \n");
	f = fmemopen(buf, sizeof buf, "w");
	escape_term_line(f, "host %s: '%s'", evil, "q\"");
	fclose(f);
	CHECK_STR(buf, "host n\\x1b[2J\\x1b]0;pwned\\x07\\x0d\\xe2\\x80\\xa8x: 'q\"'\n");
	cmp_report_init(&rep, NULL, NULL);
	cmp_report_map(&rep, &row);
	f = fmemopen(buf, sizeof buf, "w");
	cmp_report_print(f, &rep, NULL, "base\x1b[H", "new");
	fclose(f);
	cmp_report_free(&rep);
	CHECK(term_clean(buf));
	CHECK_HAS(buf, "n\\x1b[2J");
	CHECK_HAS(buf, "BASE base\\x1b[H\n");
	f = fdopen(fd, "w");
	fprintf(f, "SwitchName=s1 Nodes=%s\nSwitchName=s2 Nodes=%s\n", evil, evil);
	fclose(f);
	CHECK_EQ(decl_read(path, &d, err), FP_EUSAGE);
	unlink(path);
	f = fmemopen(buf, sizeof buf, "w"); /* printed as the command layer prints it: escaped once */
	escape_term_line(f, "fabprobe topo: --declared: %s", err);
	fclose(f);
	CHECK(term_clean(buf));
	CHECK_HAS(buf, "n\\x1b[2J");
	CHECK(!strstr(buf, "\\x5c")); /* not twice: a backslash escaped is an escape escaped */
}

int main(void)
{
	RUN(test_term);
	RUN(test_yaml);
	RUN(test_prom);
	RUN(test_term_stream);
	RUN(test_shell);
	RUN(test_json);
	RUN(test_emitters_quote);
	RUN(test_terminal_writers);
	CHECK_EXIT();
}
