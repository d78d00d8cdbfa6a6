/* hostlist.c — see hostlist.h. */
#include "hostlist.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

struct hl_name {
	const char *s;
	size_t plen;         /* prefix length */
	unsigned long long v;
	int digits;          /* length of the trailing digit string, 0 when none */
};

static int cmp_hl(const void *pa, const void *pb)
{
	const struct hl_name *a = pa, *b = pb;
	size_t m = a->plen < b->plen ? a->plen : b->plen;
	int c = strncmp(a->s, b->s, m);

	if (c)
		return c;
	if (a->plen != b->plen)
		return a->plen < b->plen ? -1 : 1;
	if (!a->digits || !b->digits)
		return a->digits - b->digits;
	return a->v < b->v ? -1 : a->v > b->v ? 1 : a->digits - b->digits;
}

/* the width a range starting at x is printed with: its own length when zero-padded */
static int width_of(const struct hl_name *x)
{
	return x->digits > 1 && x->s[x->plen] == '0' ? x->digits : 1;
}

/* y is printed the same with width w: "%0*llu" gives back its digits exactly */
static int fits(const struct hl_name *y, int w)
{
	int len = snprintf(NULL, 0, "%0*llu", w, y->v);

	return len == y->digits;
}

struct buf {
	char *p;
	size_t len, cap;
};

static int put(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int put(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n < 0)
			return -1;
		if ((size_t)n < b->cap - b->len)
			break;
		char *q = realloc(b->p, b->cap * 2 + (size_t)n);
		if (!q)
			return -1;
		b->p = q;
		b->cap = b->cap * 2 + (size_t)n;
	}
	b->len += (size_t)n;
	return 0;
}

int hostlist_compress(const char *const *names, int n, char **out, char *err, size_t errlen)
{
	struct hl_name *h = calloc((size_t)n + 1, sizeof *h);
	struct buf b = { malloc(256), 0, 256 };
	int rc = FP_ERUNTIME;

	if (!h || !b.p)
		goto out;
	b.p[0] = 0;
	for (int i = 0; i < n; i++) {
		const char *s = names[i];
		size_t len = strlen(s), p = len;

		if (!len || strpbrk(s, ",[] \t\n\r")) {
			snprintf(err, errlen, "host name '%.200s' cannot be written in a hostlist", s);
			rc = FP_EUSAGE;
			goto out;
		}
		while (p > 0 && isdigit((unsigned char)s[p - 1]))
			p--;
		if (len - p > 18) /* beyond unsigned long long: keep it literal */
			p = len;
		h[i] = (struct hl_name){ s, p, p < len ? strtoull(s + p, NULL, 10) : 0, (int)(len - p) };
	}
	qsort(h, (size_t)n, sizeof *h, cmp_hl);
	for (int i = 0; i < n;) {
		int j = i + 1;

		if (b.len && put(&b, ","))
			goto out;
		if (!h[i].digits) {
			if (put(&b, "%s", h[i].s))
				goto out;
			while (j < n && !strcmp(h[j].s, h[i].s)) /* duplicates once */
				j++;
			i = j;
			continue;
		}
		/* a bracket: the names after i with the same prefix that print the same at i's
		 * width ("10" joins "09"; "010" does not join "9"), in ranges */
		int w = width_of(&h[i]), count = 0;
		if (put(&b, "%.*s", (int)h[i].plen, h[i].s))
			goto out;
		size_t open = b.len;
		if (put(&b, "["))
			goto out;
		for (j = i; j < n && h[j].plen == h[i].plen && !strncmp(h[j].s, h[i].s, h[i].plen) &&
			    h[j].digits && fits(&h[j], w);) {
			int k = j;

			while (k + 1 < n && h[k + 1].plen == h[j].plen && !strncmp(h[k + 1].s, h[j].s, h[j].plen) &&
			       h[k + 1].digits && fits(&h[k + 1], w) &&
			       h[k + 1].v <= h[k].v + 1)
				k++;
			if (put(&b, "%s%0*llu", count ? "," : "", w, h[j].v))
				goto out;
			if (h[k].v != h[j].v && put(&b, "-%0*llu", w, h[k].v))
				goto out;
			count += 1 + (h[k].v != h[j].v);
			j = k + 1;
		}
		if (count == 1) { /* a single name needs no brackets */
			memmove(b.p + open, b.p + open + 1, b.len - open);
			b.len--;
		} else if (put(&b, "]"))
			goto out;
		i = j;
	}
	*out = b.p;
	b.p = NULL;
	rc = 0;
out:
	if (rc == FP_ERUNTIME)
		snprintf(err, errlen, "out of memory");
	free(h);
	free(b.p);
	return rc;
}
