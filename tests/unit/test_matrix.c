/* The matrix readers on hostile input: endpoint keys that sort between TAB and '/',
 * names with TABs or of 700 bytes, numbers out of float range, hex, blanks, torn last rows,
 * blank lines, byte order marks, duplicates, one host, nothing measured, sparse files that
 * would ask for N² memory. Every case must end in a matrix or an error naming the problem,
 * never a crash. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "core/log.h"
#include "fabric/io/csv_read.h"
#include "fabric/io/matrix.h"
#include "fabric/io/p2p_csv.h"

static char dir[] = "/tmp/fp-matrix-XXXXXX", path[256], err[MATRIX_ERR_MAX];

static const char *put(const char *name, const char *text)
{
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

/* p2p.csv rows: src,dst,sdev,ddev,lat (the other columns empty or fixed) */
static void row(FILE *f, const char *src, const char *dst, const char *sdev, const char *ddev, const char *lat)
{
	struct p2p_row r = { .run_id = "r", .path = "mpi", .kind = "", .src_host = src, .dst_host = dst,
			     .src_dev = sdev, .dst_dev = ddev, .line_rate_Gbps = NAN, .size_B = 8,
			     .lat_iters = 10, .lat_us_min = atof(lat), .lat_us_avg = NAN, .lat_us_p50 = NAN,
			     .lat_us_p99 = NAN, .bw_windows = -1, .window = -1, .bw_GBps = NAN,
			     .bw_Gbps = NAN, .pct_line_rate = NAN, .status = "ok", .note = "" };

	p2p_csv_write(f, &r);
}

static int index_of(const struct p2p_matrices *m, const char *name)
{
	for (int i = 0; i < m->n; i++)
		if (!strcmp(m->names[i], name))
			return i;
	return -1;
}

/* hosts n (ranks 0 and 1) and n-a: '-' sorts between TAB and '/' */
static void test_p2p_keys_that_sort_between_tab_and_slash(void)
{
	struct p2p_matrices m;
	FILE *f;

	snprintf(path, sizeof path, "%s/p2p.csv", dir);
	f = fopen(path, "w");
	p2p_csv_header(f);
	row(f, "n", "n", "0", "1", "1.0");
	row(f, "n", "n", "1", "0", "1.5");
	row(f, "n", "n-a", "0", "0", "2.0");
	row(f, "n-a", "n", "0", "1", "3.0");
	row(f, "n", "n-a", "1", "0", "4.0");
	fclose(f);
	CHECK(matrix_read_p2p(path, NULL, &m, err) == 0);
	CHECK(m.n == 3);
	int a = index_of(&m, "n/0"), b = index_of(&m, "n/1"), c = index_of(&m, "n-a/0");
	CHECK(a >= 0 && b >= 0 && c >= 0);
	if (a >= 0 && b >= 0 && c >= 0) {
		CHECK_NEAR(m.lat_min[a * 3 + b], 1.0, 1e-6);
		CHECK_NEAR(m.lat_min[b * 3 + a], 1.5, 1e-6);
		CHECK_NEAR(m.lat_min[a * 3 + c], 2.0, 1e-6);
		CHECK_NEAR(m.lat_min[c * 3 + b], 3.0, 1e-6);
		CHECK_NEAR(m.lat_min[b * 3 + c], 4.0, 1e-6);
		CHECK(isnan(m.lat_min[c * 3 + a]));
	}
	matrix_free(&m);
}

/* a TAB in a host name, and a host name of 700 bytes */
static void test_p2p_tab_and_long_names(void)
{
	char longname[701];
	struct p2p_matrices m;
	FILE *f;

	memset(longname, 'x', 700);
	longname[700] = 0;
	snprintf(path, sizeof path, "%s/p2p.csv", dir);
	f = fopen(path, "w");
	p2p_csv_header(f);
	row(f, "a\tb", longname, "0", "1", "5.0");
	row(f, longname, "a\tb", "1", "0", "6.0");
	row(f, "a", "a\tb", "2", "0", "7.0");
	fclose(f);
	CHECK(matrix_read_p2p(path, NULL, &m, err) == 0);
	CHECK(m.n == 3);
	int t = index_of(&m, "a\tb"), l = index_of(&m, longname);
	CHECK(t >= 0 && l >= 0);
	if (t >= 0 && l >= 0) {
		CHECK_NEAR(m.lat_min[t * 3 + l], 5.0, 1e-6);
		CHECK_NEAR(m.lat_min[l * 3 + t], 6.0, 1e-6);
	}
	matrix_free(&m);
}

/* cells above FLT_MAX, hex, inf, nan, signs refused; 1e-400 and blanks on either
 * side accepted alike */
