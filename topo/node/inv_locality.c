/* inv_locality.c — GPU↔NIC path classes over the PCI tree, the rail map, and the warnings a
 * node's layout deserves. Pure: works on struct inv_loc_tree, however it was built (from
 * hwloc, or by hand in a test). */
#include <stdio.h>
#include <string.h>

#include "inv_probe.h"

int inv_loc_find(const struct inv_loc_tree *t, const char *pci)
{
	if (!pci || !*pci)
		return -1;
	for (int i = 0; i < t->n; i++)
		if (t->v[i].kind == INV_LOC_DEVICE && !strcmp(t->v[i].pci, pci))
			return i;
	return -1;
}

/* Bridges strictly between device x and its ancestor top. */
static int bridges_below(const struct inv_loc_tree *t, int x, int top)
{
	int n = 0;

	for (x = t->v[x].parent; x >= 0 && x != top; x = t->v[x].parent)
		n += t->v[x].kind == INV_LOC_BRIDGE;
	return n;
}

static int is_ancestor(const struct inv_loc_tree *t, int anc, int x)
{
	for (; x >= 0; x = t->v[x].parent)
		if (x == anc)
			return 1;
	return 0;
}

/* NCCL's rule from the common ancestor: inside one PCIe switch (at most one bridge level on
 * either side: the switch's downstream port) PIX; deeper switch trees PXB; meeting at the
 * host bridge PHB; meeting on the CPU side within one NUMA node NODE; otherwise SYS. */
int inv_loc_class(const struct inv_loc_tree *t, int a, int b)
{
	int lca = a;

	if (a < 0 || b < 0 || a >= t->n || b >= t->n)
		return INV_CLASS_UNKNOWN;
	while (lca >= 0 && !is_ancestor(t, lca, b))
		lca = t->v[lca].parent;
	if (lca < 0)
		return INV_CLASS_UNKNOWN; /* two roots: not one tree */
	switch (t->v[lca].kind) {
	case INV_LOC_DEVICE:
		return INV_PIX; /* the same device (two ports of one function) */
	case INV_LOC_BRIDGE: {
		int da = bridges_below(t, a, lca), db = bridges_below(t, b, lca);

		return da <= 1 && db <= 1 ? INV_PIX : INV_PXB;
	}
	case INV_LOC_HOSTBRIDGE:
		return INV_PHB;
	default:
		if (t->v[lca].numa >= 0)
			return INV_NODE;
		return t->v[a].numa >= 0 && t->v[a].numa == t->v[b].numa ? INV_NODE : INV_SYS;
	}
}

int inv_nic_usable(const struct inv_nic *n)
{
	if (n->is_virtual || n->kind == INV_KIND_LOOPBACK)
		return 0;
	return n->device[0] ? !strcmp(n->state, "active") : !strcmp(n->state, "up");
}

void inv_nic_label(const struct inv_nic *n, char *buf, int len)
{
	if (n->device[0])
		snprintf(buf, (size_t)len, "%s:%d", n->device, n->port);
	else
		snprintf(buf, (size_t)len, "%s", n->netdev);
}

/* Usable NICs placed in the tree: RDMA ports when there are any, else netdevs. */
static int rail_candidates(const struct inv_node *node, int *cand, int *loc)
{
	int nc = 0;

	for (int pass = 0; pass < 2 && nc == 0; pass++)
		for (int i = 0; i < node->nnics; i++) {
			const struct inv_nic *n = &node->nics[i];
			int l = inv_loc_find(&node->loc, n->pci);

			if (inv_nic_usable(n) && l >= 0 && (pass == 1 || n->device[0])) {
				loc[nc] = l;
				cand[nc++] = i;
			}
		}
	return nc;
}

static void rail_warnings(struct inv_node *node, const int *cand, const int *count, int nc)
{
	char a[48], b[48];
	int shared = -1, idle = -1;

	for (int c = 0; c < nc; c++) {
		if (count[c] >= 2 && shared < 0)
			shared = c;
		if (count[c] == 0 && idle < 0)
			idle = c;
	}
	if (shared >= 0 && idle >= 0) {
		inv_nic_label(&node->nics[cand[shared]], a, sizeof a);
		inv_nic_label(&node->nics[cand[idle]], b, sizeof b);
		inv_note(node, "%d GPUs share NIC %s while NIC %s is idle", count[shared], a, b);
	}
	for (int g = 0; g < node->ngpus; g++)
		if (node->gpus[g].path_class == INV_SYS) {
			inv_nic_label(&node->nics[node->gpus[g].nic], a, sizeof a);
			inv_note(node, "GPU %d (%s): nearest usable NIC %s is across the socket (SYS)", g,
				 node->gpus[g].pci, a);
		}
}

/* A physical RDMA port that is not active, or active at fewer lanes than the widest. */
static void port_warnings(struct inv_node *node)
{
	int widest = -1;
	char l[48];

	for (int i = 0; i < node->nnics; i++)
		if (inv_nic_usable(&node->nics[i]) && node->nics[i].device[0] && node->nics[i].width > widest)
			widest = node->nics[i].width;
	for (int i = 0; i < node->nnics; i++) {
		const struct inv_nic *n = &node->nics[i];

		if (!n->device[0])
			continue;
		inv_nic_label(n, l, sizeof l);
		if (!inv_nic_usable(n))
			inv_note(node, "port %s is %s", l, n->state[0] ? n->state : "in an unknown state");
		else if (n->width > 0 && n->width < widest)
			inv_note(node, "port %s runs at %dX while others run at %dX (degraded width)", l,
				 n->width, widest);
	}
}

void inv_locality(struct inv_node *node)
{
	int cand[INV_NICS_MAX], loc[INV_NICS_MAX], count[INV_NICS_MAX] = { 0 };
	int nc = rail_candidates(node, cand, loc);

	for (int g = 0; g < node->ngpus; g++) {
		struct inv_gpu *gpu = &node->gpus[g];
		int gl = inv_loc_find(&node->loc, gpu->pci), best = -1, best_cls = INV_CLASS_UNKNOWN;

		for (int c = 0; c < nc && gl >= 0; c++) {
			int cls = inv_loc_class(&node->loc, gl, loc[c]);

			/* nearest first; among equals the NIC with fewer GPUs, so rails spread */
			if (cls < best_cls || (cls == best_cls && best >= 0 && count[c] < count[best]))
				best = c, best_cls = cls;
		}
		gpu->nic = best >= 0 ? cand[best] : -1;
		gpu->path_class = best >= 0 ? best_cls : INV_CLASS_UNKNOWN;
		if (best >= 0)
			count[best]++;
	}
	if (node->ngpus > 0)
		rail_warnings(node, cand, count, nc);
	port_warnings(node);
}
