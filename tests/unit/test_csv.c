/* CSV writing: RFC 4180 quoting, and the column table's empty cells. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "core/csv.h"

static char *render(void (*fn)(FILE *, const void *), const void *arg)
{
	static char buf[1024];
	FILE *f;

	buf[0] = 0; /* fmemopen leaves the buffer alone when nothing is written */
	f = fmemopen(buf, sizeof buf, "w");
	fn(f, arg);
	fclose(f);
	return buf;
}

static void field(FILE *f, const void *s)
{
	csv_field(f, s);
}

static void test_quoting(void)
{
	CHECK_STR(render(field, "plain"), "plain");
	CHECK_STR(render(field, ""), "");
	CHECK_STR(render(field, "a,b"), "\"a,b\"");
	CHECK_STR(render(field, "say \"hi\""), "\"say \"\"hi\"\"\"");
	CHECK_STR(render(field, "two\nlines"), "\"two\nlines\"");
	CHECK_STR(render(field, "cr\rhere"), "\"cr\rhere\"");
	CHECK_STR(render(field, "\""), "\"\"\"\"");
	CHECK_STR(render(field, "tcp:eth0 node01"), "tcp:eth0 node01"); /* spaces need no quotes */
}

struct row {
	const char *name;
	int64_t n;
	double x;
};

static const struct csv_col cols[] = {
	CSV_COL("name", CSV_STR, struct row, name, 0),
	CSV_COL("n_count", CSV_I64, struct row, n, 0),
	CSV_COL("x_us", CSV_F64, struct row, x, 2),
};

static void header(FILE *f, const void *unused)
{
	(void)unused;
	csv_header(f, cols, 3);
}

static void row(FILE *f, const void *r)
{
	csv_row(f, cols, 3, r);
}

static void test_table(void)
{
	CHECK_STR(render(header, NULL), "name,n_count,x_us\n");
	CHECK_STR(render(row, &(struct row){ "a,b", 3, 1.234 }), "\"a,b\",3,1.23\n");
	CHECK_STR(render(row, &(struct row){ NULL, -1, NAN }), ",,\n"); /* missing = empty */
	CHECK_STR(render(row, &(struct row){ "z", 0, 0 }), "z,0,0.00\n"); /* zero is not missing */
}

int main(void)
{
	RUN(test_quoting);
	RUN(test_table);
	CHECK_EXIT();
}
