/* opts.c — option value parsing shared by every subcommand. */
#include "opts.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

int opts_size(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out, char *err)
{
	const char *p = s;
	uint64_t v = 0, mult = 1;

	if (!s || !isdigit((unsigned char)*p))
		OPTS_FAIL("%s: '%s' is not a size (expected e.g. 8, 64K, 4M, 1G)", opt, s ? s : "");
	for (; isdigit((unsigned char)*p); p++) {
		if (v > (UINT64_MAX - 9) / 10)
			OPTS_FAIL("%s: '%s' is too large", opt, s);
		v = v * 10 + (uint64_t)(*p - '0');
	}
	switch (toupper((unsigned char)*p)) {
	case 'K': mult = 1ULL << 10; p++; break;
	case 'M': mult = 1ULL << 20; p++; break;
	case 'G': mult = 1ULL << 30; p++; break;
	case 'T': mult = 1ULL << 40; p++; break;
	default: break;
	}
	if (mult > 1 && *p == 'i')
		p++;
	if (*p == 'B' || (*p == 'b' && mult > 1))
		p++;
	if (*p)
		OPTS_FAIL("%s: '%s' is not a size (expected e.g. 8, 64K, 4M, 1G)", opt, s);
	if (v > UINT64_MAX / mult)
		OPTS_FAIL("%s: '%s' is too large", opt, s);
	v *= mult;
	if (v < min || v > max)
		OPTS_FAIL("%s: %s is out of range [%llu, %llu] bytes", opt, s, (unsigned long long)min,
		     (unsigned long long)max);
	*out = v;
	return 0;
}

int opts_long(const char *opt, const char *s, long min, long max, long *out, char *err)
{
	char *end;
	long v;

	if (!s || !*s || isspace((unsigned char)*s))
		OPTS_FAIL("%s: expected an integer", opt);
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end || errno)
		OPTS_FAIL("%s: '%s' is not an integer", opt, s);
	if (v < min || v > max)
		OPTS_FAIL("%s: %ld is out of range [%ld, %ld]", opt, v, min, max);
	*out = v;
	return 0;
}

int opts_seconds(const char *opt, const char *s, double max, double *out, char *err)
{
	char *end;
	double v;

	if (!s || !*s || isspace((unsigned char)*s))
		OPTS_FAIL("%s: expected a number of seconds", opt);
	errno = 0;
	v = strtod(s, &end);
	if (*end || errno || !isfinite(v))
		OPTS_FAIL("%s: '%s' is not a number of seconds", opt, s);
	if (!(v > 0) || v > max)
		OPTS_FAIL("%s: %s is out of range (0, %g] seconds", opt, s, max);
	*out = v;
	return 0;
}

