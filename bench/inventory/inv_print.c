/* inv_print.c — the inventory's compact terminal table: one line per node, the physical NIC
 * ports and GPUs of the first few nodes, warnings, paths, and the nodes that differ. */
#include <math.h>
#include <string.h>

#include "inv_report.h"
#include "node/inv_nvml.h"

#define DETAIL_NODES 4   /* nodes whose ports and GPUs are listed; the CSVs have them all */
#define LINE_NODES 32    /* node summary lines before "…" */
#define LINE_MM 40       /* mismatch lines before "…" */

static void print_nodes(FILE *f, const struct inv_report *r)
{
	fprintf(f, "%-24s %5s %4s %5s %5s %4s %8s %4s %4s  %s\n", "host", "ranks", "sock", "cores",
		"thr", "numa", "mem_GB", "gpus", "nics", "probes");
	for (int k = 0; k < r->n && k < LINE_NODES; k++) {
		const struct inv_node *nd = &r->nodes[k];
		int nics = 0;

		for (int i = 0; i < nd->nnics; i++)
			nics += !nd->nics[i].is_virtual && nd->nics[i].kind != INV_KIND_LOOPBACK;
		fprintf(f, "%-24s %5d %4d %5d %5d %4d %8.1f %4d %4d  %s%s%s%s\n", nd->host, r->ranks[k],
			nd->sockets, nd->cores, nd->threads, nd->numa_nodes,
			nd->mem_bytes >= 0 ? (double)nd->mem_bytes / 1e9
			: nd->numa_mem_bytes >= 0 ? (double)nd->numa_mem_bytes / 1e9 : NAN, nd->ngpus, nics,
			nd->probes_used, nd->probes_missing[0] ? " (" : "", nd->probes_missing,
			nd->probes_missing[0] ? ")" : "");
	}
	if (r->n > LINE_NODES)
		fprintf(f, "… %d more nodes (nodes.csv)\n", r->n - LINE_NODES);
}

static void print_nic(FILE *f, const char *host, const struct inv_nic *n)
{
	char label[48], rate[32] = "rate ?", addr[32] = "", gid[16] = "";

	inv_nic_label(n, label, sizeof label);
	if (!isnan(n->rate_gbps))
		snprintf(rate, sizeof rate, "%g Gb/s", n->rate_gbps);
	if (n->width > 0)
		snprintf(rate + strlen(rate), sizeof rate - strlen(rate), " %dX %s", n->width, n->speed);
	if (n->ipv4[0])
		snprintf(addr, sizeof addr, "%s/%d", n->ipv4, n->ipv4_prefix);
	if (n->gid_index >= 0)
		snprintf(gid, sizeof gid, "gid %d", n->gid_index);
	fprintf(f, "  %-16s %-12s %-8s %-10s %-8s %-22s mtu %-5d numa %-2d %-12s %-18s %s%s\n", host,
		label, n->device[0] ? n->netdev : "", inv_kind_name(n->kind), n->state, rate, n->mtu,
		n->numa, n->pci, addr, gid, n->is_virtual ? "virtual" : "");
}

static void print_details(FILE *f, const struct inv_report *r)
{
	int shown = r->n < DETAIL_NODES ? r->n : DETAIL_NODES;

	fputs("NIC ports:\n", f);
	for (int k = 0; k < shown; k++)
		for (int i = 0; i < r->nodes[k].nnics; i++)
			print_nic(f, r->nodes[k].host, &r->nodes[k].nics[i]);
	for (int k = 0; k < shown; k++)
		for (int g = 0; g < r->nodes[k].ngpus; g++) {
			const struct inv_gpu *gpu = &r->nodes[k].gpus[g];
			char nic[48] = "-";

			if (gpu->nic >= 0)
				inv_nic_label(&r->nodes[k].nics[gpu->nic], nic, sizeof nic);
			fprintf(f, "%s  %-16s GPU%-2d %-28s %s numa %-2d -> %-12s %s\n", g || k ? "" : "GPUs:\n",
				r->nodes[k].host, g, gpu->model, gpu->pci, gpu->numa, nic,
				inv_class_name(gpu->path_class));
		}
	if (r->n > shown)
		fprintf(f, "(ports and GPUs of %d more nodes: nics.csv, gpus.csv)\n", r->n - shown);
}

static void print_paths(FILE *f, const struct inv_report *r)
{
	fputs("paths:", f);
	for (int p = 0; p < r->npaths; p++)
		fprintf(f, " %s (%d/%d%s%s%s)", r->paths[p].name, r->paths[p].nnodes, r->n,
			r->paths[p].subnet[0] ? ", " : "", r->paths[p].subnet,
			r->paths[p].subnet_differs ? ", subnets differ" : "");
	fputs("\n", f);
}

void inv_report_print(FILE *f, const struct inv_report *r)
{
	char line[256];

	fprintf(f, "inventory: %d node%s\n", r->n, r->n == 1 ? "" : "s");
	print_nodes(f, r);
	print_details(f, r);
	for (int k = 0; k < r->n; k++)
		for (int i = 0; i < r->nodes[k].nnotes; i++)
			fprintf(f, "warning: %s: %s\n", r->nodes[k].host, r->nodes[k].notes[i]);
	print_paths(f, r);
	inv_nvl_summary(r->nodes, r->n, line, sizeof line);
	if (line[0])
		fprintf(f, "%s\n", line);
	for (int i = 0; i < r->nmm && i < LINE_MM; i++) {
		const struct inv_mismatch *m = &r->mm[i];

		fprintf(f, "%s %s: %s %s = '%s', majority '%s'%s\n", i ? "        " : "mismatch:",
			r->nodes[m->node].host, m->item, m->field, m->value, m->majority,
			m->tie ? " (tie: the first node's value)" : "");
	}
	if (r->nmm > LINE_MM)
		fprintf(f, "… %d more (inventory_mismatch.csv)\n", r->nmm - LINE_MM);
	fprintf(f, "%s: %s\n", r->label ? r->label : "verdict", r->nmm ? "nodes differ (exit 1)" : "nodes agree");
}
