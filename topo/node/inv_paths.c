/* inv_paths.c — the paths every later stage tests, and the nodes that differ from the
 * majority. Pure: works on gathered struct inv_node arrays. */
#include <arpa/inet.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inv_probe.h"
#include "inventory.h"

/* ------------------------------------------------------------------ paths */

/* A netdev that can carry TCP between nodes: up, with an address, not loopback; a virtual
 * one (veth, bridge, tunnel) only on a node that has no physical one with an address — a
 * container or a network namespace, whose eth0 is a veth (the emulated cluster's nodes). */
static int tcp_usable(const struct inv_nic *n, int virtual_ok)
{
	return n->netdev[0] && (!n->is_virtual || virtual_ok) && n->kind != INV_KIND_LOOPBACK &&
	       !strcmp(n->netdev_state, "up") && n->ipv4[0];
}

static int virtual_ok(const struct inv_node *node)
{
	for (int i = 0; i < node->nnics; i++)
		if (tcp_usable(&node->nics[i], 0))
			return 0;
	return 1;
}

/* The path name a NIC of node offers ("" none); tcp for its netdev when which == 0, verbs
 * when 1. */
static void nic_path(const struct inv_node *node, const struct inv_nic *n, int which, char *out, int len)
{
	out[0] = 0;
	if (which == 0 && tcp_usable(n, virtual_ok(node)))
		snprintf(out, (size_t)len, "tcp:%s", n->netdev);
	else if (which == 1 && n->device[0] && inv_nic_usable(n))
		snprintf(out, (size_t)len, "verbs:%s:%d", n->device, n->port);
}

/* node's rails (inv_rails) into out, "" when it has none: its GPUs' ports, ',' between */
static void node_rails(const struct inv_node *node, char *out, size_t len)
{
	int seen[INV_NICS_MAX] = { 0 }, k = 0;
	size_t at = 0;

	out[0] = 0;
	for (int g = 0; g < node->ngpus && k <= INV_RAILS_MAX; g++) {
		int i = node->gpus[g].nic;
		char p[INV_PATH_MAX];

		if (i < 0 || i >= node->nnics || seen[i]++)
			return (void)(out[0] = 0); /* a GPU without a NIC, or two on one: no rails */
		nic_path(node, &node->nics[i], 1, p, sizeof p);
		if (!p[0] || at + strlen(p) + 2 >= len)
			return (void)(out[0] = 0);
		at += (size_t)snprintf(out + at, len - at, "%s%s", k++ ? "," : "", p);
	}
	if (k < 3 || k > INV_RAILS_MAX)
		out[0] = 0;
}

int inv_rails(const struct inv_node *nodes, int n, char (*out)[INV_PATH_MAX])
{
	char mine[INV_RAILS_MAX * INV_PATH_MAX], other[sizeof mine];
	int best = -1, votes = 0, count = 0;

	/* the list most nodes have (Boyer-Moore's majority vote, then counted) */
	for (int i = 0; i < n; i++) {
		node_rails(&nodes[i], mine, sizeof mine);
		if (!votes)
			best = i, votes = 1;
		else
			node_rails(&nodes[best], other, sizeof other), votes += strcmp(mine, other) ? -1 : 1;
	}
	if (best < 0)
		return 0;
	node_rails(&nodes[best], other, sizeof other);
	for (int i = 0; other[0] && i < n; i++) {
		node_rails(&nodes[i], mine, sizeof mine);
		count += !strcmp(mine, other);
	}
	if (!other[0] || 2 * count <= n)
		return 0;
	count = 0;
	for (char *save, *t = strtok_r(other, ",", &save); t; t = strtok_r(NULL, ",", &save))
		snprintf(out[count++], INV_PATH_MAX, "%s", t);
	return count;
}

int inv_node_has_path(const struct inv_node *node, const char *path, const char *gpu_path)
{
	char p[INV_PATH_MAX];

	if (!strcmp(path, "mpi"))
		return 1;
	if (gpu_path && !strcmp(path, gpu_path))
		return node->ngpus > 0;
	for (int i = 0; i < node->nnics; i++)
		for (int w = 0; w < 2; w++) {
			nic_path(node, &node->nics[i], w, p, sizeof p);
			if (!strcmp(p, path))
				return 1;
		}
	return 0;
}