static void test_numbers(void)
{
	static const char *const bad[] = { "1e39", "0x10", "inf", "nan", "-1", "+1", "1 2", "1e", ".", "1,5" };
	static const char *const good[] = { "1e-400", " 1.5", "1.5 ", "\t2\t", "1.", ".5", "2E+2", "3.4e38" };
	struct p2p_matrices m;
	char text[256];

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(text, sizeof text, "host,a,b\na,,\"%s\"\nb,1,\n", bad[i]);
		put("num.csv", text);
		int rc = matrix_read_square(path, &m, err);
		if (rc != FP_EUSAGE || !strstr(err, "num.csv:2: column 3"))
			printf("#   '%s' was not refused (rc %d: %s)\n", bad[i], rc, err);
		CHECK(rc == FP_EUSAGE && strstr(err, "num.csv:2: column 3"));
	}
	put("num.csv", "host,a,b\na,,1e39\nb,1,\n");
	CHECK(matrix_read_square(path, &m, err) == FP_EUSAGE && strstr(err, "too large"));
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		snprintf(text, sizeof text, "host,a,b\na,,%s\nb,1,\n", good[i]);
		put("num.csv", text);
		int rc = matrix_read_square(path, &m, err);
		if (rc)
			printf("#   '%s' was refused: %s\n", good[i], err);
		CHECK(rc == 0 && isfinite(m.lat_min[1]));
		matrix_free(&m);
	}
}

/* one host, or nothing measured, is an input error */
static void test_one_host_or_nothing_measured(void)
{
	struct p2p_matrices m;

	put("one.csv", "host,a\na,\n");
	CHECK(matrix_read_square(path, &m, err) == FP_EUSAGE && strstr(err, "one host only"));
	put("empty.csv", "host,a,b,c\na,,,\nb,,,\nc,,,\n");
	CHECK(matrix_read_square(path, &m, err) == FP_EUSAGE && strstr(err, "no measured pair"));
	put("p2p.csv", "path,src_host,dst_host,src_dev,dst_dev,size_B,lat_us_min,bw_GBps,status\n"
		       "mpi,a,b,0,0,8,,,timeout\nmpi,b,a,0,0,8,,,timeout\n");
	CHECK(matrix_read_p2p(path, NULL, &m, err) == FP_EUSAGE && strstr(err, "no measured pair"));
	put("p2p.csv", "path,src_host,dst_host,src_dev,dst_dev,size_B,lat_us_min,bw_GBps,status\n"
		       "mpi,a,a,0,0,8,1,,ok\n");
	CHECK(matrix_read_p2p(path, NULL, &m, err) == FP_EUSAGE && strstr(err, "one host only"));
}

/* a torn last row is ignored; trailing blank lines and a missing final newline are
 * accepted; a blank line between rows is not */
static void test_torn_rows_and_blank_lines(void)
{
	static const char head[] = "path,src_host,dst_host,src_dev,dst_dev,size_B,lat_us_min,bw_GBps,status,note\n";
	char text[512];
	struct p2p_matrices m;

	snprintf(text, sizeof text, "%smpi,a,b,0,0,8,2.5,,ok,\nmpi,b,a,0,0,8,2.6,,ok,\nmpi,a,c,0", head);
	put("p2p.csv", text);
	CHECK(matrix_read_p2p(path, NULL, &m, err) == 0 && m.n == 2);
	matrix_free(&m);
	snprintf(text, sizeof text, "%smpi,a,b,0,0,8,2.5,,ok,\nmpi,b,a,0,0,8,2.6,,ok,x", head);
	put("p2p.csv", text);
	CHECK(matrix_read_p2p(path, NULL, &m, err) == 0 && m.n == 2 && m.lat_min[2] > 2.55f);
	matrix_free(&m);
	snprintf(text, sizeof text, "%smpi,a,b,0,0,8,2.5,,ok,\nmpi,b,a,0,0,8,2.6,,ok,\n\n \n", head);
	put("p2p.csv", text);
	CHECK(matrix_read_p2p(path, NULL, &m, err) == 0 && m.n == 2);
	matrix_free(&m);
	snprintf(text, sizeof text, "%smpi,a,b,0,0,8,2.5,,ok,\n\nmpi,b,a,0,0,8,2.6,,ok,\n", head);
	put("p2p.csv", text);
	CHECK(matrix_read_p2p(path, NULL, &m, err) == FP_EUSAGE && strstr(err, "p2p.csv:3: blank line"));
	put("sq.csv", "host,a,b\na,,1\nb,1,\n\n\n");
	CHECK(matrix_read_square(path, &m, err) == 0);
	matrix_free(&m);
	put("sq.csv", "host,a,b\na,,1\nb,1,");
	CHECK(matrix_read_square(path, &m, err) == 0);
	matrix_free(&m);
}

