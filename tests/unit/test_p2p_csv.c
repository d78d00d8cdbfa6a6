/* The one p2p.csv row reader (fabric/io/p2p_csv.h) on what a file may hold: columns found by
 * name past a byte order mark, the columns a reader needs, numbers and their errors (naming the
 * file, line and column), torn last rows (fewer cells, or a row run into one), blank lines,
 * NUL bytes, short rows, only regular files (a FIFO is never waited on), a second reading, a
 * file that changed in between; and rundir (the judges) reading p2p_retest.csv through it, and
 * a topology given in memory. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "core/log.h"
#include "fabric/io/p2p_csv.h"
#include "fabric/io/rundir.h"

static char dir[] = "/tmp/fp-p2p-csv-XXXXXX", path[256], err[CSV_READ_ERR_MAX];

static const char head[] = "path,kind,src_host,dst_host,src_dev,dst_dev,size_B,lat_us_min,lat_us_p50,bw_GBps,status\n";

/* path = dir/name holding text (len bytes) */
static const char *put(const char *name, const char *text, size_t len)
{
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "w");
	fwrite(text, 1, len, f);
	fclose(f);
	return path;
}

/* Read file (head and rows in text) to its end: the rows read, or the error code. */
static int read_all(const char *text, size_t len, unsigned need)
{
	struct p2p_csv_reader r;
	struct p2p_csv_in in;
	int rc, n = 0;

	put("p2p.csv", text, len);
	if ((rc = p2p_csv_open(&r, path, need, err)))
		return rc;
	while ((rc = p2p_csv_next(&r, &in, err)) == 1)
		n++;
	p2p_csv_close(&r);
	return rc ? rc : n;
}

static int read_text(const char *text)
{
	return read_all(text, strlen(text), 0);
}

/* the fields of a row, by name, past a byte order mark; absent ones "" and NAN */
static void test_fields(void)
{
	static const char text[] = "\xef\xbb\xbfstatus,size_B,dst_host,src_host,path,lat_us_min,note\n"
				   "ok,8,b,a,mpi,1.5,x\n";
	struct p2p_csv_reader r;
	struct p2p_csv_in in;

	put("p2p.csv", text, strlen(text));
	CHECK_EQ(p2p_csv_open(&r, path, 0, err), 0);
	CHECK_EQ(p2p_csv_next(&r, &in, err), 1);
	CHECK_STR(in.path, "mpi");
	CHECK_STR(in.src_host, "a");
	CHECK_STR(in.dst_host, "b");
	CHECK_STR(in.kind, "");
	CHECK_EQ(in.size_B, 8);
	CHECK_NEAR(in.lat_us_min, 1.5, 1e-9);
	CHECK(isnan(in.bw_GBps));
	CHECK(in.ok);
	CHECK_EQ(in.line, 2);
	CHECK_EQ(p2p_csv_next(&r, &in, err), 0);
	/* a second reading from the header gives the same row */
	CHECK_EQ(p2p_csv_rewind(&r, err), 0);
	CHECK_EQ(p2p_csv_next(&r, &in, err), 1);
	CHECK_EQ(in.line, 2);
	p2p_csv_close(&r);
	/* a column the reader needs is named when absent */
	put("p2p.csv", text, strlen(text));
	CHECK_EQ(p2p_csv_open(&r, path, P2P_CSV_NEED(P2P_COL_KIND), err), FP_EUSAGE);
	CHECK(strstr(err, "p2p.csv:1: no column 'kind'") != NULL);
	CHECK_EQ(read_text("path,src_host,dst_host,size_B\n"), FP_EUSAGE);
	CHECK(strstr(err, "no column 'status'") != NULL);
}

/* numbers: the same for every reader, an error naming file, line and column */
static void test_numbers(void)
{
	static const char *const bad_fig[] = { "-1", "+1", "0x10", "inf", "nan", "1e39", "x" };
	static const char *const bad_size[] = { "", "0", "8.0", "1e3", "-8", " 8", "1000000000000001" };
	char text[512];

	for (size_t i = 0; i < sizeof bad_fig / sizeof *bad_fig; i++) {
		snprintf(text, sizeof text, "%smpi,,a,b,0,0,8,1,1,%s,ok\n", head, bad_fig[i]);
		CHECK_EQ(read_text(text), FP_EUSAGE);
		CHECK(strstr(err, "p2p.csv:2: column 'bw_GBps'") != NULL);
	}
	for (size_t i = 0; i < sizeof bad_size / sizeof *bad_size; i++) {
		snprintf(text, sizeof text, "%smpi,,a,b,0,0,%s,1,1,,ok\n", head, bad_size[i]);
		CHECK_EQ(read_text(text), FP_EUSAGE);
		CHECK(strstr(err, "p2p.csv:2: column 'size_B'") != NULL);
	}
	snprintf(text, sizeof text, "%smpi,,a,b,0,0,1000000000000000, 1.5 ,1e-400,,timeout\n", head);
	CHECK_EQ(read_text(text), 1);
}

