/* expect.c — see expect.h. */
#include "expect.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "core/results.h"
#include "core/opts.h"

static const struct {
	const char *name;
	int what;
	int scope;      /* 0 none allowed, 1 optional kind, 2 required kind, 3 optional backend */
	int tier;       /* tier qualifier allowed */
	int integer;
} names[] = {
	{ "min_pct_line_rate", EXP_MIN_PCT_LINE_RATE, 1, 1, 0 },
	{ "min_bw_GBps", EXP_MIN_BW, 1, 1, 0 },
	{ "max_lat_us", EXP_MAX_LAT, 1, 1, 0 },
	{ "min_allreduce_busbw_GBps", EXP_MIN_ALLREDUCE, 3, 0, 0 },
	{ "nodes", EXP_NODES, 0, 0, 1 },
	{ "gpus_per_node", EXP_GPUS, 0, 0, 1 },
	{ "nics_per_node", EXP_NICS, 2, 0, 1 },
	{ "nic_rate_Gbps", EXP_NIC_RATE, 2, 0, 0 },
};
#define NNAMES (int)(sizeof names / sizeof names[0])

static const char *const kinds[] = { "infiniband", "roce", "ethernet", "ipoib", "mpi", NULL };
static const char *const backends[] = { "mpi", "nccl", NULL };

const char *exp_what_name(int what)
{
	for (int i = 0; i < NNAMES; i++)
		if (names[i].what == what)
			return names[i].name;
	return "?";
}

const char *exp_op(int what)
{
	return what == EXP_MAX_LAT ? "<=" : what == EXP_NODES || what == EXP_GPUS || what == EXP_NICS ? "==" : ">=";
}

int exp_meets(const struct exp_rule *r, double value)
{
	const char *op = exp_op(r->what);

	if (isnan(value))
		return 0;
	return op[0] == '<' ? value <= r->value : op[0] == '=' ? value == r->value : value >= r->value;
}

static int in_list(const char *s, const char *const *list)
{
	for (int i = 0; list[i]; i++)
		if (!strcmp(s, list[i]))
			return 1;
	return 0;
}

/* leaf, spine, core, tier0..tier7 */
static int tier_ok(const char *s)
{
	if (!strcmp(s, "leaf") || !strcmp(s, "spine") || !strcmp(s, "core"))
		return 1;
	return !strncmp(s, "tier", 4) && s[4] >= '0' && s[4] <= '7' && !s[5];
}

#define KEY_FAIL(...)                                                                             \
	do {                                                                                      \
		int n_ = snprintf(err, EXPECT_ERR_MAX, "%.280s:%d: key '%.96s': ", name, line, key); \
		if (n_ < 0 || n_ >= EXPECT_ERR_MAX)                                               \
			n_ = EXPECT_ERR_MAX - 1;                                                  \
		snprintf(err + n_, EXPECT_ERR_MAX - (size_t)n_, __VA_ARGS__);                     \
		return FP_EUSAGE;                                                                 \
	} while (0)

/* SCOPE.NAME.TIER into the rule. */
static int key_parse(const char *key, const char *name, int line, struct exp_rule *r, int *which, char *err)
{
	char buf[96], *part[4];
	int np = 0;

	if (strlen(key) >= sizeof buf)
		KEY_FAIL("too long");
	strcpy(buf, key);
	for (char *p = buf, *save = NULL, *t; np < 4 && (t = strtok_r(p, ".", &save)); p = NULL)
		part[np++] = t;
	for (int i = 0; i < NNAMES; i++)
		for (int at = 0; at < np && at < 2; at++) {
			if (strcmp(part[at], names[i].name))
				continue;
			int has_tier = np - at - 1;

			if (has_tier > 1 || (np > 3))
				KEY_FAIL("expected [SCOPE.]%s%s", names[i].name, names[i].tier ? "[.TIER]" : "");
			if (at && !names[i].scope)
				KEY_FAIL("takes no scope ('%s.')", part[0]);
			if (!at && names[i].scope == 2)
				KEY_FAIL("needs a NIC kind: infiniband.%s, roce.%s or ethernet.%s", part[0], part[0], part[0]);
			if (at && !in_list(part[0], names[i].scope == 3 ? backends : kinds))
				KEY_FAIL("unknown scope '%s' (expected %s)", part[0],
					 names[i].scope == 3 ? "mpi or nccl" : "infiniband, roce, ethernet, ipoib or mpi");
			if (has_tier && !names[i].tier)
				KEY_FAIL("takes no tier ('.%s')", part[at + 1]);
			if (has_tier && !tier_ok(part[at + 1]))
				KEY_FAIL("unknown tier '%s' (expected leaf, spine, core or tier0..tier7)", part[at + 1]);
			*r = (struct exp_rule){ .what = names[i].what };
			snprintf(r->scope, sizeof r->scope, "%s", at ? part[0] : "");
			snprintf(r->tier, sizeof r->tier, "%s", has_tier ? part[at + 1] : "");
			snprintf(r->key, sizeof r->key, "%s", key);
			*which = i;
			return 0;
		}
	KEY_FAIL("unknown (see fabprobe run --help: min_pct_line_rate, min_bw_GBps, max_lat_us, "
		 "min_allreduce_busbw_GBps, nodes, gpus_per_node, KIND.nics_per_node, KIND.nic_rate_Gbps)");
}

