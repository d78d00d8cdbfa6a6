/* Hostlist compression: fixed cases, and a round trip through Slurm's own parser
 * (`scontrol show hostnames`, package slurm-client) for many generated name sets. */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "core/log.h"
#include "fabric/io/hostlist.h"

static char err[256];

static void expect(const char *const *names, int n, const char *want)
{
	char *got = NULL;

	CHECK(hostlist_compress(names, n, &got, err, sizeof err) == 0);
	if (got)
		CHECK_STR(got, want);
	free(got);
}

static void test_fixed_cases(void)
{
	static const char *a[] = { "gpu003", "gpu001", "gpu002", "gpu010", "gpu004", "gpu005", "gpu006",
				   "gpu007", "gpu008" };
	static const char *b[] = { "node10", "node9", "login", "node11" };
	static const char *c[] = { "n09", "n10", "n11" };
	static const char *d[] = { "n9", "n010" };
	static const char *e[] = { "rack1-n2", "rack1-n1", "rack2-n1" };
	static const char *f[] = { "solo7" };
	static const char *g[] = { "a1", "a1", "a2" };

	expect(a, 9, "gpu[001-008,010]");
	expect(b, 4, "login,node[9-11]");
	expect(c, 3, "n[09-11]");     /* "10" prints the same at width 2 */
	expect(d, 2, "n9,n010");      /* different padding never shares a range */
	expect(e, 3, "rack1-n[1-2],rack2-n1");
	expect(f, 1, "solo7");
	expect(g, 3, "a[1-2]");       /* duplicates once */
}

static void test_unrepresentable_refused(void)
{
	static const char *bad[] = { "ok1", "bad,name" }, *empty[] = { "" }, *sp[] = { "a b" };
	char *out = NULL;

	CHECK(hostlist_compress(bad, 2, &out, err, sizeof err) == FP_EUSAGE);
	CHECK(strstr(err, "bad,name") != NULL);
	CHECK(hostlist_compress(empty, 1, &out, err, sizeof err) == FP_EUSAGE);
	CHECK(hostlist_compress(sp, 1, &out, err, sizeof err) == FP_EUSAGE);
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* 200 random sets: mixed prefixes, paddings, gaps, literal names; scontrol must expand each
 * expression back to exactly the set */
static void test_round_trip_scontrol(void)
{
	static const char *prefixes[] = { "gpu", "node", "rack2-n", "x", "login" };
	char conf[] = "/tmp/fp-slurm-XXXXXX", path[64], cmd[8192];
	char names[64][32], *sorted[64], line[64];
	const char *ptrs[64];

	if (access("/usr/bin/scontrol", X_OK) != 0)
		SKIP("scontrol not installed (Debian package slurm-client)");
	CHECK(mkdtemp(conf) != NULL);
	snprintf(path, sizeof path, "%s/slurm.conf", conf);
	FILE *f = fopen(path, "w");
	fputs("ClusterName=fp\nSlurmctldHost=localhost\n", f);
	fclose(f);
	for (int set = 0; set < 200; set++) {
		int n = 1 + (int)rnd(40), k = 0;
		char *expr = NULL;

		for (int i = 0; i < n; i++) {
			const char *p = prefixes[rnd(5)];
			int w = (int)rnd(4), v = (int)rnd(set % 3 ? 30 : 2000);

			if (rnd(10) == 0)
				snprintf(names[i], sizeof names[i], "%s", p); /* no digits */
			else
				snprintf(names[i], sizeof names[i], "%s%0*d", p, w, v);
			ptrs[i] = names[i];
		}
		CHECK(hostlist_compress(ptrs, n, &expr, err, sizeof err) == 0);
		if (!expr)
			continue;
		snprintf(cmd, sizeof cmd, "SLURM_CONF=%s scontrol show hostnames '%s' | LC_ALL=C sort -u", path, expr);
		FILE *p = popen(cmd, "r");
		int bad = 0;
		for (int i = 0; i < n; i++)
			sorted[i] = names[i];
		qsort(sorted, (size_t)n, sizeof *sorted, cmp_str);
		for (int i = 0; i < n; i++) {
			if (i && !strcmp(sorted[i], sorted[i - 1]))
				continue;
			if (!fgets(line, sizeof line, p) || (line[strcspn(line, "\n")] = 0, strcmp(line, sorted[i])))
				bad++;
			k++;
		}
		bad += fgets(line, sizeof line, p) != NULL; /* nothing extra */
		pclose(p);
		CHECK(bad == 0);
		if (bad)
			printf("#   set %d: %s\n", set, expr);
		free(expr);
	}
	snprintf(cmd, sizeof cmd, "rm -rf %s", conf);
	CHECK(system(cmd) == 0);
}

static void expect_expand(const char *expr, const char *want)
{
	char **v = NULL, got[1024] = "";
	int n = 0;

	CHECK(hostlist_expand(expr, &v, &n, err, sizeof err) == 0);
	for (int i = 0; i < n; i++)
		snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", i ? " " : "", v[i]);
	CHECK_STR(got, want);
	hostlist_free(v, n);
}

static void test_expand_fixed_cases(void)
{
	static const char *bad[] = { "a[1-", "a[3-1]", "a]", "", "a,,b", "a[1-2]]", "a[x]", "a[1--2]", "a[[1]]", "a b", "a[]",
				     "a[1]b[]" };
	char **v = NULL;
	int n = 0;

	expect_expand("gpu[001-003,010],login", "gpu001 gpu002 gpu003 gpu010 login");
	expect_expand("n[9-11]", "n9 n10 n11");
	expect_expand("n[09-11]", "n09 n10 n11"); /* the width of the lower bound, as Slurm */
	expect_expand("r[1-2]n[1-2]", "r1n1 r1n2 r2n1 r2n2");
	expect_expand("solo", "solo");
	expect_expand("rack1-n[1-2],rack2-n1", "rack1-n1 rack1-n2 rack2-n1");
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = 0;
		CHECK(hostlist_expand(bad[i], &v, &n, err, sizeof err) == FP_EUSAGE);
		CHECK(err[0] != 0 && v == NULL && n == 0);
		if (hostlist_expand(bad[i], &v, &n, err, sizeof err) != FP_EUSAGE)
			printf("#   accepted '%s'\n", bad[i]);
	}
	CHECK(hostlist_expand("n[1-2000000]", &v, &n, err, sizeof err) == FP_EUSAGE);
	CHECK(strstr(err, "more than") != NULL);
}

