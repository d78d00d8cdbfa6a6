/* escape.c — see escape.h. */
#include "escape.h"

#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "log.h"

/* May byte c be written as itself under the terminal rule? */
static int term_byte_ok(unsigned char c, unsigned flags)
{
	if (c < 0x20 || c >= 0x7f || c == '\\')
		return 0;
	return !((flags & ESCAPE_TERM_QUOTES) && (c == '"' || c == '\''));
}

void escape_term(const char *s, char *out, size_t len, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t o = 0;

	if (!len)
		return;
	for (; *p && o + 8 < len; p++) /* room for "\xHH" and "..." */
		if (term_byte_ok(*p, flags))
			out[o++] = (char)*p;
		else
			o += (size_t)snprintf(out + o, len - o, "\\x%02x", *p);
	snprintf(out + o, len - o, "%s", *p ? "..." : "");
}

void escape_term_write(FILE *f, const char *s, unsigned flags)
{
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++)
		if (term_byte_ok(*p, flags))
			fputc(*p, f);
		else
			fprintf(f, "\\x%02x", *p);
}

void escape_term_line(FILE *f, const char *fmt, ...)
{
	char line[4096], shown[4 * sizeof line + 8];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof line)
		memcpy(line + sizeof line - 4, "...", 4);
	escape_term(line, shown, sizeof shown, 0);
	fprintf(f, "%s\n", shown); /* one write on unbuffered stderr: ranks' lines do not mix */
}

/* The code point of the UTF-8 sequence at p in *cp, and its length; 0 when it is not valid
 * UTF-8 (a stray or missing continuation byte, an overlong form, a surrogate, above U+10FFFF). */
static size_t utf8_decode(const unsigned char *p, uint32_t *cp)
{
	static const uint32_t min[] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t n = p[0] < 0x80 ? 1 : (p[0] & 0xE0) == 0xC0 ? 2 : (p[0] & 0xF0) == 0xE0 ? 3
		 : (p[0] & 0xF8) == 0xF0 ? 4 : 0;
	uint32_t c;

	if (!n)
		return 0;
	c = n == 1 ? p[0] : (uint32_t)(p[0] & (0x7F >> n));
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3F);
	}
	if (c < min[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		return 0;
	*cp = c;
	return n;
}

int escape_yaml_write(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	uint32_t c;
	size_t n;

	for (const unsigned char *q = p; *q; q += n)
		if (!(n = utf8_decode(q, &c)))
			return FP_EUSAGE;
	fputc('"', f);
	for (; *p; p += n) {
		n = utf8_decode(p, &c);
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", (char)c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", (unsigned)c);
		else if (c < 0x7f)
			fputc((int)c, f);
		else if (c <= 0xFFFF)
			fprintf(f, "\\u%04x", (unsigned)c);
		else
			fprintf(f, "\\U%08x", (unsigned)c);
	}
	fputc('"', f);
	return 0;
}

void escape_shell_write(FILE *f, const char *s)
{
	fputc('\'', f);
	for (const char *p = s ? s : ""; *p; p++)
		if (*p == '\'')
			fputs("'\\''", f); /* end the quote, a quoted quote, quote again */
		else
			fputc(*p, f);
	fputc('\'', f);
}

void escape_json_write(FILE *f, const char *s, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	fputc('"', f);
	for (; *p; p++) {
		int html = (flags & ESCAPE_JSON_HTML) && (*p == '<' || *p == '>' || *p == '&');

		if (*p == 0xE2 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9)) {
			fprintf(f, "\\u%04x", p[2] == 0xA8 ? 0x2028 : 0x2029);
			p += 2;
		} else if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p < 0x20 || *p == 0x7f || html)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

void escape_prom_write(FILE *f, const char *s)
{
	fputc('"', f);
	for (const char *p = s ? s : ""; *p; p++) {
		if (*p == '\\' || *p == '"')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

void escape_xml_write(FILE *f, const char *s)
{
	static const char *const ent[128] = { ['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;", ['"'] = "&quot;",
					      ['\''] = "&apos;", ['\t'] = "&#9;", ['\n'] = "&#10;", ['\r'] = "&#13;" };
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	while (*p) {
		uint32_t c;
		size_t n = utf8_decode(p, &c);

		if (!n) { /* not UTF-8: one byte replaced */
			fputs("&#xFFFD;", f);
			p++;
			continue;
		}
		p += n;
		if (c < 128 && ent[c])
			fputs(ent[c], f);
		else if (c < 0x20 || c == 0x7f || c == 0xFFFE || c == 0xFFFF)
			fputs("&#xFFFD;", f);
		else if (c < 0x7f)
			fputc((int)c, f);
		else
			fprintf(f, "&#x%X;", (unsigned)c);
	}
}