/* "10.0.0.0/24" of a NIC's address, "" when it has none. */
static void subnet_of(const struct inv_nic *n, char *out, int len)
{
	struct in_addr a;
	uint32_t mask;

	out[0] = 0;
	if (!n->ipv4[0] || n->ipv4_prefix < 0 || n->ipv4_prefix > 32 || inet_pton(AF_INET, n->ipv4, &a) != 1)
		return;
	mask = n->ipv4_prefix ? htonl(~0u << (32 - n->ipv4_prefix)) : 0;
	a.s_addr &= mask;
	inet_ntop(AF_INET, &a, out, (socklen_t)len);
	snprintf(out + strlen(out), (size_t)(len - (int)strlen(out)), "/%d", n->ipv4_prefix);
}

static int path_add(struct inv_path *out, int np, int max, const char *name, int kind,
		    const char *subnet, double rate)
{
	for (int i = 0; i < np; i++)
		if (!strcmp(out[i].name, name)) {
			out[i].nnodes++;
			if (subnet && strcmp(out[i].subnet, subnet))
				out[i].subnet_differs = 1;
			if (rate > out[i].rate_gbps || isnan(out[i].rate_gbps))
				out[i].rate_gbps = rate;
			return np;
		}
	if (np >= max)
		return np;
	memset(&out[np], 0, sizeof out[np]);
	snprintf(out[np].name, sizeof out[np].name, "%s", name);
	out[np].kind = kind;
	out[np].nnodes = 1;
	out[np].rate_gbps = rate;
	snprintf(out[np].subnet, sizeof out[np].subnet, "%s", subnet ? subnet : "");
	return np + 1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* tcp path p: does an address occur on two nodes? */
static int addr_shared(const struct inv_node *nodes, int n, const char *path)
{
	const char **a = malloc(sizeof *a * (size_t)(n > 0 ? n : 1));
	char q[INV_PATH_MAX];
	int k = 0, dup = 0;

	if (!a)
		return 0;
	for (int j = 0; j < n; j++)
		for (int i = 0; i < nodes[j].nnics; i++) {
			nic_path(&nodes[j], &nodes[j].nics[i], 0, q, sizeof q);
			if (!strcmp(q, path)) {
				a[k++] = nodes[j].nics[i].ipv4;
				break;
			}
		}
	qsort(a, (size_t)k, sizeof *a, cmp_str);
	for (int i = 1; i < k && !dup; i++)
		dup = !strcmp(a[i - 1], a[i]);
	free(a);
	return dup;
}

int inv_paths(const struct inv_node *nodes, int n, const char *gpu_path, struct inv_path *out, int max)
{
	char p[INV_PATH_MAX], sub[24];
	int np = 0;

	for (int k = 0; k < n; k++)
		np = path_add(out, np, max, "mpi", INV_KIND_UNKNOWN, NULL, NAN);
	/* tcp paths first, then verbs, each in the order the nodes list them */
	for (int w = 0; w < 2; w++)
		for (int k = 0; k < n; k++)
			for (int i = 0; i < nodes[k].nnics; i++) {
				const struct inv_nic *nic = &nodes[k].nics[i];

				nic_path(&nodes[k], nic, w, p, sizeof p);
				subnet_of(nic, sub, sizeof sub);
				if (p[0])
					np = path_add(out, np, max, p,
						      /* tcp: the netdev's own kind (ethernet, ipoib) */
						      w == 0 ? inv_kind_netdev(nic->kind) : nic->kind,
						      w == 0 ? sub : NULL, nic->rate_gbps);
			}
	for (int k = 0; gpu_path && k < n; k++)
		if (inv_node_has_path(&nodes[k], gpu_path, gpu_path))
			np = path_add(out, np, max, gpu_path, INV_KIND_UNKNOWN, NULL, NAN);
	for (int i = 0; i < np; i++)
		out[i].addr_shared = !strncmp(out[i].name, "tcp:", 4) && addr_shared(nodes, n, out[i].name);
	return np;
}

int inv_paths_default(const struct inv_path *p, int np, int nnodes, int *take, char (*why)[INV_WHY_MAX])
{
	double fastest = 0;
	int k = 0;

	for (int i = 0; i < np; i++)
		if ((!strncmp(p[i].name, "tcp:", 4) || !strncmp(p[i].name, "verbs:", 6)) && p[i].rate_gbps > fastest)
			fastest = p[i].rate_gbps;
	for (int i = 0; i < np; i++) {
		int tcp = !strncmp(p[i].name, "tcp:", 4), verbs = !strncmp(p[i].name, "verbs:", 6);

		take[i] = 0;
		why[i][0] = 0;
		if (!strcmp(p[i].name, "nccl"))
			snprintf(why[i], INV_WHY_MAX, "measured by the collectives stage");
		else if ((tcp || verbs) && 2 * p[i].nnodes <= nnodes)
			snprintf(why[i], INV_WHY_MAX, "on %d of %d nodes only", p[i].nnodes, nnodes);
		else if (tcp && p[i].kind == INV_KIND_LOOPBACK)
			snprintf(why[i], INV_WHY_MAX, "loopback");
		else if (tcp && p[i].addr_shared)
			snprintf(why[i], INV_WHY_MAX, "two nodes hold the same address on it: a node-local network");
		else if (tcp && p[i].rate_gbps <= 1 && fastest >= 10 * p[i].rate_gbps)
			snprintf(why[i], INV_WHY_MAX, "%g Gb/s beside a %g Gb/s path: a management network",
				 p[i].rate_gbps, fastest);
		else if (!strcmp(p[i].name, "mpi") || tcp || verbs)
			take[i] = 1;
		else
			snprintf(why[i], INV_WHY_MAX, "not a point-to-point path");
		k += take[i];
	}
	return k;
}

/* ------------------------------------------------------------------ mismatches */

static int vote_cmp(const void *a, const void *b)
{
	const struct inv_vote *x = a, *y = b;
	int c = strcmp(x->v, y->v);

	return c ? c : x->node - y->node;
}

int inv_judge(struct inv_vote *votes, int nv, const char *item, const char *field,
		 struct inv_mismatch *out, int nout, int max)
{
	int best = -1, best_n = 0, best_first = 0, at_best = 0;

	if (nv == 0)
		return nout;
	qsort(votes, (size_t)nv, sizeof *votes, vote_cmp);
	/* runs of equal values; a run's first vote has its lowest node */
	for (int i = 0, j; i < nv; i = j) {
		for (j = i; j < nv && !strcmp(votes[j].v, votes[i].v); j++)
			;
		if (j - i > best_n || (j - i == best_n && votes[i].node < best_first))
			best = i, best_n = j - i, best_first = votes[i].node;
	}
	for (int i = 0, j; i < nv; i = j) {
		for (j = i; j < nv && !strcmp(votes[j].v, votes[i].v); j++)
			;
		at_best += j - i == best_n;
	}
	for (int i = 0; i < nv && nout < max; i++) {
		if (!strcmp(votes[i].v, votes[best].v))
			continue;
		struct inv_mismatch *m = &out[nout++];

		memset(m, 0, sizeof *m);
		m->node = votes[i].node;
		snprintf(m->item, sizeof m->item, "%s", item);
		snprintf(m->field, sizeof m->field, "%s", field);
		snprintf(m->value, sizeof m->value, "%s", votes[i].v);
		snprintf(m->majority, sizeof m->majority, "%s", votes[best].v);
		m->tie = at_best > 1;
	}
	return nout;
}

static const struct inv_nic *nic_find(const struct inv_node *node, const char *label)
{
	char l[INV_PATH_MAX];

	for (int i = 0; i < node->nnics; i++) {
		inv_nic_label(&node->nics[i], l, sizeof l);
		if (!node->nics[i].is_virtual && !strcmp(l, label))
			return &node->nics[i];
	}
	return NULL;
}

/* One field of a NIC, as text ("" when unknown). */
static void nic_field(const struct inv_nic *n, int f, char *out, int len)
{
	switch (f) {
	case 0: snprintf(out, (size_t)len, "%s", n->state); break;
	case 1: isnan(n->rate_gbps) ? (void)(out[0] = 0) : (void)snprintf(out, (size_t)len, "%g", n->rate_gbps); break;
	case 2: n->width < 0 ? (void)(out[0] = 0) : (void)snprintf(out, (size_t)len, "%dX", n->width); break;
	case 3: n->mtu < 0 ? (void)(out[0] = 0) : (void)snprintf(out, (size_t)len, "%d", n->mtu); break;
	default: snprintf(out, (size_t)len, "%s", n->fw_ver); break;
	}
}

static const char *const nic_fields[] = { "state", "rate_Gbps", "width", "mtu_B", "fw_ver" };

static int judge_nic(const struct inv_node *nodes, int n, const char *label, struct inv_vote *votes,
		     struct inv_mismatch *out, int nout, int max)
{
	for (int k = 0; k < n; k++) {
		votes[k].node = k;
		snprintf(votes[k].v, sizeof votes[k].v, "%s", nic_find(&nodes[k], label) ? "yes" : "no");
	}
	nout = inv_judge(votes, n, label, "present", out, nout, max);
	for (int f = 0; f < 5; f++) {
		int nv = 0;

		for (int k = 0; k < n; k++) {
			const struct inv_nic *nic = nic_find(&nodes[k], label);

			if (nic) {
				votes[nv].node = k;
				nic_field(nic, f, votes[nv++].v, INV_NAME_MAX);
			}
		}
		nout = inv_judge(votes, nv, label, nic_fields[f], out, nout, max);
	}
	return nout;
}

int inv_mismatches(const struct inv_node *nodes, int n, const char *gpu_path,
		   struct inv_mismatch *out, int max)
{
	struct inv_vote *votes = calloc((size_t)(n > 0 ? n : 1), sizeof *votes);
	struct inv_path paths[INV_PATHS_MAX];
	char seen[INV_NICS_MAX * 4][INV_PATH_MAX], l[INV_PATH_MAX];
	int nout = 0, nseen = 0, np;

	if (!votes || n < 2) {
		free(votes);
		return n == 1 ? inv_nvl_mismatches(nodes, n, out, 0, max) : 0;
	}
	for (int k = 0; k < n; k++) {
		votes[k].node = k;
		snprintf(votes[k].v, sizeof votes[k].v, "%d", nodes[k].ngpus);
	}
	nout = inv_judge(votes, n, "gpus", "count", out, nout, max);
	for (int k = 0; k < n; k++)
		for (int i = 0; i < nodes[k].nnics; i++) {
			int dup = 0;

			if (nodes[k].nics[i].is_virtual || nodes[k].nics[i].kind == INV_KIND_LOOPBACK)
				continue;
			inv_nic_label(&nodes[k].nics[i], l, sizeof l);
			for (int s = 0; s < nseen && !dup; s++)
				dup = !strcmp(seen[s], l);
			if (dup || nseen == (int)(sizeof seen / sizeof seen[0]))
				continue;
			strcpy(seen[nseen++], l);
			nout = judge_nic(nodes, n, l, votes, out, nout, max);
		}
	np = inv_paths(nodes, n, gpu_path, paths, INV_PATHS_MAX);
	for (int p = 0; p < np; p++) {
		char item[INV_PATH_MAX];

		snprintf(item, sizeof item, "path %.58s", paths[p].name);
		for (int k = 0; k < n; k++) {
			votes[k].node = k;
			strcpy(votes[k].v, inv_node_has_path(&nodes[k], paths[p].name, gpu_path) ? "yes" : "no");
		}
		nout = inv_judge(votes, n, item, "present", out, nout, max);
	}
	free(votes);
	return inv_nvl_mismatches(nodes, n, out, nout, max);
}