/* a byte order mark, "HOST" or an empty corner cell (pandas) is a square matrix */
static void test_square_headers(void)
{
	static const char *const heads[] = { "\xef\xbb\xbfhost,a,b\n", "HOST,a,b\n", ",a,b\n", "\xef\xbb\xbf,a,b\n" };
	char text[128];
	struct p2p_matrices m;

	for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++) {
		CHECK(matrix_is_square(heads[i]));
		snprintf(text, sizeof text, "%sa,,1\nb,1,\n", heads[i]);
		put("sq.csv", text);
		CHECK(matrix_read_square(path, &m, err) == 0 && m.n == 2 && !strcmp(m.names[0], "a"));
		matrix_free(&m);
	}
	CHECK(!matrix_is_square("run_id,path,kind\n"));
}

/* a host twice is an input error */
static void test_duplicates(void)
{
	struct p2p_matrices m;

	put("dup.csv", "host,a,b,a\na,,1,1\nb,1,,1\na,1,1,\n");
	CHECK(matrix_read_square(path, &m, err) == FP_EUSAGE && strstr(err, "'a' appears twice"));
}

/* 30,000 endpoints in 15,000 rows must not ask for 30,000² cells; a header that
 * names more hosts than the file can hold rows for neither */
static void test_sparse_files(void)
{
	struct p2p_matrices m;
	FILE *f;

	snprintf(path, sizeof path, "%s/sparse.csv", dir);
	f = fopen(path, "w");
	fputs("path,src_host,dst_host,src_dev,dst_dev,size_B,lat_us_min,bw_GBps,status\n", f);
	for (int i = 0; i < 15000; i++)
		fprintf(f, "mpi,h%d,g%d,0,0,8,1.5,,ok\n", i, i);
	fclose(f);
	CHECK(matrix_read_p2p(path, NULL, &m, err) == FP_EUSAGE && strstr(err, "30000 endpoints"));
	snprintf(path, sizeof path, "%s/wide.csv", dir);
	f = fopen(path, "w");
	fputs("host", f);
	for (int i = 0; i < 100000; i++)
		fprintf(f, ",h%d", i);
	fputs("\nh0,,1\n", f);
	fclose(f);
	CHECK(matrix_read_square(path, &m, err) == FP_EUSAGE && strstr(err, "too short"));
}

/* only regular files */
/* a writer's table found in a header by name: past a byte order mark, the first of two alike,
 * in any order, -1 where absent */
static void test_columns_by_name(void)
{
	char h0[] = "\xef\xbb\xbfrun_id", h1[] = "lat_us_p50", h2[] = "path", h3[] = "lat_us_p50";
	char *head[] = { h0, h1, h2, h3 };
	int at[P2P_NCOLS];

	csv_cols_find(head, 4, p2p_csv_cols, P2P_NCOLS, at);
	CHECK_EQ(at[P2P_COL_RUN_ID], 0);
	CHECK_EQ(at[P2P_COL_LAT_P50], 1);
	CHECK_EQ(at[P2P_COL_PATH], 2);
	CHECK_EQ(at[P2P_COL_LAT_MIN], -1);
}

static void test_not_a_regular_file(void)
{
	struct p2p_matrices m;

	CHECK(matrix_read_square("/dev/null", &m, err) == FP_EUSAGE && strstr(err, "not a regular file"));
	CHECK(matrix_read_p2p(dir, NULL, &m, err) == FP_EUSAGE);
	/* a FIFO with no writer: refused at once, never waited on (fopen blocked on it for ever;
	 * the alarm ends the test if it does again) */
	char fifo[300];
	snprintf(fifo, sizeof fifo, "%s/fifo.csv", dir);
	CHECK(mkfifo(fifo, 0600) == 0);
	alarm(10);
	CHECK(matrix_read_square(fifo, &m, err) == FP_EUSAGE && strstr(err, "not a regular file"));
	CHECK(matrix_read_p2p(fifo, NULL, &m, err) == FP_EUSAGE && strstr(err, "not a regular file"));
	alarm(0);
	unlink(fifo);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		printf("not ok - mkdtemp\n");
		return 1;
	}
	RUN(test_p2p_keys_that_sort_between_tab_and_slash);
	RUN(test_p2p_tab_and_long_names);
	RUN(test_numbers);
	RUN(test_one_host_or_nothing_measured);
	RUN(test_torn_rows_and_blank_lines);
	RUN(test_square_headers);
	RUN(test_duplicates);
	RUN(test_sparse_files);
	RUN(test_not_a_regular_file);
	RUN(test_columns_by_name);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd))
		printf("# could not remove %s\n", dir);
	CHECK_EXIT();
}
