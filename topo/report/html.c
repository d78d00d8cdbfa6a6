/* html.c — see html.h. */
#include "html.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/escape.h"

/* Length of the UTF-8 sequence at p (1 for a stray byte: shown as the browser decodes it). */
static size_t utf8_len(const unsigned char *p)
{
	size_t n = *p >= 0xF0 ? 4 : *p >= 0xE0 ? 3 : *p >= 0xC0 ? 2 : 1;

	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xC0) != 0x80)
			return 1;
	return n;
}

static void text_n(FILE *f, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t used = 0;

	while (*p) {
		size_t k = utf8_len(p);

		if (used + k > max) {
			fputs("…", f);
			return;
		}
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			if ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7F)
				fputs("\xEF\xBF\xBD", f);
			else
				fwrite(p, 1, k, f);
		}
		used += k;
		p += k;
	}
}

void html_text(FILE *f, const char *s)
{
	text_n(f, s ? s : "", (size_t)-1);
}

void html_text_max(FILE *f, const char *s, size_t max)
{
	text_n(f, s ? s : "", max);
}

void html_textf(FILE *f, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	html_text(f, buf);
}

void html_num(char *out, size_t len, double v)
{
	double a = fabs(v);

	if (!isfinite(v))
		snprintf(out, len, "–");
	else if (a >= 1000 || a == 0)
		snprintf(out, len, "%.0f", v);
	else
		snprintf(out, len, "%.*f", a >= 100 ? 1 : a >= 10 ? 2 : a >= 1 ? 2 : a >= 0.1 ? 3 : 4, v);
}

void html_tick(char *out, size_t len, double v)
{
	if (fabs(v) >= 1000)
		snprintf(out, len, "%.0f", v);
	else
		snprintf(out, len, "%.3g", v);
}

void html_bytes(char *out, size_t len, double b)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	while (b >= 1024 && u < 4) {
		b /= 1024;
		u++;
	}
	if (b == floor(b))
		snprintf(out, len, "%.0f %s", b, unit[u]);
	else
		snprintf(out, len, "%.3g %s", b, unit[u]);
}

int html_is_number(const char *s)
{
	char *end;

	if (!*s)
		return 0;
	strtod(s, &end);
	return !*end && strspn(s, "0123456789.-+eE") == strlen(s);
}
