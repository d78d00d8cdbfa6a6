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

static int meets(int what, double edge, double value)
{
	const char *op = exp_op(what);

	if (isnan(value))
		return 0;
	return op[0] == '<' ? value <= edge : op[0] == '=' ? value == edge : value >= edge;
}

int exp_meets(const struct exp_rule *r, double value)
{
	return meets(r->what, r->value, value);
}

int exp_warns(const struct exp_rule *r, double value)
{
	return !isnan(r->warn) && meets(r->what, r->value, value) && !meets(r->what, r->warn, value);
}

/* Each preset's thresholds and their sources: docs/judging.md ("Presets"). Line rates are the
 * negotiated rates the ports must show; bandwidth as a share of the line rate, at the largest
 * size; a fail and a warn edge each. */
const struct exp_preset exp_presets[] = {
	{ "ndr", "InfiniBand NDR HCAs (ConnectX-7, 400 Gbit/s)",
	  "infiniband.nic_rate_Gbps = 400\ninfiniband.min_pct_line_rate = 85 warn 92\n" },
	{ "hdr", "InfiniBand HDR HCAs (ConnectX-6, 200 Gbit/s)",
	  "infiniband.nic_rate_Gbps = 200\ninfiniband.min_pct_line_rate = 85 warn 92\n" },
	{ "roce-400", "400 GbE RoCE v2 ports",
	  "roce.nic_rate_Gbps = 400\nroce.min_pct_line_rate = 85 warn 92\n" },
	{ "roce-200", "200 GbE RoCE v2 ports",
	  "roce.nic_rate_Gbps = 200\nroce.min_pct_line_rate = 85 warn 92\n" },
	{ "roce-100", "100 GbE RoCE v2 ports",
	  "roce.nic_rate_Gbps = 100\nroce.min_pct_line_rate = 85 warn 92\n" },
	{ "eth-25", "25 GbE front-end ports, raw TCP",
	  "ethernet.nic_rate_Gbps = 25\nethernet.min_pct_line_rate = 80 warn 90\n" },
	{ "hgx-h100", "HGX/DGX H100 nodes: 8 GPUs", "gpus_per_node = 8\n" },
	{ "hgx-h200", "HGX H200 nodes: 8 GPUs", "gpus_per_node = 8\n" },
	{ "gb200-nvl72", "GB200 NVL72 compute trays: 4 GPUs a node", "gpus_per_node = 4\n" },
	{ NULL, NULL, NULL },
};

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
	r->warn = NAN;
	while (isspace((unsigned char)*end))
		end++;
	if (!strncmp(end, "warn", 4) && isspace((unsigned char)end[4])) {
		const char *w = end + 5;

		if (names[which].integer)
			KEY_FAIL("a count takes no warn band");
		errno = 0;
		x = strtod(w, &end);
		if (end == w || errno || !isfinite(x) || x < 0)
			KEY_FAIL("'%.40s' after 'warn' is not a non-negative number", w);
		if (r->what == EXP_MIN_PCT_LINE_RATE && x > 100)
			KEY_FAIL("warn %g is not a percentage of the line rate (0..100)", x);
		if (!meets(r->what, r->value, x))
			KEY_FAIL("warn %g is not on the passing side of %g (a warn band lies between a pass and a fail)",
				 x, r->value);
		r->warn = x;
		while (isspace((unsigned char)*end))
			end++;
	}
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
			 r->what == EXP_MIN_ALLREDUCE ? " (expected 'X [warn Y] [at SIZE]')" : " (expected 'X [warn Y]')");
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

static int preset_take(const char *v, const char *name, int line, struct exp_set *s, char *err);

