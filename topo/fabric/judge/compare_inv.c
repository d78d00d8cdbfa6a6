/* compare_inv.c — the inventories of two runs compared, node by node and NIC by NIC
 * (compare.h's cmp_inventory). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "core/log.h"
#include "fabric/io/inv_csv.h"

/* ---------------------------------------------------------------- inventory */

static void inv_num(cmp_sink sink, void *ctx, struct cmp_item *it, const char *metric, double a, double b)
{
	it->metric = metric;
	it->before = a;
	it->after = b;
	it->before_s = it->after_s = NULL;
	if (isnan(a) && isnan(b))
		return;
	it->cls = cmp_classify(a, b, 1, 0, &it->change_pct);
	sink(ctx, it);
}

static void inv_text(cmp_sink sink, void *ctx, struct cmp_item *it, const char *metric, const char *a, const char *b)
{
	it->metric = metric;
	it->before = it->after = it->change_pct = NAN;
	it->before_s = a;
	it->after_s = b;
	it->cls = strcmp(a, b) ? CMP_CHANGED : CMP_SAME;
	sink(ctx, it);
}

/* One run's nodes and NICs sorted, to find one by name in O(log n) (a scan per node made
 * 16,384 nodes take 8 s). */
struct inv_index {
	const struct rundir *rd;
	int *node;        /* nodes by host */
	int *nic_at;      /* NICs by host, then file order: a host's NICs as listed */
	int *nic;         /* NICs by host, then name, then file order */
};

struct inv_sort {
	const struct rundir *rd;
	int how;          /* 0 nodes by host; 1 NICs by host, file order; 2 NICs by host, name */
};

static int inv_sort_cmp(const void *p, const void *q, void *ctx)
{
	const struct inv_sort *s = ctx;
	char *const *t = s->rd->tab.str;
	int i = *(const int *)p, j = *(const int *)q, c;

	if (s->how == 0)
		return strcmp(t[s->rd->node[i].host], t[s->rd->node[j].host]);
	c = strcmp(t[s->rd->nic[i].host], t[s->rd->nic[j].host]);
	if (!c && s->how == 2)
		c = strcmp(t[s->rd->nic[i].name], t[s->rd->nic[j].name]);
	return c ? c : i - j; /* then file order: the first of a name is found first, as a scan did */
}

static void inv_index_free(struct inv_index *ix)
{
	free(ix->node);
	free(ix->nic_at);
	free(ix->nic);
}

static int *inv_sorted(const struct rundir *rd, int how, int n)
{
	struct inv_sort s = { rd, how };
	int *v = malloc(sizeof *v * (size_t)(n + 1));

	for (int i = 0; v && i < n; i++)
		v[i] = i;
	if (v && n)
		qsort_r(v, (size_t)n, sizeof *v, inv_sort_cmp, &s);
	return v;
}

static int inv_index_build(const struct rundir *rd, struct inv_index *ix)
{
	*ix = (struct inv_index){ .rd = rd, .node = inv_sorted(rd, 0, rd->nnode), .nic_at = inv_sorted(rd, 1, rd->nnic),
				  .nic = inv_sorted(rd, 2, rd->nnic) };
	if (ix->node && ix->nic_at && ix->nic)
		return 0;
	inv_index_free(ix);
	return FP_ERUNTIME;
}

/* The first place in v (n entries, sorted by host first) whose host is not below host; with
 * name (how 2), whose (host, name) is not below. */