int opts_percent(const char *opt, const char *s, double max, double *out, char *err)
{
	char *end;
	double v;

	if (!s || !*s || isspace((unsigned char)*s))
		OPTS_FAIL("%s: expected a percentage", opt);
	errno = 0;
	v = strtod(s, &end);
	if (*end == '%')
		end++;
	if (*end || errno || !isfinite(v))
		OPTS_FAIL("%s: '%s' is not a percentage", opt, s);
	if (!(v > 0) || v > max)
		OPTS_FAIL("%s: %s is out of range (0, %g] %%", opt, s, max);
	*out = v;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

int opts_size_list(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out,
		   int *n, char *err)
{
	char buf[1024], *tok, *save = NULL;
	int k = 0, j = 0;

	if (!s || !*s)
		OPTS_FAIL("%s: expected a comma-separated list of sizes", opt);
	if (strlen(s) >= sizeof buf)
		OPTS_FAIL("%s: list is too long", opt);
	strcpy(buf, s);
	if (buf[0] == ',' || buf[strlen(buf) - 1] == ',' || strstr(buf, ",,"))
		OPTS_FAIL("%s: '%.100s' has an empty item", opt, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (k == OPTS_LIST_MAX)
			OPTS_FAIL("%s: more than %d sizes", opt, OPTS_LIST_MAX);
		if (opts_size(opt, tok, min, max, &out[k], err))
			return FP_EUSAGE;
		k++;
	}
	qsort(out, (size_t)k, sizeof *out, cmp_u64);
	for (int i = 0; i < k; i++)
		if (j == 0 || out[j - 1] != out[i])
			out[j++] = out[i];
	*n = j;
	return 0;
}

int opts_value(const char *opt, const char *s, char *err)
{
	if (!s || !*s)
		OPTS_FAIL("%s: empty value", opt);
	if (*s == '-')
		OPTS_FAIL("%.30s: '%.60s' looks like an option, not a value (for a name that starts with "
			  "'-', write ./%.60s)", opt, s, s);
	return 0;
}

int opts_name(const char *opt, const char *s, char *err)
{
	size_t len = s ? strlen(s) : 0;

	if (len == 0 || len > 64)
		OPTS_FAIL("%s: a name must have 1 to 64 characters", opt);
	if (s[0] == '.')
		OPTS_FAIL("%s: '%s' must not start with '.'", opt, s);
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._-", *p))
			OPTS_FAIL("%s: '%s' may hold only letters, digits, '.', '_' and '-'", opt, s);
	return 0;
}

/* ---------------------------------------------------------------- the parser */

/* The command's whole table: every group's long options, each one's val replaced by
 * OPTS_VAL_BASE + its index here, so that getopt_long's answer says which group owns it. */
enum { OPTS_VAL_BASE = 256 };
struct opts_table {
	struct option all[OPTS_LONG_MAX + 2];
	int owner[OPTS_LONG_MAX + 1], val[OPTS_LONG_MAX + 1], n;
	char shorts[2 * 26 * 3 + 4];
};

/* The group that declared letter c, or -1. */
static int opts_short_owner(const struct opts_group *g, int ng, int c)
{
	for (int i = 0; i < ng; i++)
		if (c != ':' && g[i].shortopts && strchr(g[i].shortopts, c))
			return i;
	return -1;
}

/* Join the groups' tables into t, refusing a name or a letter declared twice. */
static int opts_table_build(const struct opts_group *g, int ng, struct opts_table *t, char *err)
{
	static const struct option help = { "help", no_argument, NULL, 'h' };
	size_t k = strlen(strcpy(t->shorts, ":h"));

	t->n = 0;
	for (int i = 0; i <= ng; i++)
		for (const struct option *o = i < ng ? g[i].longopts : &help; o && o->name; o++) {
			for (int j = 0; j < t->n; j++)
				if (!strcmp(t->all[j].name, o->name))
					OPTS_FAIL("internal: option --%s is declared twice", o->name);
			if (t->n == OPTS_LONG_MAX)
				OPTS_FAIL("internal: more than %d long options", OPTS_LONG_MAX);
			t->all[t->n] = (struct option){ o->name, o->has_arg, NULL, OPTS_VAL_BASE + t->n };
			t->owner[t->n] = i;
			t->val[t->n++] = o->val;
			if (i == ng)
				break;
		}
	t->all[t->n] = (struct option){ NULL, 0, NULL, 0 };
	for (int i = 0; i < ng; i++)
		for (const char *p = g[i].shortopts; p && *p; p++) {
			if (*p != ':' && (*p == 'h' || opts_short_owner(g, i, *p) >= 0))
				OPTS_FAIL("internal: option -%c is declared twice", *p);
			if (k + 1 >= sizeof t->shorts)
				OPTS_FAIL("internal: too many short options");
			t->shorts[k++] = *p;
			t->shorts[k] = 0;
		}
	return 0;
}

int opts_parse(int argc, char **argv, const struct opts_group *g, int ng, int *args, char *err)
{
	struct opts_table t;
	struct { int group, val; } seen[OPTS_LONG_MAX + 64];
	int c, rc = opts_table_build(g, ng, &t, err), i, nseen = 0;

	optind = 0; /* GNU: re-initialise, so that the parser can be called more than once */
	opterr = 0;
	while (rc == 0 && (c = getopt_long(argc, argv, t.shorts, t.all, NULL)) != -1) {
		int k = c - OPTS_VAL_BASE, grp, val; /* k: a long option's index in t, if it is one */

		if (c == 'h' || (k >= 0 && k < t.n && t.owner[k] == ng))
			return 1;
		if (c == ':')
			OPTS_FAIL("option %s needs a value", argv[optind - 1]);
		if (k >= 0 && k < t.n)
			grp = t.owner[k], val = t.val[k];
		else if ((i = opts_short_owner(g, ng, c)) >= 0)
			grp = i, val = c;
		else
			OPTS_FAIL("unknown option %s (see fabprobe %s --help)", argv[optind - 1], argv[0]);
		/* an option with a value given twice (-p a -p b, -p a --paths b): refused, never the
		 * second quietly replacing the first */
		for (int j = 0; optarg && j < nseen; j++)
			if (seen[j].group == grp && seen[j].val == val)
				OPTS_FAIL("option %s given twice (give it once: a second value would replace the first)",
					  optarg == argv[optind - 1] && optind >= 2 ? argv[optind - 2] : argv[optind - 1]);
		if (optarg && nseen < (int)(sizeof seen / sizeof seen[0]))
			seen[nseen].group = grp, seen[nseen++].val = val;
		rc = g[grp].take(g[grp].ctx, val, optarg, err);
	}
	if (rc)
		return rc;
	if (args)
		*args = optind;
	else if (optind < argc)
		OPTS_FAIL("unexpected argument '%s' (see fabprobe %s --help)", argv[optind], argv[0]);
	for (i = 0; i < ng; i++)
		if (g[i].finish && (rc = g[i].finish(g[i].ctx, err)))
			return rc;
	return 0;
}