/* One line (comment stripped): key = value into s. A rule of the same key as a preset's
 * replaces it; any other rule given twice is refused. */
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
	if (!strcmp(key, "preset"))
		return preset_take(val, name, line, s, err);
	if (key_parse(key, name, line, &r, &which, err))
		return FP_EUSAGE;
	if (!*val)
		KEY_FAIL("no value");
	if (value_parse(val, key, name, line, which, &r, err))
		return FP_EUSAGE;
	snprintf(r.from, sizeof r.from, "%.280s:%d", name, line);
	for (int i = 0; i < s->n; i++)
		if (s->r[i].what == r.what && !strcmp(s->r[i].scope, r.scope) && !strcmp(s->r[i].tier, r.tier)) {
			int had_preset = !strncmp(s->r[i].from, "preset ", 7), is_preset = !strncmp(name, "preset ", 7);

			if (had_preset == is_preset)
				KEY_FAIL("given twice (first at %s)", s->r[i].from);
			if (had_preset)
				s->r[i] = r; /* the file's own rule over the preset's, whichever came first */
			return 0;
		}
	if (rule_add(s, &r)) {
		snprintf(err, EXPECT_ERR_MAX, "out of memory");
		return FP_ERUNTIME;
	}
	return 0;
}

/* `preset = NAME`: the preset's rules, parsed as a file named "preset NAME" (each rule's from
 * says so); a preset whose rules clash with another preset's is refused like a key given twice. */
static int preset_take(const char *v, const char *name, int line, struct exp_set *s, char *err)
{
	char pname[64], text[512];
	int k = 0;

	for (int i = 0; exp_presets[i].name; i++) {
		if (strcmp(v, exp_presets[i].name))
			continue;
		snprintf(pname, sizeof pname, "preset %s", exp_presets[i].name);
		for (int k = 0; k < s->n; k++)
			if (!strncmp(s->r[k].from, pname, strlen(pname)) && s->r[k].from[strlen(pname)] == ':') {
				snprintf(err, EXPECT_ERR_MAX, "%s:%d: preset '%s' given twice", name, line, v);
				return FP_EUSAGE;
			}
		snprintf(text, sizeof text, "%s", exp_presets[i].rules);
		for (char *p = text, *nl; *p; p = nl + 1) {
			int rc;

			nl = strchr(p, '\n');
			*nl = 0;
			if ((rc = line_parse(p, pname, ++k, s, err))) {
				char inner[EXPECT_ERR_MAX];

				/* said where the preset was asked for: the file's line, then the rule */
				snprintf(inner, sizeof inner, "%s", err);
				snprintf(err, EXPECT_ERR_MAX, "%.200s:%d: preset '%s': %.360s", name, line, v, inner);
				return rc;
			}
		}
		return 0;
	}
	snprintf(err, EXPECT_ERR_MAX, "%.280s:%d: unknown preset '%.40s' (fabprobe run --help lists them)", name, line, v);
	return FP_EUSAGE;
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
	if (!strncmp(file, "preset:", 7)) { /* --expect preset:NAME[,NAME…]: those lines alone */
		char text[512];
		size_t used = 0;
		FILE *f;
		int rc;

		for (const char *p = file + 7; *p && used < sizeof text - 64; p += strcspn(p, ",") + (p[strcspn(p, ",")] != 0))
			used += (size_t)snprintf(text + used, sizeof text - used, "preset = %.*s\n", (int)strcspn(p, ","), p);
		*s = (struct exp_set){ 0 };
		if (!used) {
			snprintf(err, EXPECT_ERR_MAX, "--expect %.200s: names no preset", file);
			return FP_EUSAGE;
		}
		if (!(f = fmemopen(text, used, "r"))) {
			snprintf(err, EXPECT_ERR_MAX, "out of memory");
			return FP_ERUNTIME;
		}
		rc = exp_parse(f, "--expect", s, err);
		fclose(f);
		if (rc == 0 && !s->n) {
			snprintf(err, EXPECT_ERR_MAX, "--expect %.200s: names no preset", file);
			rc = FP_EUSAGE;
		}
		return rc;
	}
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
		struct exp_rule r = { .what = EXP_MIN_PCT_LINE_RATE, .value = def[d].pct, .warn = NAN, .from = "default" };
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