static int inv_lower(const struct inv_index *ix, const int *v, int n, int nodes, const char *host, const char *name)
{
	char *const *t = ix->rd->tab.str;
	int lo = 0, hi = n;

	while (lo < hi) {
		int mid = (lo + hi) / 2, c;

		if (nodes) {
			c = strcmp(t[ix->rd->node[v[mid]].host], host);
		} else {
			c = strcmp(t[ix->rd->nic[v[mid]].host], host);
			if (!c && name)
				c = strcmp(t[ix->rd->nic[v[mid]].name], name);
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const struct rd_node *node_find(const struct inv_index *ix, const char *host)
{
	int k = inv_lower(ix, ix->node, ix->rd->nnode, 1, host, NULL);

	return k < ix->rd->nnode && !strcmp(ix->rd->tab.str[ix->rd->node[ix->node[k]].host], host)
		       ? &ix->rd->node[ix->node[k]] : NULL;
}

static const struct rd_nic *nic_find(const struct inv_index *ix, const char *host, const char *name)
{
	int k = inv_lower(ix, ix->nic, ix->rd->nnic, 0, host, name);
	const struct rd_nic *n = k < ix->rd->nnic ? &ix->rd->nic[ix->nic[k]] : NULL;

	return n && !strcmp(ix->rd->tab.str[n->host], host) && !strcmp(ix->rd->tab.str[n->name], name) ? n : NULL;
}

static int nic_counts(const struct rundir *rd, const struct rd_nic *n)
{
	return !n->is_virtual && strcmp(rd->tab.str[n->kind], "loopback");
}

/* The NICs of host that either run has: matched by name, each run's in its file order. */
static void inv_nics(const struct inv_index *ix, const char *host, cmp_sink sink, void *ctx)
{
	for (int side = 0; side < 2; side++) {
		const struct inv_index *pi = &ix[side], *qi = &ix[!side];
		const struct rundir *p = pi->rd, *q = qi->rd, *a = ix[0].rd, *b = ix[1].rd;

		for (int k = inv_lower(pi, pi->nic_at, p->nnic, 0, host, NULL);
		     k < p->nnic && !strcmp(p->tab.str[p->nic[pi->nic_at[k]].host], host); k++) {
			const struct rd_nic *x = &p->nic[pi->nic_at[k]];
			const char *name = p->tab.str[x->name];

			if (!nic_counts(p, x))
				continue;
			const struct rd_nic *y = nic_find(qi, host, name);
			struct cmp_item it = { .kind = CMP_INV, .path = "", .src = host, .dst = name, .size = -1,
					       .retest = NAN, .change_pct = NAN, .tol_pct = NAN };

			if (side && y && nic_counts(q, y))
				continue;
			if (!y || !nic_counts(q, y)) {
				it.metric = "nic";
				it.before = it.after = NAN;
				cmp_one_side(&it, !side);
				sink(ctx, &it);
				continue;
			}
			it.metric = inv_csv_nic_cols[INV_CSV_NIC_STATE].name;
			it.before = it.after = NAN;
			it.before_s = x->up ? "up" : "down";
			it.after_s = y->up ? "up" : "down";
			it.cls = x->up == y->up ? CMP_SAME : y->up ? CMP_BETTER : CMP_WORSE;
			sink(ctx, &it);
			inv_num(sink, ctx, &it, inv_csv_nic_cols[INV_CSV_NIC_RATE].name, x->rate, y->rate);
			inv_num(sink, ctx, &it, inv_csv_nic_cols[INV_CSV_NIC_WIDTH].name, x->width, y->width);
			inv_num(sink, ctx, &it, inv_csv_nic_cols[INV_CSV_NIC_MTU].name, x->mtu, y->mtu);
			inv_text(sink, ctx, &it, inv_csv_nic_cols[INV_CSV_NIC_FW_VER].name, a->tab.str[x->fw], b->tab.str[y->fw]);
		}
	}
}

int cmp_inventory(const struct rundir *base, const struct rundir *cur, cmp_sink sink, void *ctx)
{
	struct inv_index ix[2];

	if (inv_index_build(base, &ix[0]))
		return FP_ERUNTIME;
	if (inv_index_build(cur, &ix[1])) {
		inv_index_free(&ix[0]);
		return FP_ERUNTIME;
	}
	for (int side = 0; side < 2; side++) {
		const struct rundir *p = side ? cur : base;

		for (int i = 0; i < p->nnode; i++) {
			const char *host = p->tab.str[p->node[i].host];
			const struct rd_node *x = &p->node[i], *y = node_find(&ix[!side], host);
			struct cmp_item it = { .kind = CMP_INV, .path = "", .src = host, .dst = "", .size = -1,
					       .retest = NAN, .change_pct = NAN, .tol_pct = NAN };

			if (side && y)
				continue;
			if (!y) {
				it.metric = "node";
				it.before = it.after = NAN;
				cmp_one_side(&it, !side);
				sink(ctx, &it);
				continue;
			}
			const struct csv_col *nc = inv_csv_node_cols;
			inv_num(sink, ctx, &it, nc[INV_CSV_NODE_GPUS].name, x->gpus < 0 ? NAN : (double)x->gpus,
				y->gpus < 0 ? NAN : (double)y->gpus);
			inv_num(sink, ctx, &it, nc[INV_CSV_NODE_NICS].name, x->nics < 0 ? NAN : (double)x->nics,
				y->nics < 0 ? NAN : (double)y->nics);
			inv_text(sink, ctx, &it, nc[INV_CSV_NODE_KERNEL].name, base->tab.str[x->kernel], cur->tab.str[y->kernel]);
			inv_text(sink, ctx, &it, nc[INV_CSV_NODE_MPI_VERSION].name, base->tab.str[x->mpi], cur->tab.str[y->mpi]);
			inv_nics(ix, host, sink, ctx);
		}
	}
	inv_index_free(&ix[0]);
	inv_index_free(&ix[1]);
	return 0;
}
