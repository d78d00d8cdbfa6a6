/* p2p_place.c — where an endpoint measures a path (p2p_int.h): on the cores of the path's port's
 * NUMA node, its memory there, when the endpoint has a machine to itself (topo/node/nic_place.h);
 * the placement of every endpoint written to placement.csv and, where a port could not be
 * reached from its own node, said on the terminal. */
#include <linux/mempolicy.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/escape.h"
#include "core/log.h"
#include "core/results.h"
#include "core/run.h"
#include "core/world.h"
#include "fabric/io/p2p_csv.h"
#include "node/nic_place.h"
#include "p2p_int.h"

/* new pages of this process on node (first touch does the rest: the buffers are touched by the
 * cores of that node); node < 0: the default policy again. Best effort, as the binding. */
static void prefer_node(int node)
{
	enum { BITS = 8 * sizeof(unsigned long) };
	unsigned long mask[4096 / BITS] = { 0 };

	if (node < 0 || node >= 4096) {
		syscall(SYS_set_mempolicy, MPOL_DEFAULT, NULL, 0UL);
		return;
	}
	mask[node / BITS] |= 1UL << (node % BITS);
	syscall(SYS_set_mempolicy, MPOL_PREFERRED, mask, (unsigned long)(8 * sizeof mask));
}

void p2p_place(const struct p2p_run *run, const char *path, struct nic_place *pl)
{
	nic_place_find(NULL, path, &run->cpus, pl);
	if (run->pin) /* the machine's endpoints share its cores: placed for the emulation */
		pl->status = PLACE_NONE;
	if (pl->status != PLACE_NIC_NODE && pl->status != PLACE_OFF_NODE)
		return;
	sched_setaffinity(0, sizeof pl->use, &pl->use);
	if (pl->status == PLACE_NIC_NODE)
		prefer_node(pl->numa);
}

void p2p_place_port(const struct nic_place *pl, struct tr_port *port)
{
	port->place = pl->status;
	port->numa = pl->numa;
	port->cpus[0] = 0;
	if (pl->status != PLACE_NONE)
		cpulist_format(&pl->use, port->cpus, sizeof port->cpus);
}

void p2p_unplace(const struct p2p_run *run, const struct nic_place *pl)
{
	if (pl->status != PLACE_NIC_NODE && pl->status != PLACE_OFF_NODE)
		return;
	sched_setaffinity(0, sizeof run->cpus, &run->cpus);
	prefer_node(-1);
}

void p2p_place_write(struct p2p_run *run, const char *path, const struct tr_port *ports)
{
	const struct world *w = run->w;
	FILE *f = NULL;
	int fresh = 0, off = 0, unknown = 0;

	for (int e = 0; e < w->nep; e++) {
		const struct tr_port *p = &ports[e];
		const char *note = p->place == PLACE_OFF_NODE ? "no core of the port's NUMA node allowed: measured from others"
				 : p->place == PLACE_UNKNOWN ? "the port's NUMA node is not known (a virtual port, or none said): not placed" : "";

		if (p->place == PLACE_NONE)
			continue;
		off += p->place == PLACE_OFF_NODE;
		unknown += p->place == PLACE_UNKNOWN;
		if (!f && !(f = results_append(run->out->dir, "placement.csv", &fresh)))
			break;
		if (fresh)
			csv_header(f, p2p_place_cols, P2P_PLACE_NCOLS);
		fresh = 0;
		csv_row(f, p2p_place_cols, P2P_PLACE_NCOLS, &(struct p2p_place_row){
			.host = w->labels[e], .path = path, .port = p->dev, .numa_node = p->numa, .cpus = p->cpus,
			.placement = nic_place_status_name(p->place), .note = note });
	}
	if (f && results_close(f, run->out->dir, "placement.csv"))
		LOG_WARN("placement.csv could not be written whole");
	for (int e = 0, said = 0; e < w->nep && off; e++)
		if (ports[e].place == PLACE_OFF_NODE && said++ < 4)
			escape_term_line(stdout, "  %s: measured off its port's NUMA node %d on %s (cores %s): the far socket's "
					 "figures", path, ports[e].numa, w->labels[e], ports[e].cpus);
	if (off > 4)
		printf("  %s: %d more endpoints measured off their port's NUMA node (placement.csv)\n", path, off - 4);
	if (unknown)
		printf("  %s: the port's NUMA node is not known on %d endpoint%s: not placed (placement.csv)\n", path, unknown,
		       unknown == 1 ? "" : "s");
}
