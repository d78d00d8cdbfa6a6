/* inv_report.c — the inventory's files (one column table per CSV, csv.h) and its compact
 * terminal table. Rank 0 only; pure apart from the FILE it writes. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/csv.h"
#include "core/log.h"
#include "core/results.h"
#include "fabric/io/inv_csv.h"
#include "inv_report.h"

#define NCOLS(t) ((int)(sizeof t / sizeof t[0]))

/* ------------------------------------------------------------------ nodes.csv */

static int physical_nics(const struct inv_node *nd)
{
	int k = 0;

	for (int i = 0; i < nd->nnics; i++)
		k += !nd->nics[i].is_virtual && nd->nics[i].kind != INV_KIND_LOOPBACK;
	return k;
}

static void nodes_csv(FILE *f, const struct inv_report *r)
{
	char notes[INV_NOTES_MAX * (INV_NOTE_MAX + 2)];

	csv_header(f, inv_csv_node_cols, INV_CSV_NODE_NCOLS);
	for (int k = 0; k < r->n; k++) {
		const struct inv_node *nd = &r->nodes[k];

		notes[0] = 0;
		for (int i = 0; i < nd->nnotes; i++)
			snprintf(notes + strlen(notes), sizeof notes - strlen(notes), "%s%s", i ? "; " : "",
				 nd->notes[i]);
		csv_row(f, inv_csv_node_cols, INV_CSV_NODE_NCOLS, &(struct inv_csv_node){
			r->run_id, nd->host, nd->hostname, nd->cpu_model, nd->kernel, nd->mpi_version, nd->probes_used,
			nd->probes_missing, notes, r->ranks[k], nd->sockets, nd->cores, nd->threads,
			nd->numa_nodes, nd->mem_bytes, nd->numa_mem_bytes, nd->ngpus, physical_nics(nd) });
	}
}

/* ------------------------------------------------------------------ nics.csv */

static void nics_csv(FILE *f, const struct inv_report *r)
{
	csv_header(f, inv_csv_nic_cols, INV_CSV_NIC_NCOLS);
	for (int k = 0; k < r->n; k++)
		for (int i = 0; i < r->nodes[k].nnics; i++) {
			const struct inv_nic *n = &r->nodes[k].nics[i];

			csv_row(f, inv_csv_nic_cols, INV_CSV_NIC_NCOLS, &(struct inv_csv_nic){
				r->run_id, r->nodes[k].host, n->device, n->netdev, inv_kind_name(n->kind),
				n->state, n->netdev_state, n->speed, n->pci, n->guid_or_mac, n->ipv4,
				n->fw_ver, n->port, n->is_virtual, n->width, n->mtu, n->numa,
				n->ipv4_prefix, n->gid_index, n->rate_gbps });
		}
}

/* ------------------------------------------------------------------ gpus.csv, paths.csv, mismatches */

struct gpu_row {
	const char *run_id, *host, *model, *pci, *nic, *cls;
	int64_t index, numa;
};

static const struct csv_col gpu_cols[] = {
	CSV_COL("run_id", CSV_STR, struct gpu_row, run_id, 0),
	CSV_COL("host", CSV_STR, struct gpu_row, host, 0),
	CSV_COL("index", CSV_I64, struct gpu_row, index, 0),
	CSV_COL("model", CSV_STR, struct gpu_row, model, 0),
	CSV_COL("pci_addr", CSV_STR, struct gpu_row, pci, 0),
	CSV_COL("numa_node", CSV_I64, struct gpu_row, numa, 0),
	CSV_COL("nearest_nic", CSV_STR, struct gpu_row, nic, 0),
	CSV_COL("path_class", CSV_STR, struct gpu_row, cls, 0),
};