/* the cap is counted before anything is expanded: hostlist_count says how many names an
 * expression expands to; one of exactly max names is read with a budget of max, refused with
 * max - 1 (nested brackets, several ranges each, a
 * second term); one of 10^12 names is refused as over the cap */
static void test_expand_cap_counted(void)
{
	char expr[256], **v = NULL;
	int n = 0, bad = 0;

	for (int k = 0; k < 200; k++) {
		int len = 0, want;

		for (int b = 0, nb = 1 + (int)rnd(3); b < nb; b++) {
			len += snprintf(expr + len, sizeof expr - (size_t)len, "r%d[", b);
			for (int r = 0, nr = 1 + (int)rnd(3); r < nr; r++) {
				int lo = (int)rnd(50);

				len += snprintf(expr + len, sizeof expr - (size_t)len, "%s%d-%d", r ? "," : "", lo, lo + (int)rnd(9));
			}
			len += snprintf(expr + len, sizeof expr - (size_t)len, "]");
		}
		if (k % 2)
			len += snprintf(expr + len, sizeof expr - (size_t)len, ",x[1-%d]", 1 + (int)rnd(20));
		if (hostlist_expand(expr, &v, &want, err, sizeof err)) {
			bad++;
			continue;
		}
		hostlist_free(v, want);
		bad += hostlist_count(expr, HOSTLIST_MAX) != want || hostlist_count(expr, want - 1) != want;
		bad += hostlist_expand_max(expr, want, &v, &n, err, sizeof err) != 0 || n != want;
		hostlist_free(v, n);
		bad += hostlist_expand_max(expr, want - 1, &v, &n, err, sizeof err) != FP_EUSAGE || v || n ||
		       !strstr(err, "more than");
		if (bad)
			printf("#   %s (%d names)\n", expr, want);
	}
	CHECK(bad == 0);
	CHECK(hostlist_expand("a[1-999999]b[1-999999]", &v, &n, err, sizeof err) == FP_EUSAGE && !v && !n);
	CHECK(strstr(err, "more than") != NULL);
	CHECK(hostlist_count("a[1-999999]b[1-999999]", HOSTLIST_MAX) == HOSTLIST_MAX + 1);
	CHECK(hostlist_count("a[1-2]b[]", HOSTLIST_MAX) == -1 && hostlist_count("a,,b", 9) == -1);
}

/* compress then expand: the same set, 300 random sets */
static void test_expand_round_trip(void)
{
	static const char *prefixes[] = { "gpu", "node", "rack2-n", "x" };
	char names[48][32];
	const char *ptrs[48], *sorted[48];

	for (int set = 0; set < 300; set++) {
		int n = 1 + (int)rnd(40), m = 0, k = 0, bad = 0;
		char *expr = NULL, **v = NULL;

		for (int i = 0; i < n; i++) {
			snprintf(names[i], sizeof names[i], "%s%0*d", prefixes[rnd(4)], (int)rnd(4), (int)rnd(set % 2 ? 30 : 3000));
			ptrs[i] = names[i];
		}
		CHECK(hostlist_compress(ptrs, n, &expr, err, sizeof err) == 0);
		CHECK(expr && hostlist_expand(expr, &v, &m, err, sizeof err) == 0);
		memcpy(sorted, ptrs, sizeof sorted);
		qsort(sorted, (size_t)n, sizeof *sorted, cmp_str);
		qsort(v, (size_t)m, sizeof *v, cmp_str);
		for (int i = 0; i < n; i++) {
			if (i && !strcmp(sorted[i], sorted[i - 1]))
				continue;
			bad += k >= m || strcmp(v[k], sorted[i]);
			k++;
		}
		bad += k != m;
		CHECK(bad == 0);
		if (bad)
			printf("#   set %d: %s\n", set, expr);
		hostlist_free(v, m);
		free(expr);
	}
}

int main(void)
{
	RUN(test_fixed_cases);
	RUN(test_unrepresentable_refused);
	RUN(test_expand_fixed_cases);
	RUN(test_expand_cap_counted);
	RUN(test_expand_round_trip);
	RUN(test_round_trip_scontrol);
	CHECK_EXIT();
}