static int value_parse(const char *v, const char *key, const char *name, int line, int which, struct exp_rule *r,
		       char *err)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(v, &end);
	if (end == v || errno || !isfinite(x) || x < 0)
		KEY_FAIL("'%s' is not a non-negative number", v);
	if (names[which].integer && (x != floor(x) || x < 1))
		KEY_FAIL("'%s' is not a whole number >= 1", v);
	if (r->what == EXP_MIN_PCT_LINE_RATE && x > 100)
		KEY_FAIL("%g is not a percentage of the line rate (0..100)", x);
	r->value = x;
	while (isspace((unsigned char)*end))
		end++;
	if (r->what == EXP_MIN_ALLREDUCE && !strncmp(end, "at", 2) && isspace((unsigned char)end[2])) {
		char oerr[OPTS_ERR_MAX];
		uint64_t size;

		end += 3;
		while (isspace((unsigned char)*end))
			end++;
		if (opts_size("size", end, 1, 1ULL << 40, &size, oerr))
			KEY_FAIL("'%s' after 'at' is not a size such as 64M", end);
		r->size = (long long)size;
		return 0;
	}
	if (*end)
		KEY_FAIL("unexpected '%s' after the value%s", end,
			 r->what == EXP_MIN_ALLREDUCE ? " (expected 'X' or 'X at SIZE')" : "");
	return 0;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

static int rule_add(struct exp_set *s, const struct exp_rule *r)
{
	struct exp_rule *q = realloc(s->r, sizeof *q * (size_t)(s->n + 1));

	if (!q)
		return FP_ERUNTIME;
	s->r = q;
	s->r[s->n++] = *r;
	return 0;
}

/* One line (comment stripped): key = value into s. */
static int line_parse(char *text, const char *name, int line, struct exp_set *s, char *err)
{
	char *eq = strchr(text, '='), *key, *val;
	struct exp_rule r;
	int which;

	if (!eq) {
		snprintf(err, EXPECT_ERR_MAX, "%s:%d: expected 'key = value', got '%.100s'", name, line, text);
		return FP_EUSAGE;
	}
	*eq = 0;
	key = trim(text);
	val = trim(eq + 1);
	if (!*key) {
		snprintf(err, EXPECT_ERR_MAX, "%s:%d: a value without a key", name, line);
		return FP_EUSAGE;
	}
	if (key_parse(key, name, line, &r, &which, err))
		return FP_EUSAGE;
	if (!*val)
		KEY_FAIL("no value");
	if (value_parse(val, key, name, line, which, &r, err))
		return FP_EUSAGE;
	for (int i = 0; i < s->n; i++)
		if (s->r[i].what == r.what && !strcmp(s->r[i].scope, r.scope) && !strcmp(s->r[i].tier, r.tier))
			KEY_FAIL("given twice (first at %s)", s->r[i].from);
	snprintf(r.from, sizeof r.from, "%.280s:%d", name, line);
	if (rule_add(s, &r)) {
		snprintf(err, EXPECT_ERR_MAX, "out of memory");
		return FP_ERUNTIME;
	}
	return 0;
}

/* The whole text of f, at most EXPECT_BYTES_MAX bytes, into *out (NUL-terminated). 0, or
 * FP_EUSAGE with err (too large, a NUL byte, a read error), FP_ERUNTIME out of memory. */
