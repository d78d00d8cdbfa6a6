/* The run's own model (fabric/io/rundir.h): made from the text its writers hand over, a part at
 * a time, it holds what rundir_load reads back from the files the same writers wrote: p2p rows
 * of two paths (a planned run's bandwidth among them), the confirmation pass's retests folded,
 * collectives, nodes, NICs and the map; hostile names; a model that differs is told apart. */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "core/csv.h"
#include "core/log.h"
#include "fabric/io/coll_csv.h"
#include "fabric/io/inv_csv.h"
#include "fabric/io/p2p_csv.h"
#include "fabric/io/rundir.h"

#define NH 4
static const char *const host[NH] = { "n01", "n,02", "n\"03", "n\n04" };
static char dir[64];

/* a text written by fn into a memory stream (NUL-terminated) */
struct text {
	char *s;
	size_t n;
	FILE *f;
};

static FILE *text_open(struct text *t)
{
	*t = (struct text){ 0 };
	return t->f = open_memstream(&t->s, &t->n);
}

static void text_close(struct text *t)
{
	fclose(t->f);
}

/* both: into the file (appended) and to the model, as the run's writers and its tee do */
static void both(struct rundir *m, const char *file, const struct text *t, int append)
{
	char path[128], err[RUNDIR_ERR_MAX];
	FILE *f;
	size_t skip = 0;

	snprintf(path, sizeof path, "%s/%s", dir, file);
	if (append && access(path, F_OK) == 0) /* the file has its header: the part's is not written again */
		skip = strcspn(t->s, "\n") + 1;
	CHECK((f = fopen(path, "a")) != NULL);
	if (!f)
		return;
	fwrite(t->s + skip, 1, t->n - skip, f);
	fclose(f);
	CHECK_EQ(rundir_add_text(m, file, t->s, t->n, err), 0);
}

static struct p2p_row prow(const char *path, int a, int b, long long size, double lat, double bw, const char *status)
{
	return (struct p2p_row){ .run_id = "r", .path = path, .kind = "tcp", .src_host = host[a], .dst_host = host[b],
				 .src_dev = "eth0", .dst_dev = "eth0", .line_rate_Gbps = 25, .size_B = size,
				 .lat_iters = 100, .lat_us_min = lat, .lat_us_avg = lat * 1.1, .lat_us_p50 = lat * 1.05,
				 .lat_us_p99 = lat * 2, .bw_windows = -1, .window = -1, .bw_GBps = bw,
				 .bw_Gbps = bw * 8, .pct_line_rate = NAN, .status = status, .bw_GBps_total = NAN,
				 .bw_GBps_min = NAN, .bw_GBps_max = NAN, .bw_warmup_windows = -1,
				 .lat_us_min_hi = NAN };
}

/* p2p rows of one path, a part: the pairs of a with every other host */
static void p2p_part(struct rundir *m, const char *file, const char *path, int a, long long size, double scale)
{
	struct text t;
	FILE *f = text_open(&t);

	p2p_csv_header(f);
	for (int b = 0; b < NH; b++)
		if (b != a) {
			struct p2p_row r = prow(path, a, b, size, 6.123456789 * scale * (1 + b), 1.23456789 / scale,
						b == 3 && size > 8 ? "timeout" : "ok");
			p2p_csv_write(f, &r);
		}
	text_close(&t);
	both(m, file, &t, 1);
	free(t.s);
}

static void whole(struct rundir *m, const char *file, void (*fill)(FILE *))
{
	struct text t;

	fill(text_open(&t));
	text_close(&t);
	both(m, file, &t, 0);
	free(t.s);
}

static void topology(FILE *f)
{
	fputs("host,order,tier0,tier1,offset_us\n", f);
	for (int i = 0; i < NH; i++) {
		csv_field(f, host[i]);
		fprintf(f, ",%d,leaf%02d,spine00,0.000\n", i, i / 2);
	}
}

static void nodes(FILE *f)
{
	csv_header(f, inv_csv_node_cols, INV_CSV_NODE_NCOLS);
	for (int i = 0; i < NH; i++)
		csv_row(f, inv_csv_node_cols, INV_CSV_NODE_NCOLS, &(struct inv_csv_node){
			"r", host[i], host[i], "Xeon, \"8480\"", "6.1", "Open MPI 4.1", "sysfs", "", "", 1, 2, 112,
			224, 2, 1LL << 40, 1LL << 39, 8, 9 });
}

static void nics(FILE *f)
{
	csv_header(f, inv_csv_nic_cols, INV_CSV_NIC_NCOLS);
	for (int i = 0; i < NH; i++)
		for (int k = 0; k < 2; k++)
			csv_row(f, inv_csv_nic_cols, INV_CSV_NIC_NCOLS, &(struct inv_csv_nic){
				"r", host[i], k ? "mlx5_1" : "", k ? "ib0" : "eth0", k ? "ib" : "eth", "up", "up",
				"400", "0000:1a:00.0", "aa", "10.0.0.1", "28.39", k, 0, 4, 4096, 0, 24, 3,
				k ? 400 : 25 });
}

