/* report_inventory.c — the inventory at a glance: for each property of nodes.csv, nics.csv and
 * gpus.csv, its distinct values and how many have each; the paths found; the mismatches. */
#include <stdlib.h>
#include <string.h>

#include "fabric/io/inv_csv.h"
#include "html.h"
#include "report_int.h"

#define DISTINCT_SHOWN 6

struct run {
	const char *v;
	int n;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_run(const void *a, const void *b)
{
	const struct run *x = a, *y = b;

	return y->n != x->n ? y->n - x->n : strcmp(x->v, y->v);
}

static void value(FILE *f, const char *v, int bytes)
{
	char b[32];

	if (!*v)
		fputs("<span class=\"muted\">(empty)</span>", f);
	else if (bytes && html_is_number(v)) {
		html_bytes(b, sizeof b, atof(v));
		fputs(b, f);
	} else
		html_text_max(f, v, 300);
}

/* one row: label, then "value ×count" for the most common values */
static void distinct(FILE *f, const struct rtab *t, const char *col, const char *label, int bytes)
{
	int c = rtab_col(t, col), k = 0;
	const char **v = malloc(sizeof *v * (size_t)(t->nrows + 1));
	struct run *runs = malloc(sizeof *runs * (size_t)(t->nrows + 1));

	if (c < 0 || !v || !runs || !t->nrows) {
		free(v);
		free(runs);
		return;
	}
	for (int i = 0; i < t->nrows; i++)
		v[i] = rtab_get(t, i, c);
	qsort(v, (size_t)t->nrows, sizeof *v, cmp_str);
	for (int i = 0; i < t->nrows; i++)
		if (k && !strcmp(runs[k - 1].v, v[i]))
			runs[k - 1].n++;
		else
			runs[k++] = (struct run){ v[i], 1 };
	qsort(runs, (size_t)k, sizeof *runs, cmp_run);
	fprintf(f, "<tr><th>%s</th><td>", label);
	for (int i = 0; i < k && i < DISTINCT_SHOWN; i++) {
		fputs(i ? "<br>" : "", f);
		value(f, runs[i].v, bytes);
		fprintf(f, " <span class=\"muted\">×%d</span>", runs[i].n);
	}
	if (k > DISTINCT_SHOWN)
		fprintf(f, "<br><span class=\"muted\">… %d more distinct values</span>", k - DISTINCT_SHOWN);
	fprintf(f, "</td></tr>\n");
	free(v);
	free(runs);
}

static void summary(struct rpt *r, const char *file, const char *what, const char *const (*cols)[3])
{
	struct rtab t;

	if (rpt_table_load(r, file, 1 << 20, &t, "not in the inventory summary"))
		return;
	fprintf(r->out, "<h3>%s (%s, %ld row%s)</h3>\n<table class=\"kv inv\">\n", what, file, t.total_rows,
		t.total_rows == 1 ? "" : "s");
	for (int i = 0; cols[i][0]; i++)
		distinct(r->out, &t, cols[i][0], cols[i][1], cols[i][2] != NULL);
	fputs("</table>\n", r->out);
	if (!t.total_rows)
		fputs("<p class=\"muted\">None.</p>\n", r->out);
	rtab_free(&t);
}

void rpt_inventory(struct rpt *r)
{
	/* the columns' names from the writer's tables (inv_csv.h): automatic, so not constants */
	const struct csv_col *nd = inv_csv_node_cols, *nc = inv_csv_nic_cols;
	const char *const node_cols[][3] = {
		{ nd[INV_CSV_NODE_CPU_MODEL].name, "CPU" }, { nd[INV_CSV_NODE_SOCKETS].name, "sockets" },
		{ nd[INV_CSV_NODE_CORES].name, "cores" }, { nd[INV_CSV_NODE_THREADS].name, "threads" },
		{ nd[INV_CSV_NODE_NUMA_NODES].name, "NUMA nodes" }, { nd[INV_CSV_NODE_MEM].name, "memory", "B" },
		{ nd[INV_CSV_NODE_GPUS].name, "GPUs" }, { nd[INV_CSV_NODE_NICS].name, "NICs" },
		{ nd[INV_CSV_NODE_KERNEL].name, "kernel" }, { nd[INV_CSV_NODE_MPI_VERSION].name, "MPI" },
		{ nd[INV_CSV_NODE_PROBES].name, "probes" }, { nd[INV_CSV_NODE_PROBES_MISSING].name, "probes missing" },
		{ nd[INV_CSV_NODE_WARNINGS].name, "warnings" }, { NULL },
	};
	const char *const nic_cols[][3] = {
		{ nc[INV_CSV_NIC_KIND].name, "kind" }, { nc[INV_CSV_NIC_STATE].name, "state" },
		{ nc[INV_CSV_NIC_RATE].name, "rate (Gbit/s)" }, { nc[INV_CSV_NIC_WIDTH].name, "width (lanes)" },
		{ nc[INV_CSV_NIC_MTU].name, "MTU (B)" }, { nc[INV_CSV_NIC_FW_VER].name, "firmware" }, { NULL },
	};
	const char *const gpu_cols[][3] = {
		{ inv_csv_gpu_cols[INV_CSV_GPU_MODEL].name, "model" },
		{ inv_csv_gpu_cols[INV_CSV_GPU_CLASS].name, "path to nearest NIC" }, { NULL },
	};
	const struct csv_col *pc = inv_csv_path_cols, *mc = inv_csv_mm_cols;
	struct rtab t;

	rpt_section(r->out, "inventory", "Inventory");
	summary(r, "nodes.csv", "Nodes", node_cols);
	summary(r, "nics.csv", "NIC ports", nic_cols);
	summary(r, "gpus.csv", "GPUs", gpu_cols);
	if (rpt_table_load(r, "paths.csv", 256, &t, "no list of paths found") == 0) {
		fputs("<h3>Paths found (paths.csv)</h3>\n", r->out);
		rpt_table_html(r->out, &t, (const char *const[]){ pc[INV_CSV_PATH_PATH].name, pc[INV_CSV_PATH_KIND].name,
								  pc[INV_CSV_PATH_NODES].name, pc[INV_CSV_PATH_MISSING].name,
								  pc[INV_CSV_PATH_SUBNET].name, pc[INV_CSV_PATH_DIFFERS].name,
								  NULL }, 256, "paths");
		rtab_free(&t);
	}
	if (rpt_table_load(r, "inventory_mismatch.csv", RPT_ROWS_MAX, &t, "no mismatch table") == 0) {
		fputs("<h3>Nodes that differ from the majority (inventory_mismatch.csv)</h3>\n", r->out);
		if (t.total_rows)
			rpt_table_html(r->out, &t, (const char *const[]){ mc[INV_CSV_MM_HOST].name, mc[INV_CSV_MM_ITEM].name,
									  mc[INV_CSV_MM_FIELD].name, mc[INV_CSV_MM_VALUE].name,
									  mc[INV_CSV_MM_MAJORITY].name, mc[INV_CSV_MM_TIE].name,
									  NULL }, RPT_ROWS_MAX, "mismatch");
		else
			fputs("<p>None: every node matches the majority.</p>\n", r->out);
		rtab_free(&t);
	}
	fputs("</section>\n", r->out);
}
