/* escape.h — one escaping rule per output language, for text that comes from data (host
 * names, paths, run ids) and every writer of that language: the terminal and the comments
 * of generated files (ASCII only), YAML scalars (always double-quoted), shell words (single-
 * quoted), JSON strings, XML text and Prometheus label values. Pure: no state, nothing but the FILE * or buffer given. */
#ifndef FP_ESCAPE_H
#define FP_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* text (len bytes, NUL-terminated) += sep (unless text is empty) and fmt's expansion, its end
 * "..." where it does not fit: the one rule for a line that grows clause by clause. */
void text_add(char *text, size_t len, const char *sep, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* escape_term's flags: also escape '"', '\'' (for a name shown between quotes). */
#define ESCAPE_TERM_QUOTES 1u

/* The terminal rule: s with every byte below 0x20, 0x7f (DEL), every byte from 0x80 (non-
 * ASCII: C1 controls such as the 8-bit CSI, U+2028 and U+0085 line breaks) and '\\' written
 * as \xHH, and with ESCAPE_TERM_QUOTES the quotes too; into out (len bytes, NUL-terminated,
 * "..." where s was cut). Nothing it writes can move the cursor, change the terminal's state
 * or start a line. */
void escape_term(const char *s, char *out, size_t len, unsigned flags);
/* escape_term's rule, the whole of s, to f (comment lines of generated files, messages). */
void escape_term_write(FILE *f, const char *s, unsigned flags);
/* One line for a person: fmt's expansion (at most 4 KiB, "..." where cut) under the terminal
 * rule (flags 0: quotes kept), then LF. For any line that holds text from files or options:
 * a host name, a path, a message that quotes them. fmt itself holds no LF. */
void escape_term_line(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The YAML rule: s as one double-quoted scalar (YAML 1.1 and 1.2), so that no loader types
 * it (123, yes, on, null, ~, 1e3, 0x1f, 2024-01-01, ... stay strings) and no character has
 * YAML meaning: '"' and '\\' as \" and \\, bytes below 0x20 and 0x7f as \xHH, every non-
 * ASCII character as \uXXXX or \UXXXXXXXX (so the output is ASCII: U+2028 and U+0085 cannot
 * break a line). 0, or FP_EUSAGE with nothing written when s is not valid UTF-8 (a YAML
 * stream is Unicode: such bytes cannot be written). Fixed keys are written by the caller. */
int escape_yaml_write(FILE *f, const char *s);

/* The shell rule: s as one single-quoted POSIX sh word ('it'\''s'): no character in it is
 * special, so it can never become a second word or a second command. */
void escape_shell_write(FILE *f, const char *s);

/* escape_json_write's flags: also escape '<', '>', '&' (a string inside an HTML <script>). */
#define ESCAPE_JSON_HTML 1u

/* The JSON rule: s as a JSON string: '"' and '\\' as \" and \\, LF as \n, other bytes below
 * 0x20 and 0x7f as \u00XX, U+2028 and U+2029 as \u2028 and \u2029 (JavaScript's line ends),
 * other UTF-8 as it is, and each byte that is not UTF-8 as \ufffd (the replacement character:
 * the output is always valid UTF-8 JSON). s NULL writes "". */
void escape_json_write(FILE *f, const char *s, unsigned flags);

/* The XML rule (attribute values and text, XML 1.0): '&' '<' '>' '"' '\'' as entities, tab,
 * LF and CR as character references (an attribute keeps them), every other non-ASCII code
 * point as &#xH...; (the output is ASCII), and what XML 1.0 cannot hold at all (other control
 * bytes, U+FFFE, U+FFFF, bytes that are not UTF-8) as &#xFFFD;, the replacement character. */
void escape_xml_write(FILE *f, const char *s);

/* The Prometheus rule (the text exposition format node_exporter's textfile collector reads):
 * s as one double-quoted label value, '\\' and '"' as \\ and \", LF as \n, other UTF-8 as it
 * is, and each byte that is not UTF-8 as U+FFFD (a label value is UTF-8 text: one invalid byte
 * makes node_exporter drop the whole file). */
void escape_prom_write(FILE *f, const char *s);

/* The terminal's streams: a stream writing to fd (1 or 2) under the terminal rule for streams:
 * text as it is, LF and tab kept, valid UTF-8 kept but C1 controls (U+0080-U+009F) and U+2028,
 * U+2029, and every other control byte, DEL and byte that is not UTF-8 written as \xHH (a
 * character cut between two writes is held until the next). main() puts stdout and stderr
 * behind it, so that no name from sysfs, a file or the command line can reach the terminal
 * as a control sequence, whichever message prints it. mode: _IONBF, _IOLBF or _IOFBF. The
 * stream's state lives in *t, the caller's (it outlives the stream: main's statics). NULL when
 * out of memory. */
struct escape_term_state {
	int fd;
	unsigned char pend[4]; /* a UTF-8 sequence not yet complete (a write may cut one) */
	size_t npend;
};
FILE *escape_term_stream(struct escape_term_state *t, int fd, int mode);

#endif
