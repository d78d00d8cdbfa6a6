/* Small pure pieces: natural order, statistics, endpoint choice, results directories. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "core/escape.h"
#include "core/log.h"
#include "core/natsort.h"
#include "core/results.h"
#include "core/stats.h"
#include "core/world.h"

static void test_natsort(void)
{
	CHECK(natsort_cmp("node2", "node10") < 0);
	CHECK(natsort_cmp("node10", "node2") > 0);
	CHECK(natsort_cmp("node01", "node1") > 0); /* same value: more zeros after */
	CHECK(natsort_cmp("node1", "node1") == 0);
	CHECK(natsort_cmp("a9b", "a10a") < 0);
	CHECK(natsort_cmp("rack2-n9", "rack2-n10") < 0);
	CHECK(natsort_cmp("gpu", "gpu1") < 0);
	CHECK(natsort_cmp("b", "a100") > 0);
	CHECK(natsort_cmp("node99999999999999999999", "node100000000000000000000") < 0); /* no overflow */
}

static void test_stats(void)
{
	double x[100];
	struct stats s;

	for (int i = 0; i < 100; i++)
		x[i] = 100 - i; /* 100..1, unsorted */
	stats_compute(x, 100, &s);
	CHECK_EQ(s.min, 1);
	CHECK_EQ(s.max, 100);
	CHECK_EQ(s.p50, 50); /* nearest rank */
	CHECK_EQ(s.p99, 99);
	CHECK_NEAR(s.avg, 50.5, 1e-12);
	double one = 7;
	stats_compute(&one, 1, &s);
	CHECK_EQ(s.min, 7);
	CHECK_EQ(s.p50, 7);
	CHECK_EQ(s.p99, 7);
}

static void test_endpoints(void)
{
	char names[6][WORLD_HOST_MAX] = { "n2", "n1", "n2", "n3", "n1", "n3" };
	char one[3][WORLD_HOST_MAX] = { "h", "h", "h" };
	int ep[6], nnodes, single;

	CHECK(world_pick_endpoints((const char (*)[WORLD_HOST_MAX])names, 6, ep, &nnodes, &single) == 3);
	CHECK_EQ(ep[0], 0); /* lowest rank of each node */
	CHECK_EQ(ep[1], 1);
	CHECK_EQ(ep[2], 3);
	CHECK_EQ(nnodes, 3);
	CHECK(!single);
	CHECK(world_pick_endpoints((const char (*)[WORLD_HOST_MAX])one, 3, ep, &nnodes, &single) == 3);
	CHECK_EQ(nnodes, 1); /* one node: every rank */
	CHECK(single);
	CHECK_EQ(ep[2], 2);
}

static void test_results_dirs(void)
{
	char root[] = "/tmp/fp-test-XXXXXX", out[RESULTS_PATH_MAX], out2[RESULTS_PATH_MAX], err[256];
	char path[RESULTS_PATH_MAX], file[RESULTS_PATH_MAX + 16];

	CHECK(mkdtemp(root) != NULL);
	time_t t = 1700000000; /* 2023-11-14T22:13:20Z */
	CHECK(results_dir_create(root, "acc", NULL, t, out, sizeof out, err, sizeof err) == 0);
	snprintf(path, sizeof path, "%s/20231114T221320Z-acc", root);
	CHECK_STR(out, path);
	/* the same second again: a new directory, never the old one */
	CHECK(results_dir_create(root, "acc", NULL, t, out2, sizeof out2, err, sizeof err) == 0);
	CHECK(strcmp(out, out2) != 0);
	/* -o into an empty directory works; into a non-empty one is refused */
	FILE *f = results_open(out, "p2p.csv");
	CHECK(f != NULL);
	if (f)
		fclose(f);
	CHECK(results_open(out, "p2p.csv") == NULL); /* never overwrites */
	CHECK(results_dir_create(root, NULL, out, t, out2, sizeof out2, err, sizeof err) == FP_EUSAGE);
	CHECK(strstr(err, "not empty") != NULL);
	CHECK(results_dir_create(root, NULL, out2, t, path, sizeof path, err, sizeof err) == 0); /* empty: fine */
	snprintf(path, sizeof path, "%s/new/deeper", root);
	CHECK(results_dir_create(root, NULL, path, t, out2, sizeof out2, err, sizeof err) == 0);
	/* a derived file appears only when committed */
	struct results_file w;

	CHECK(results_tmp_open(&w, path, "m.csv") == 0);
	if (w.f)
		fputs("x\n", w.f);
	snprintf(file, sizeof file, "%s/m.csv", path);
	CHECK(access(file, F_OK) != 0);
	CHECK(results_tmp_commit(&w) == 0);
	CHECK(access(file, F_OK) == 0);
	/* -o naming a file (or a path through one) is a usage error */
	CHECK(results_dir_create(root, NULL, file, t, out2, sizeof out2, err, sizeof err) == FP_EUSAGE);
	strcat(file, "/x");
	CHECK(results_dir_create(root, NULL, file, t, out2, sizeof out2, err, sizeof err) == FP_EUSAGE);
	snprintf(out2, sizeof out2, "rm -rf %s", root);
	CHECK(system(out2) == 0);
}

static void test_json_string(void)
{
	char buf[128];
	FILE *f = fmemopen(buf, sizeof buf, "w");

	escape_json_write(f, "a\"b\\c\nd\x01", 0);
	fclose(f);
	CHECK_STR(buf, "\"a\\\"b\\\\c\\nd\\u0001\"");
}

int main(void)
{
	RUN(test_natsort);
	RUN(test_stats);
	RUN(test_endpoints);
	RUN(test_results_dirs);
	RUN(test_json_string);
	CHECK_EXIT();
}
