/* html.h — writing text that came from files into HTML safely, and numbers for people.
 * Every string that did not come from this program goes through html_text (element text and
 * attribute values alike) or, inside a <script>, the one JSON writer with ESCAPE_JSON_HTML
 * (rpt_names_json): a host name can hold anything. */
#ifndef FP_HTML_H
#define FP_HTML_H

#include <stddef.h>
#include <stdio.h>

/* s escaped for element text and quoted attribute values: & < > " ' become entities; control
 * characters other than tab and newline become U+FFFD. */
void html_text(FILE *f, const char *s);
/* The same, at most max bytes of s (cut at a character boundary, "…" added when cut). */
void html_text_max(FILE *f, const char *s, size_t max);
/* printf-style, then html_text of the result (at most 4 KiB). */
void html_textf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A number with 3 significant digits ("0.594", "61.8", "1230"); "–" for NaN. */
void html_num(char *out, size_t len, double v);
/* A round number for an axis tick: "0.5", "2", "20", "1000". */
void html_tick(char *out, size_t len, double v);
/* A size in bytes the way the CLI takes it: "8 B", "64 KiB", "4 MiB", "1.5 GiB". */
void html_bytes(char *out, size_t len, double bytes);
/* 1 when s is a plain decimal number (right-aligned in tables). */
int html_is_number(const char *s);

#endif