static void gpus_csv(FILE *f, const struct inv_report *r)
{
	char nic[48];

	csv_header(f, gpu_cols, NCOLS(gpu_cols));
	for (int k = 0; k < r->n; k++)
		for (int g = 0; g < r->nodes[k].ngpus; g++) {
			const struct inv_gpu *gpu = &r->nodes[k].gpus[g];

			nic[0] = 0;
			if (gpu->nic >= 0)
				inv_nic_label(&r->nodes[k].nics[gpu->nic], nic, sizeof nic);
			csv_row(f, gpu_cols, NCOLS(gpu_cols), &(struct gpu_row){
				r->run_id, r->nodes[k].host, gpu->model, gpu->pci, nic,
				inv_class_name(gpu->path_class), g, gpu->numa });
		}
}

struct path_row {
	const char *run_id, *path, *kind, *subnet;
	int64_t nodes, missing, differs;
};

static const struct csv_col path_cols[] = {
	CSV_COL("run_id", CSV_STR, struct path_row, run_id, 0),
	CSV_COL("path", CSV_STR, struct path_row, path, 0),
	CSV_COL("kind", CSV_STR, struct path_row, kind, 0),
	CSV_COL("nodes", CSV_I64, struct path_row, nodes, 0),
	CSV_COL("nodes_missing", CSV_I64, struct path_row, missing, 0),
	CSV_COL("subnet", CSV_STR, struct path_row, subnet, 0),
	CSV_COL("subnet_differs", CSV_I64, struct path_row, differs, 0),
};

static void paths_csv(FILE *f, const struct inv_report *r)
{
	csv_header(f, path_cols, NCOLS(path_cols));
	for (int p = 0; p < r->npaths; p++)
		csv_row(f, path_cols, NCOLS(path_cols), &(struct path_row){
			r->run_id, r->paths[p].name, inv_kind_name(r->paths[p].kind), r->paths[p].subnet,
			r->paths[p].nnodes, r->n - r->paths[p].nnodes, r->paths[p].subnet_differs });
}

struct mm_row {
	const char *run_id, *host, *item, *field, *value, *majority;
	int64_t tie;
};

static const struct csv_col mm_cols[] = {
	CSV_COL("run_id", CSV_STR, struct mm_row, run_id, 0),
	CSV_COL("host", CSV_STR, struct mm_row, host, 0),
	CSV_COL("item", CSV_STR, struct mm_row, item, 0),
	CSV_COL("field", CSV_STR, struct mm_row, field, 0),
	CSV_COL("value", CSV_STR, struct mm_row, value, 0),
	CSV_COL("majority", CSV_STR, struct mm_row, majority, 0),
	CSV_COL("tie", CSV_I64, struct mm_row, tie, 0),
};

static void mm_csv(FILE *f, const struct inv_report *r)
{
	csv_header(f, mm_cols, NCOLS(mm_cols));
	for (int i = 0; i < r->nmm; i++) {
		const struct inv_mismatch *m = &r->mm[i];

		csv_row(f, mm_cols, NCOLS(mm_cols), &(struct mm_row){ r->run_id, r->nodes[m->node].host,
			m->item, m->field, m->value, m->majority, m->tie });
	}
}

int inv_report_write(const struct inv_report *r)
{
	static const struct { const char *file; void (*write)(FILE *, const struct inv_report *); } files[] = {
		{ "nodes.csv", nodes_csv }, { "nics.csv", nics_csv }, { "gpus.csv", gpus_csv },
		{ "paths.csv", paths_csv }, { "inventory_mismatch.csv", mm_csv },
	};
	int rc = 0;

	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		struct results_file out;

		if (results_tmp_open(&out, r->dir, files[i].file)) {
			rc = FP_ERUNTIME;
			continue;
		}
		files[i].write(out.f, r);
		if (results_tmp_commit(&out))
			rc = FP_ERUNTIME;
		struct results_teebuf tee;
		FILE *t = results_tee_open(r->tee, &tee); /* the same text for the run's own model */

		if (t)
			files[i].write(t, r);
		results_tee_done(r->tee, &tee, files[i].file);
	}
	return rc;
}
