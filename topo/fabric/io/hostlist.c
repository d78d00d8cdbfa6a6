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

/* ---------------------------------------------------------------- expansion */

struct names {
	char **v;
	int n, cap;
	int max;      /* at most this many */
};

/* Append the name a followed by the blen bytes of b. */
static int names_add(struct names *s, const char *a, const char *b, size_t blen)
{
	size_t alen = strlen(a);
	char *x;

	if (s->n == s->cap) {
		char **q = realloc(s->v, sizeof *q * (size_t)(s->cap = s->cap * 2 + 16));

		if (!q)
			return FP_ERUNTIME;
		s->v = q;
	}
	if (!(x = malloc(alen + blen + 1)))
		return FP_ERUNTIME;
	memcpy(x, a, alen);
	memcpy(x + alen, b, blen);
	x[alen + blen] = 0;
	s->v[s->n++] = x;
	return 0;
}

/* One range "lo" or "lo-hi" of a bracket into lo, hi and the print width. */
static int range_parse(const char *s, size_t len, unsigned long long *lo, unsigned long long *hi, int *w)
{
	const char *dash = memchr(s, '-', len);
	size_t l1 = dash ? (size_t)(dash - s) : len, l2 = dash ? len - l1 - 1 : 0;

	if (!l1 || l1 > 18 || (dash && (!l2 || l2 > 18)))
		return -1;
	for (size_t i = 0; i < len; i++)
		if (!isdigit((unsigned char)s[i]) && s + i != dash)
			return -1;
	*lo = strtoull(s, NULL, 10);
	*hi = dash ? strtoull(dash + 1, NULL, 10) : *lo;
	*w = (int)l1;
	return *lo <= *hi ? 0 : -1;
}

/* Expand one name term (no top-level comma) of length len, appending to s with prefix pre. */
static int expand_term(const char *t, size_t len, const char *pre, struct names *s, char *err, size_t errlen)
{
	const char *open = memchr(t, '[', len), *close;
	char *head;
	int rc = 0;

	if (!open) {
		if (memchr(t, ']', len))
			goto bad;
		if (s->n >= s->max) {
			snprintf(err, errlen, "hostlist: more than %d names", s->max);
			return FP_EUSAGE;
		}
		return names_add(s, pre, t, len);
	}
	close = memchr(open, ']', len - (size_t)(open - t));
	if (!close || close == open + 1 || memchr(open + 1, '[', (size_t)(close - open - 1)))
		goto bad;
	if (!(head = malloc(strlen(pre) + len + 24)))
		return FP_ERUNTIME;
	for (const char *r = open + 1; rc == 0 && r < close;) {
		const char *end = memchr(r, ',', (size_t)(close - r));
		unsigned long long lo, hi;
		int w;

		if (!end)
			end = close;
		if (range_parse(r, (size_t)(end - r), &lo, &hi, &w)) {
			free(head);
			goto bad;
		}
		for (unsigned long long v = lo; rc == 0 && v <= hi; v++) {
			if (s->n >= s->max) {
				snprintf(err, errlen, "hostlist: more than %d names", s->max);
				free(head);
				return FP_EUSAGE;
			}
			snprintf(head, strlen(pre) + len + 24, "%s%.*s%0*llu", pre, (int)(open - t), t, w, v);
			rc = expand_term(close + 1, len - (size_t)(close + 1 - t), head, s, err, errlen);
		}
		r = end + 1;
	}
	free(head);
	return rc;
bad:
	snprintf(err, errlen, "hostlist: '%.*s' is not a name or name[ranges] (ranges like 1-8,10)", (int)len, t);
	return FP_EUSAGE;
}

/* The number of names the term t (as expand_term takes it) expands to, capped at cap + 1 (a
 * term past the cap need not be counted further); -1 when t is malformed (expand_term then
 * says why). Linear in len: a bracket's suffix is counted once, for all its values. */
static long long count_term(const char *t, size_t len, long long cap)
{
	const char *open = memchr(t, '[', len), *close;
	long long values = 0, rest;

	if (!open)
		return memchr(t, ']', len) ? -1 : 1;
	close = memchr(open, ']', len - (size_t)(open - t));
	if (!close || close == open + 1 || memchr(open + 1, '[', (size_t)(close - open - 1)))
		return -1;
	for (const char *r = open + 1; r < close;) {
		const char *end = memchr(r, ',', (size_t)(close - r));
		unsigned long long lo, hi;
		int w;

		if (!end)
			end = close;
		if (range_parse(r, (size_t)(end - r), &lo, &hi, &w))
			return -1;
		values = hi - lo >= (unsigned long long)cap ? cap + 1 : values + (long long)(hi - lo) + 1;
		if (values > cap)
			values = cap + 1;
		r = end + 1;
	}
	if ((rest = count_term(close + 1, len - (size_t)(close + 1 - t), cap)) <= 0)
		return rest;
	return values > (cap + 1) / rest ? cap + 1 : values * rest;
}

long long hostlist_count(const char *expr, long long cap)
{
	long long total = 0;

	for (const char *p = expr;;) {
		const char *q = p;
		int depth = 0;
		long long c;

		while (*q && (depth || *q != ',')) {
			depth += (*q == '[') - (*q == ']');
			q++;
		}
		if (q == p || strcspn(p, " \t\n\r") < (size_t)(q - p) || (c = count_term(p, (size_t)(q - p), cap)) < 0)
			return -1;
		if ((total += c) > cap)
			return cap + 1;
		if (!*q)
			return total;
		p = q + 1;
	}
}

int hostlist_expand(const char *expr, char ***out, int *n, char *err, size_t errlen)
{
	return hostlist_expand_max(expr, HOSTLIST_MAX, out, n, err, errlen);
}

int hostlist_expand_max(const char *expr, int max, char ***out, int *n, char *err, size_t errlen)
{
	struct names s = { .max = max < HOSTLIST_MAX ? max : HOSTLIST_MAX };
	const char *p = expr;
	int rc = 0;

	*out = NULL;
	*n = 0;
	/* counted first: an expression of millions of names is refused before any is made (a
	 * malformed one is expanded up to its fault, which says what it is) */
	if (hostlist_count(expr, s.max) > s.max) {
		snprintf(err, errlen, "hostlist: more than %d names", s.max);
		return FP_EUSAGE;
	}
	while (rc == 0) {
		const char *q = p;
		int depth = 0;

		while (*q && (depth || *q != ',')) {
			depth += (*q == '[') - (*q == ']');
			q++;
		}
		size_t len = (size_t)(q - p);

		if (!len || strcspn(p, " \t\n\r") < len) {
			snprintf(err, errlen, "hostlist '%.200s': an empty or blank name", expr);
			rc = FP_EUSAGE;
			break;
		}
		rc = expand_term(p, len, "", &s, err, errlen);
		if (!*q)
			break;
		p = q + 1;
	}
	if (rc) {
		if (rc == FP_ERUNTIME)
			snprintf(err, errlen, "out of memory");
		hostlist_free(s.v, s.n);
		return rc;
	}
	*out = s.v;
	*n = s.n;
	return 0;
}

void hostlist_free(char **names, int n)
{
	for (int i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}
