/* escape.c — see escape.h. */
#include "escape.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

void text_add(char *text, size_t len, const char *sep, const char *fmt, ...)
{
	size_t k = strlen(text);
	va_list ap;

	if (k && k + 1 < len)
		k += (size_t)snprintf(text + k, len - k, "%s", sep);
	k = k < len ? k : len - 1;
	va_start(ap, fmt);
	if (k + 1 < len && vsnprintf(text + k, len - k, fmt, ap) >= (int)(len - k) && len > 4)
		memcpy(text + len - 4, "...", 4);
	va_end(ap);
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
	while (*p) {
		uint32_t c;
		size_t n = utf8_decode(p, &c);

		if (!n) { /* not UTF-8: one byte replaced, so the document stays valid JSON */
			fputs("\\ufffd", f);
			p++;
			continue;
		}
		if (c == 0x2028 || c == 0x2029) /* JavaScript's line ends */
			fprintf(f, "\\u%04x", (unsigned)c);
		else if (c == '"' || c == '\\')
			fprintf(f, "\\%c", (char)c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c < 0x20 || c == 0x7f || ((flags & ESCAPE_JSON_HTML) && (c == '<' || c == '>' || c == '&')))
			fprintf(f, "\\u%04x", (unsigned)c);
		else
			fwrite(p, 1, n, f);
		p += n;
	}
	fputc('"', f);
}

void escape_prom_write(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	fputc('"', f);
	while (*p) {
		uint32_t c;
		size_t n = utf8_decode(p, &c);

		if (!n) { /* not UTF-8: one byte replaced (node_exporter drops a file that is not) */
			fputs("\xef\xbf\xbd", f);
			p++;
			continue;
		}
		if (c == '\\' || c == '"')
			fprintf(f, "\\%c", (char)c);
		else if (c == '\n')
			fputs("\\n", f);
		else
			fwrite(p, 1, n, f);
		p += n;
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

/* ---------------------------------------------------------------- the terminal's streams */

static int put_all(int fd, const char *b, size_t n)
{
	while (n) {
		ssize_t w = write(fd, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		b += w, n -= (size_t)w;
	}
	return 0;
}

/* one complete character or stray byte p[0..n-1] into o under the stream rule */
static size_t tf_char(const unsigned char *p, size_t n, char *o)
{
	uint32_t c = 0;
	size_t k = 0;

	if (n == 1 && p[0] < 0x80) {
		if ((p[0] < 0x20 && p[0] != '\n' && p[0] != '\t') || p[0] == 0x7f)
			return (size_t)sprintf(o, "\\x%02x", p[0]);
		o[0] = (char)p[0];
		return 1;
	}
	if (utf8_decode(p, &c) == n && !(c >= 0x80 && c < 0xA0) && c != 0x2028 && c != 0x2029) {
		memcpy(o, p, n);
		return n;
	}
	for (size_t i = 0; i < n; i++) /* not UTF-8, a C1 control, a line separator: shown as bytes */
		k += (size_t)sprintf(o + k, "\\x%02x", p[i]);
	return k;
}

static ssize_t tf_write(void *cookie, const char *buf, size_t size)
{
	struct escape_term_state *t = cookie;
	char out[4096 + 64];
	size_t k = 0;

	for (size_t i = 0; i < size; i++) {
		unsigned char b = (unsigned char)buf[i];

		if (t->npend && (b & 0xC0) != 0x80) { /* a sequence cut short: its bytes shown, b afresh */
			for (size_t j = 0; j < t->npend; j++)
				k += tf_char(&t->pend[j], 1, out + k);
			t->npend = 0;
		}
		if (t->npend || (b >= 0xC0 && b < 0xF8)) {
			size_t need = (t->npend ? t->pend[0] : b) >= 0xF0 ? 4 : (t->npend ? t->pend[0] : b) >= 0xE0 ? 3 : 2;

			t->pend[t->npend++] = b;
			if (t->npend == need) {
				k += tf_char(t->pend, t->npend, out + k);
				t->npend = 0;
			}
		} else {
			k += tf_char(&b, 1, out + k);
		}
		if (k >= 4096) {
			if (put_all(t->fd, out, k))
				return -1;
			k = 0;
		}
	}
	return k && put_all(t->fd, out, k) ? -1 : (ssize_t)size;
}

static int tf_close(void *cookie)
{
	struct escape_term_state *t = cookie;
	char out[64];
	size_t k = 0;

	for (size_t j = 0; j < t->npend; j++)
		k += tf_char(&t->pend[j], 1, out + k);
	t->npend = 0;
	return k ? put_all(t->fd, out, k) : 0;
}

FILE *escape_term_stream(struct escape_term_state *t, int fd, int mode)
{
	cookie_io_functions_t io = { .write = tf_write, .close = tf_close };
	FILE *f;

	*t = (struct escape_term_state){ .fd = fd };
	if (!(f = fopencookie(t, "w", io)))
		return NULL;
	setvbuf(f, NULL, mode, mode == _IONBF ? 0 : BUFSIZ);
	return f;
}