/* torn last rows ignored, blank lines at the end only, no NUL, every row whole */
static void test_rows(void)
{
	static const char row[] = "mpi,,a,b,0,0,8,1,1,,ok\n";
	char text[512];

	snprintf(text, sizeof text, "%s%smpi,,b,a", head, row); /* fewer cells, no line break */
	CHECK_EQ(read_text(text), 1);
	snprintf(text, sizeof text, "%smpi,,b,a,0,0,8,1,1,,okmpi,,b,a,0,0", head); /* run into a torn row */
	CHECK_EQ(read_text(text), 0);
	snprintf(text, sizeof text, "%s%smpi,,b,a,0,0,8,1,1,,ok", head, row); /* whole, no line break */
	CHECK_EQ(read_text(text), 2);
	snprintf(text, sizeof text, "%s%s\n \n", head, row);
	CHECK_EQ(read_text(text), 1);
	/* refused: text after the header, what err says */
	static const char *const bad[][2] = {
		{ "mpi,,a,b,0,0,8,1,1,,ok\n\nmpi,,b,a,0,0,8,1,1,,ok\n", "p2p.csv:3: blank line inside the table" },
		{ "mpi,,a,b,0,0,8,1,1,,ok\nmpi,,b,a,0,0,8,1\nmpi,,a,b,0,0,8,1,1,,ok\n", "p2p.csv:3: 8 cells, expected 11" },
		{ "mpi,,a,b,0,0,8,1,1,,ok\nmpi,,b,a,0,0,8,1,1,,ok,x\n", "p2p.csv:3: 12 fields" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		snprintf(text, sizeof text, "%s%s", head, bad[i][0]);
		CHECK_EQ(read_text(text), FP_EUSAGE);
		CHECK(strstr(err, bad[i][1]) != NULL);
	}
	snprintf(text, sizeof text, "\n%s%s", head, row);
	CHECK_EQ(read_text(text), FP_EUSAGE);
	CHECK(strstr(err, "blank line before the header") != NULL);
	int n = snprintf(text, sizeof text, "%s%smpi,,b,a,0,0,8,1,1,,ok\n", head, row);
	text[n - 5] = 0; /* a NUL byte in the last row */
	CHECK_EQ(read_all(text, (size_t)n, 0), FP_EUSAGE);
	CHECK(strstr(err, "p2p.csv:3: a NUL byte") != NULL);
}

/* only a regular file, a FIFO refused without waiting for a writer; a file that changed
 * between two readings refused */
static void test_files(void)
{
	struct p2p_csv_reader r;
	struct p2p_csv_in in;
	char text[512], fifo[300];
	FILE *f;

	snprintf(fifo, sizeof fifo, "%s/fifo.csv", dir);
	CHECK_EQ(mkfifo(fifo, 0600), 0);
	CHECK_EQ(p2p_csv_open(&r, fifo, 0, err), FP_EUSAGE);
	CHECK(strstr(err, "not a regular file") != NULL);
	CHECK_EQ(p2p_csv_open(&r, dir, 0, err), FP_EUSAGE);
	snprintf(text, sizeof text, "%smpi,,a,b,0,0,8,1,1,,ok\n", head);
	put("p2p.csv", text, strlen(text));
	CHECK_EQ(p2p_csv_open(&r, path, 0, err), 0);
	CHECK_EQ(p2p_csv_next(&r, &in, err), 1);
	f = fopen(path, "a");
	fputs("mpi,,b,a,0,0,8,1,1,,ok\n", f);
	fclose(f);
	CHECK_EQ(p2p_csv_rewind(&r, err), FP_EUSAGE);
	CHECK(strstr(err, "changed while it was read") != NULL);
	p2p_csv_close(&r);
}

/* the judges read p2p_retest.csv through the same reader: its rules, its errors */
static void test_rundir_retests(void)
{
	char d[300], text[512], rerr[RUNDIR_ERR_MAX];
	struct rundir rd;

	snprintf(d, sizeof d, "%s/run", dir);
	CHECK_EQ(mkdir(d, 0700), 0);
	snprintf(text, sizeof text, "%smpi,,a,b,0,0,8,2,2,,ok\n", head);
	put("run/p2p.csv", text, strlen(text));
	snprintf(text, sizeof text, "%smpi,,a,b,0,0,8,1.5,1.5,,ok\n", head);
	put("run/p2p_retest.csv", text, strlen(text));
	CHECK_EQ(rundir_load(d, &rd, rerr), 0);
	CHECK_EQ(rd.np2p, 1);
	CHECK_EQ(rd.nretest, 1);
	CHECK_NEAR(rd.p2p[0].retest[RD_LAT_MIN], 1.5, 1e-6);
	rundir_free(&rd);
	snprintf(text, sizeof text, "%smpi,,a,b,0,0,8,0x1,1.5,,ok\n", head);
	put("run/p2p_retest.csv", text, strlen(text));
	CHECK_EQ(rundir_load(d, &rd, rerr), FP_EUSAGE);
	CHECK(strstr(rerr, "p2p_retest.csv:2: column 'lat_us_min'") != NULL);
	snprintf(text, sizeof text, "%smpi,,a,b,0,0,8,2,2,,ok\n\nmpi,,b,a,0,0,8,2,2,,ok\n", head);
	put("run/p2p.csv", text, strlen(text));
	CHECK_EQ(rundir_load(d, &rd, rerr), FP_EUSAGE);
	CHECK(strstr(rerr, "p2p.csv:3: blank line inside the table") != NULL);
}

/* `run` judges on its first map before topology.csv exists: a topology given in memory gives
 * the same tiers and names as the file would, replaces one read before, and a bad shape is
 * refused */
static void test_rundir_set_topology(void)
{
	static const char *const hosts[] = { "a", "b", "c" };
	static const char *const two[] = { "leaf01", "leaf01", "leaf02", "spine01", "spine01", "spine01" };
	static const char *const one[] = { "leaf01", "leaf02", "leaf02" };
	char d[300], text[512], rerr[RUNDIR_ERR_MAX];
	struct rundir rd;

	snprintf(d, sizeof d, "%s/topo", dir);
	CHECK_EQ(mkdir(d, 0700), 0);
	snprintf(text, sizeof text, "%smpi,,a,b,0,0,8,2,2,,ok\nmpi,,a,c,0,0,8,9,9,,ok\n", head);
	put("topo/p2p.csv", text, strlen(text));
	snprintf(text, sizeof text, "host,order,tier0,offset_us\na,0,leaf09,0\nb,1,leaf08,0\n");
	put("topo/topology.csv", text, strlen(text));
	CHECK_EQ(rundir_load(d, &rd, rerr), 0);
	int a = rundir_find(&rd, "a"), b = rundir_find(&rd, "b"), c = rundir_find(&rd, "c");
	CHECK_EQ(rundir_tier(&rd, a, b), 1); /* the file's: a and b apart, c not in it */
	CHECK_EQ(rundir_tier(&rd, a, c), -1);
	CHECK_EQ(rundir_set_topology(&rd, 3, hosts, 2, two), 0);
	c = rundir_find(&rd, "c");
	CHECK_EQ(rundir_tier(&rd, a, b), 0);
	CHECK_EQ(rundir_tier(&rd, a, c), 1);
	CHECK(!strcmp(rundir_tier_name(&rd, 0), "leaf") && !strcmp(rundir_tier_name(&rd, 1), "spine"));
	CHECK_EQ(rd.np2p, 2); /* the rows still found by name after the new strings */
	CHECK_EQ(rundir_set_topology(&rd, 3, hosts, 1, one), 0);
	CHECK_EQ(rundir_tier(&rd, b, rundir_find(&rd, "c")), 0);
	CHECK_EQ(rundir_tier(&rd, a, b), 1);
	CHECK_EQ(rundir_set_topology(&rd, 3, hosts, 0, one), FP_EUSAGE);
	CHECK_EQ(rundir_set_topology(&rd, 3, hosts, RUNDIR_TIERS_MAX + 1, one), FP_EUSAGE);
	CHECK_EQ(rundir_tier(&rd, a, b), 1); /* a refused shape changes nothing */
	rundir_free(&rd);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		printf("not ok - mkdtemp\n");
		return 1;
	}
	RUN(test_fields);
	RUN(test_numbers);
	RUN(test_rows);
	RUN(test_files);
	RUN(test_rundir_retests);
	RUN(test_rundir_set_topology);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd))
		printf("# could not remove %s\n", dir);
	CHECK_EXIT();
}