static void coll_part(struct rundir *m, long long size)
{
	struct text t;
	FILE *f = text_open(&t);

	coll_csv_header(f);
	for (int ip = 0; ip < 2; ip++)
		coll_csv_write(f, &(struct coll_csv_row){ "r", "ring", "allreduce", size, size / 4, "float", "sum", -1,
							  4, 4, ip, 12.3456, 13.4567, 1.234567, 2.345678, 0, "ok",
							  "tcp:eth0", 25, coll_pct_line_rate(2.345678, 25), "" });
	text_close(&t);
	both(m, "collectives.csv", &t, 1);
	free(t.s);
}

static void test_model_is_the_files(void)
{
	struct rundir live, loaded;
	char err[RUNDIR_ERR_MAX], why[256];

	snprintf(dir, sizeof dir, "/tmp/fp-model-XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	CHECK_EQ(rundir_init(&live, dir), 0);
	whole(&live, "nodes.csv", nodes);
	whole(&live, "nics.csv", nics);
	for (int a = 0; a < NH; a++) { /* the pairs stage: a step at a time, two paths, two sizes */
		p2p_part(&live, "p2p.csv", "tcp:eth0", a, 8, 1);
		p2p_part(&live, "p2p.csv", "mpi", a, 8, 0.5);
	}
	for (int a = 0; a < NH; a++) /* a planned run's bandwidth, after the map */
		p2p_part(&live, "p2p_bw.csv", "tcp:eth0", a, 1 << 20, 1);
	/* the confirmation pass: two rounds of some pairs, one better, one worse */
	p2p_part(&live, "p2p_confirm.csv", "tcp:eth0", 1, 8, 0.8);
	p2p_part(&live, "p2p_confirm.csv", "tcp:eth0", 1, 8, 1.3);
	p2p_part(&live, "p2p_confirm.csv", "tcp:eth0", 2, 1 << 20, 0.9);
	coll_part(&live, 1024);
	coll_part(&live, 1 << 20);
	whole(&live, "topology.csv", topology);
	CHECK_EQ(rundir_index(&live, err), 0);
	CHECK_EQ(rundir_load(dir, &loaded, err), 0);
	CHECK(rundir_same(&live, &loaded, why, sizeof why));
	printf("#   %zu p2p rows, %d retests, %d collectives, %d nodes, %d NICs; %s\n", live.np2p, live.nretest,
	       live.ncoll, live.nnode, live.nnic, rundir_same(&live, &loaded, why, sizeof why) ? "same" : why);
	CHECK_EQ(live.np2p, (size_t)(2 * NH * (NH - 1) + NH * (NH - 1)));
	CHECK_EQ(live.nretest, 3 * (NH - 1));
	CHECK_EQ(live.ncoll, 4);
	CHECK_EQ(live.nnic, 2 * NH);
	CHECK_EQ(rundir_tier(&live, rundir_find(&live, host[0]), rundir_find(&live, host[1])), 0);
	CHECK_EQ(rundir_tier(&live, rundir_find(&live, host[0]), rundir_find(&live, "n\n04")), 1);
	/* a retest folded: the better of the two rounds (a latency lower, a bandwidth higher) */
	for (size_t i = 0; i < live.np2p; i++) {
		const struct rd_p2p *p = &live.p2p[i];

		if (!strcmp(rundir_str(&live, p->src), host[1]) && p->size == 8 &&
		    !strcmp(rundir_str(&live, p->path), "tcp:eth0"))
			CHECK(p->retest[RD_LAT_MIN] < p->v[RD_LAT_MIN]);
	}
	/* indexed again after nothing new: the same (the retests are folded once, not twice) */
	CHECK_EQ(rundir_index(&live, err), 0);
	CHECK(rundir_same(&live, &loaded, why, sizeof why));
	/* what differs is told: one figure, one map */
	live.p2p[3].v[RD_BW] += 0.001f;
	CHECK(!rundir_same(&live, &loaded, why, sizeof why));
	CHECK_HAS(why, "p2p row 3");
	live.p2p[3].v[RD_BW] -= 0.001f;
	CHECK(rundir_same(&live, &loaded, why, sizeof why));
	live.topo.group[1] = live.topo.group[3];
	CHECK(!rundir_same(&live, &loaded, why, sizeof why));
	CHECK_HAS(why, "topology");
	rundir_free(&live);
	rundir_free(&loaded);
	snprintf(err, sizeof err, "rm -rf %s", dir);
	CHECK_EQ(system(err), 0);
}

/* what is no file of the model, or does not read, is refused with the file named */
static void test_model_refuses(void)
{
	struct rundir m;
	char err[RUNDIR_ERR_MAX];
	static const char bad[] = "path,kind,src_host,dst_host,size_B,lat_us_min,lat_us_p50,bw_GBps,status\n"
				  "mpi,mpi,a,b,-3,1,1,1,ok\n";

	CHECK_EQ(rundir_init(&m, "/nowhere"), 0);
	CHECK_EQ(rundir_add_text(&m, "summary.json", "{}", 2, err), FP_EUSAGE);
	CHECK(!rundir_reads("p2p_loaded.csv"));
	CHECK(rundir_reads("p2p_confirm.csv"));
	CHECK_EQ(rundir_add_text(&m, "p2p.csv", bad, sizeof bad - 1, err), FP_EUSAGE);
	CHECK_HAS(err, "/nowhere/p2p.csv:2");
	CHECK_EQ(rundir_add_text(&m, "nodes.csv", "", 0, err), FP_EUSAGE);
	rundir_free(&m);
}

int main(void)
{
	RUN(test_model_is_the_files);
	RUN(test_model_refuses);
	CHECK_EXIT();
}