static int slurp(FILE *f, const char *name, char **out, size_t *len, char *err)
{
	size_t cap = 4096, n = 0, got;
	char *buf = malloc(cap + 1), *p;

	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap && cap > EXPECT_BYTES_MAX)
			break;
		if (n == cap && !(p = realloc(buf, 2 * cap + 1))) {
			free(buf);
			buf = NULL;
		} else if (n == cap) {
			buf = p;
			cap *= 2;
		}
	}
	if (!buf) {
		snprintf(err, EXPECT_ERR_MAX, "out of memory");
		return FP_ERUNTIME;
	}
	buf[n] = 0;
	*out = buf;
	*len = n;
	if (n > EXPECT_BYTES_MAX)
		snprintf(err, EXPECT_ERR_MAX, "%s: more than %d bytes: not an expectations file (a few lines)", name,
			 EXPECT_BYTES_MAX);
	else if (ferror(f))
		snprintf(err, EXPECT_ERR_MAX, "%s: read error", name);
	else if ((p = memchr(buf, 0, n))) {
		int line = 1;

		for (const char *q = buf; q < p; q++)
			line += *q == '\n';
		snprintf(err, EXPECT_ERR_MAX, "%s:%d: a NUL byte: not a text file", name, line);
	} else
		return 0;
	free(buf);
	return FP_EUSAGE;
}

int exp_parse(FILE *f, const char *name, struct exp_set *s, char *err)
{
	char *buf, *p, *end;
	size_t len;
	int line = 0, rc;

	*s = (struct exp_set){ 0 };
	if ((rc = slurp(f, name, &buf, &len, err)))
		return rc;
	p = buf;
	if (len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3)) /* a UTF-8 byte order mark, as editors write it */
		p += 3;
	/* a line ends at LF, CRLF or a lone CR (old Mac editors: the whole file was line 1) */
	for (end = buf + len; rc == 0 && p < end; line++) {
		size_t n = strcspn(p, "\r\n");
		char *next = p + n + (p[n] == '\r' && p[n + 1] == '\n' ? 2 : p[n] ? 1 : 0);

		p[n] = 0;
		p[strcspn(p, "#")] = 0;
		char *t = trim(p);

		if (*t)
			rc = line_parse(t, name, line + 1, s, err);
		p = next;
	}
	free(buf);
	if (rc)
		exp_free(s);
	return rc;
}

int exp_parse_file(const char *file, struct exp_set *s, char *err)
{
	/* a regular file or a pipe (--expect <(…)), read once; never blocking on a FIFO */
	char why[128];
	struct stat st;
	int fd = results_input_open(file, 1, &st, NULL, why, sizeof why), rc;
	FILE *f;

	*s = (struct exp_set){ 0 };
	if (fd < 0) {
		snprintf(err, EXPECT_ERR_MAX, "%s: %s", file, why);
		return FP_EUSAGE;
	}
	if (!(f = fdopen(fd, "r"))) {
		close(fd);
		snprintf(err, EXPECT_ERR_MAX, "out of memory");
		return FP_ERUNTIME;
	}
	rc = exp_parse(f, file, s, err);
	fclose(f);
	return rc;
}

int exp_defaults(struct exp_set *s)
{
	static const struct {
		const char *kind;
		double pct;
	} def[] = { { "infiniband", 90 }, { "roce", 90 }, { "ethernet", 80 } };

	for (size_t d = 0; d < sizeof def / sizeof def[0]; d++) {
		int have = 0;

		for (int i = 0; i < s->n; i++)
			have |= s->r[i].what == EXP_MIN_PCT_LINE_RATE &&
				(!strcmp(s->r[i].scope, def[d].kind) || !s->r[i].scope[0]);
		if (have)
			continue;
		struct exp_rule r = { .what = EXP_MIN_PCT_LINE_RATE, .value = def[d].pct, .from = "default" };
		snprintf(r.scope, sizeof r.scope, "%s", def[d].kind);
		snprintf(r.key, sizeof r.key, "%s.min_pct_line_rate", def[d].kind);
		if (rule_add(s, &r))
			return FP_ERUNTIME;
	}
	return 0;
}

void exp_free(struct exp_set *s)
{
	free(s->r);
	*s = (struct exp_set){ 0 };
}
