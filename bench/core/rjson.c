/* rjson.c — see rjson.h. A recursive-descent parser over a bounded buffer. */
#include "rjson.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "results.h"

#define DEPTH_MAX 32

struct pj {
	const char *s;
	size_t len, at;
	char *err;
	size_t errlen;
};

static int fail(struct pj *p, const char *what)
{
	if (!p->err[0])
		snprintf(p->err, p->errlen, "byte %zu: %s", p->at + 1, what);
	return FP_EUSAGE;
}

static void ws(struct pj *p)
{
	while (p->at < p->len && strchr(" \t\r\n", p->s[p->at]) && p->s[p->at])
		p->at++;
}

static int peek(struct pj *p)
{
	ws(p);
	return p->at < p->len ? (unsigned char)p->s[p->at] : -1;
}

static int lit(struct pj *p, const char *w)
{
	size_t n = strlen(w);

	if (p->len - p->at < n || memcmp(p->s + p->at, w, n))
		return fail(p, "not a JSON value");
	p->at += n;
	return 0;
}

static size_t utf8_put(char *o, unsigned cp)
{
	if (cp == 0 || (cp >= 0xD800 && cp < 0xE000))
		cp = 0xFFFD; /* NUL would cut the string; a lone surrogate is no character */
	if (cp < 0x80)
		return (size_t)(o[0] = (char)cp, 1);
	if (cp < 0x800) {
		o[0] = (char)(0xC0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	o[0] = (char)(0xE0 | cp >> 12);
	o[1] = (char)(0x80 | (cp >> 6 & 0x3F));
	o[2] = (char)(0x80 | (cp & 0x3F));
	return 3;
}

static int escape(struct pj *p, char *o, size_t *k)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	char c = p->at < p->len ? p->s[p->at++] : 0;
	const char *hit = c ? strchr(from, c) : NULL;
	unsigned cp = 0;

	if (hit) {
		o[(*k)++] = to[hit - from];
		return 0;
	}
	if (c != 'u' || p->len - p->at < 4)
		return fail(p, "bad escape in a string");
	for (int i = 0; i < 4; i++) {
		char h = p->s[p->at++];

		if (!strchr("0123456789abcdefABCDEF", h) || !h)
			return fail(p, "bad \\u escape");
		cp = cp * 16 + (unsigned)(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
	}
	*k += utf8_put(o + *k, cp); /* a surrogate pair becomes two U+FFFD: good enough here */
	return 0;
}

static int string(struct pj *p, char **out)
{
	size_t k = 0;
	char *o;

	if (peek(p) != '"')
		return fail(p, "expected a string");
	p->at++;
	if (!(o = malloc(p->len - p->at + 4)))
		return fail(p, "out of memory");
	for (;;) {
		if (p->at >= p->len) {
			free(o);
			return fail(p, "unterminated string");
		}
		char c = p->s[p->at++];
		if (c == '"')
			break;
		if ((unsigned char)c < 0x20 || (c == '\\' && escape(p, o, &k))) {
			free(o);
			return fail(p, "control character in a string");
		}
		if (c != '\\')
			o[k++] = c;
	}
	o[k] = 0;
	*out = o;
	return 0;
}

static int value(struct pj *p, struct rjson *v, int depth);

static int add_item(struct rjson *v, int *cap)
{
	if (v->n < *cap)
		return 0;
	int c = *cap * 2 + 4;
	struct rjson *it = realloc(v->item, sizeof *it * (size_t)c);
	if (!it)
		return FP_ERUNTIME;
	v->item = it;
	if (v->type == RJSON_OBJ) {
		char **key = realloc(v->key, sizeof *key * (size_t)c);
		if (!key)
			return FP_ERUNTIME;
		v->key = key;
	}
	*cap = c;
	return 0;
}

/* An array or object: items separated by ',' up to the closing bracket. */
static int container(struct pj *p, struct rjson *v, int depth)
{
	int obj = p->s[p->at++] == '{', cap = 0;
	char close = obj ? '}' : ']';

	v->type = obj ? RJSON_OBJ : RJSON_ARR;
	if (peek(p) == close) {
		p->at++;
		return 0;
	}
	for (;;) {
		char *key = NULL;

		if (add_item(v, &cap))
			return fail(p, "out of memory");
		if (obj && (string(p, &key) || peek(p) != ':')) {
			free(key);
			return fail(p, "expected \"key\":");
		}
		if (obj) {
			p->at++;
			v->key[v->n] = key;
		}
		memset(&v->item[v->n], 0, sizeof *v->item);
		v->n++;
		if (value(p, &v->item[v->n - 1], depth + 1))
			return FP_EUSAGE;
		int c = peek(p);
		p->at++;
		if (c == close)
			return 0;
		if (c != ',')
			return fail(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

static int number(struct pj *p, struct rjson *v)
{
	char buf[64], *end;
	size_t n = strspn(p->s + p->at, "-+0123456789.eE");

	if (n == 0 || n >= sizeof buf || n > p->len - p->at)
		return fail(p, "not a JSON value");
	memcpy(buf, p->s + p->at, n);
	buf[n] = 0;
	errno = 0;
	v->num = strtod(buf, &end);
	if (*end || !isfinite(v->num))
		return fail(p, "bad number");
	v->type = RJSON_NUM;
	p->at += n;
	return 0;
}

static int value(struct pj *p, struct rjson *v, int depth)
{
	int c = peek(p);

	if (depth > DEPTH_MAX)
		return fail(p, "nested too deep");
	switch (c) {
	case '{': case '[': return container(p, v, depth);
	case '"': v->type = RJSON_STR; return string(p, &v->str);
	case 't': v->type = RJSON_BOOL; v->num = 1; return lit(p, "true");
	case 'f': v->type = RJSON_BOOL; return lit(p, "false");
	case 'n': return lit(p, "null");
	case -1: return fail(p, "unexpected end");
	default: return number(p, v);
	}
}

int rjson_parse(const char *text, size_t len, struct rjson *v, char *err, size_t errlen)
{
	struct pj p = { .s = text, .len = len, .err = err, .errlen = errlen };

	memset(v, 0, sizeof *v);
	err[0] = 0;
	if (value(&p, v, 0) == 0 && peek(&p) == -1)
		return 0;
	fail(&p, "text after the value");
	rjson_free(v);
	return FP_EUSAGE;
}

const struct rjson *rjson_get(const struct rjson *v, const char *key)
{
	for (int i = 0; v && v->type == RJSON_OBJ && i < v->n; i++)
		if (!strcmp(v->key[i], key))
			return &v->item[i];
	return NULL;
}

const char *rjson_str(const struct rjson *v)
{
	return v && v->type == RJSON_STR ? v->str : NULL;
}

void rjson_free(struct rjson *v)
{
	for (int i = 0; i < v->n; i++) {
		rjson_free(&v->item[i]);
		if (v->type == RJSON_OBJ)
			free(v->key[i]);
	}
	free(v->item);
	free(v->key);
	free(v->str);
	memset(v, 0, sizeof *v);
}

/* All of fd's bytes (at most max) into a new buffer, NUL-terminated: 0, FP_EUSAGE (err),
 * FP_ERUNTIME (out of memory). */
static int slurp(int fd, size_t max, char **out, size_t *len, char *err, size_t errlen)
{
	char *buf = malloc(max + 1);
	size_t n = 0;
	ssize_t k = 1;

	if (!buf) {
		snprintf(err, errlen, "out of memory");
		return FP_ERUNTIME;
	}
	while (n <= max && (k = read(fd, buf + n, max + 1 - n)) > 0)
		n += (size_t)k;
	if (k < 0 || n > max) {
		if (k < 0)
			snprintf(err, errlen, "%s", strerror(errno));
		else
			snprintf(err, errlen, "larger than %zu MiB", max >> 20);
		free(buf);
		return FP_EUSAGE;
	}
	buf[n] = 0;
	*out = buf;
	*len = n;
	return 0;
}

int rjson_load(const char *file, size_t max, struct rjson *v, char *err, size_t errlen)
{
	char perr[256] = "", *text = NULL;
	struct stat st;
	size_t len = 0;
	int absent, fd = results_input_open(file, RESULTS_IN_NOLINK, &st, &absent, err, errlen), rc;

	memset(v, 0, sizeof *v);
	if (fd < 0) {
		if (absent)
			snprintf(err, errlen, "not in this directory");
		return absent ? 1 : FP_EUSAGE;
	}
	rc = slurp(fd, max, &text, &len, err, errlen);
	close(fd);
	if (rc)
		return rc;
	if ((rc = rjson_parse(text, len, v, perr, sizeof perr)) || v->type != RJSON_OBJ) {
		snprintf(err, errlen, "malformed (%s)", rc ? perr : "not an object");
		rjson_free(v);
		rc = rc == FP_ERUNTIME ? rc : FP_EUSAGE;
	}
	free(text);
	return rc;
}

void rjson_fail(struct rjson_rd *d, const char *where, const char *what)
{
	if (!d->bad)
		snprintf(d->err, d->len, "%s: %s: %s", d->file, where, what);
	d->bad = 1;
}

const struct rjson *rjson_want(struct rjson_rd *d, const struct rjson *o, const char *where, const char *key,
			       enum rjson_type t)
{
	const struct rjson *v = rjson_get(o, key);
	char at[160];

	if (v && (v->type == t || (t == RJSON_NUM && v->type == RJSON_NULL)))
		return v;
	snprintf(at, sizeof at, "%.100s%s%.40s", where, *where ? "." : "", key);
	rjson_fail(d, at, v ? "not of its type" : "missing");
	return NULL;
}

const char *rjson_want_str(struct rjson_rd *d, const struct rjson *o, const char *where, const char *key)
{
	const struct rjson *v = rjson_want(d, o, where, key, RJSON_STR);

	return v ? v->str : "";
}

double rjson_want_num(struct rjson_rd *d, const struct rjson *o, const char *where, const char *key)
{
	const struct rjson *v = rjson_want(d, o, where, key, RJSON_NUM);

	return v && v->type == RJSON_NUM ? v->num : NAN;
}

long long rjson_want_int(struct rjson_rd *d, const struct rjson *o, const char *where, const char *key, long long lo,
			 long long hi)
{
	const struct rjson *v = rjson_want(d, o, where, key, RJSON_NUM);

	if (v && (v->type != RJSON_NUM || v->num != floor(v->num) || v->num < (double)lo || v->num > (double)hi)) {
		char at[160];

		snprintf(at, sizeof at, "%.100s.%.40s", where, key);
		rjson_fail(d, at, "not a whole number in its range");
	}
	return v && !d->bad ? (long long)v->num : lo;
}

int rjson_want_bool(struct rjson_rd *d, const struct rjson *o, const char *where, const char *key)
{
	const struct rjson *v = rjson_want(d, o, where, key, RJSON_BOOL);

	return v ? v->num != 0 : 0;
}

void rjson_want_copy(struct rjson_rd *d, const char *s, char *out, size_t cap, const char *where)
{
	if (strlen(s) >= cap)
		rjson_fail(d, where, "longer than it is ever written");
	else
		memcpy(out, s, strlen(s) + 1);
}

void rjson_want_strings(struct rjson_rd *d, const struct rjson *o, const char *where, const char *key,
			const char ***out, int *n)
{
	const struct rjson *a = rjson_want(d, o, where, key, RJSON_ARR);

	*n = 0;
	if (!a)
		return;
	if (!(*out = calloc((size_t)a->n + 1, sizeof **out))) {
		rjson_fail(d, where, "out of memory");
		return;
	}
	for (int i = 0; i < a->n; i++)
		if (!((*out)[i] = rjson_str(&a->item[i])))
			rjson_fail(d, key, "holds what is not a string");
	*n = a->n;
}
