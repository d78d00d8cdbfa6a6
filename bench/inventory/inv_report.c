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
#include "node/inv_nvml.h"


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
			.run_id = r->run_id, .host = nd->host, .hostname = nd->hostname, .cpu_model = nd->cpu_model,
			.kernel = nd->kernel, .mpi = nd->mpi_version, .used = nd->probes_used,
			.missing = nd->probes_missing, .notes = notes, .ranks = r->ranks[k], .sockets = nd->sockets,
			.cores = nd->cores, .threads = nd->threads, .numa = nd->numa_nodes, .mem = nd->mem_bytes,
			.numa_mem = nd->numa_mem_bytes, .gpus = nd->ngpus, .nics = physical_nics(nd) });
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
				.run_id = r->run_id, .host = r->nodes[k].host, .device = n->device, .netdev = n->netdev,
				.kind = inv_kind_name(n->kind), .state = n->state, .netdev_state = n->netdev_state,
				.speed = n->speed, .pci = n->pci, .addr = n->guid_or_mac, .ipv4 = n->ipv4,
				.fw = n->fw_ver, .port = n->port, .virt = n->is_virtual, .width = n->width,
				.mtu = n->mtu, .numa = n->numa, .prefix = n->ipv4_prefix, .gid = n->gid_index,
				.rate = n->rate_gbps });
		}
}

/* ------------------------------------------------------------------ gpus.csv, paths.csv, mismatches */

static void gpus_csv(FILE *f, const struct inv_report *r)
{
	char nic[48], domain[64], health[96];

	csv_header(f, inv_csv_gpu_cols, INV_CSV_GPU_NCOLS);
	for (int k = 0; k < r->n; k++)
		for (int g = 0; g < r->nodes[k].ngpus; g++) {
			const struct inv_gpu *gpu = &r->nodes[k].gpus[g];
			const struct inv_gpu_nvml *nv = &gpu->nv;

			nic[0] = 0;
			if (gpu->nic >= 0)
				inv_nic_label(&r->nodes[k].nics[gpu->nic], nic, sizeof nic);
			inv_gpu_domain(nv, domain, sizeof domain);
			inv_fabric_health(nv, health, sizeof health);
			csv_row(f, inv_csv_gpu_cols, INV_CSV_GPU_NCOLS, &(struct inv_csv_gpu){
				.run_id = r->run_id, .host = r->nodes[k].host, .model = gpu->model, .pci = gpu->pci,
				.nic = nic, .cls = inv_class_name(gpu->path_class), .index = g, .numa = gpu->numa,
				.uuid = nv->uuid, .nvlink_to = inv_nvl_to_name(nv), .fabric = inv_fabric_name(nv->fabric),
				.domain = domain, .health = health, .chassis = nv->chassis_serial, .nvlinks = nv->nvlinks,
				.nvlinks_up = nv->nvlinks_up, .fabric_status = nv->fabric_status, .slot = nv->slot,
				.tray = nv->tray, .host_id = nv->host_id, .module_id = nv->module_id });
		}
}

static void paths_csv(FILE *f, const struct inv_report *r)
{
	csv_header(f, inv_csv_path_cols, INV_CSV_PATH_NCOLS);
	for (int p = 0; p < r->npaths; p++)
		csv_row(f, inv_csv_path_cols, INV_CSV_PATH_NCOLS, &(struct inv_csv_path){
			.run_id = r->run_id, .path = r->paths[p].name, .kind = inv_kind_name(r->paths[p].kind),
			.subnet = r->paths[p].subnet, .nodes = r->paths[p].nnodes, .missing = r->n - r->paths[p].nnodes,
			.differs = r->paths[p].subnet_differs });
}

static void mm_csv(FILE *f, const struct inv_report *r)
{
	csv_header(f, inv_csv_mm_cols, INV_CSV_MM_NCOLS);
	for (int i = 0; i < r->nmm; i++) {
		const struct inv_mismatch *m = &r->mm[i];

		csv_row(f, inv_csv_mm_cols, INV_CSV_MM_NCOLS, &(struct inv_csv_mm){
			.run_id = r->run_id, .host = r->nodes[m->node].host, .item = m->item, .field = m->field,
			.value = m->value, .majority = m->majority, .tie = m->tie });
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
