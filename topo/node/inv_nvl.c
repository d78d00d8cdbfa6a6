/* inv_nvl.c — NVLink domains and the fabric's checks, from NVML's answers for each GPU
 * (inv_nvml.h). NCCL uses a multi-node NVLink domain only when every GPU of it finished its
 * fabric registration with a non-zero cluster UUID; a scheduler keeps a job inside one domain
 * (Slurm's topology/block, Kubernetes' nvidia.com/gpu.clique). So a node whose GPUs did not
 * register, sit in two cliques, report a zero UUID where the others have one, or a degraded
 * fabric, and a domain with fewer nodes than its peers, are each a mismatch. Pure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inv_nvml.h"
#include "inv_probe.h"

void inv_node_domain(const struct inv_node *node, char *out, size_t len)
{
	char d[64];

	out[0] = 0;
	for (int g = 0; g < node->ngpus; g++) {
		inv_gpu_domain(&node->gpus[g].nv, d, sizeof d);
		if (!d[0] || (out[0] && strcmp(out, d))) {
			out[0] = 0;
			return;
		}
		snprintf(out, len, "%s", d);
	}
}

/* "7d1e53a4….32766": a domain named short enough for a mismatch's item */
static void domain_short(const char *d, char *out, size_t len)
{
	const char *dot = strrchr(d, '.');

	snprintf(out, len, "nvlink domain %.8s..%s", d, dot ? dot + 1 : "");
}

static int add(struct inv_mismatch *out, int nout, int max, int node, const char *item, const char *field,
	       const char *value, const char *expect)
{
	if (nout >= max)
		return nout;
	memset(&out[nout], 0, sizeof out[nout]);
	out[nout].node = node;
	snprintf(out[nout].item, sizeof out[nout].item, "%s", item);
	snprintf(out[nout].field, sizeof out[nout].field, "%s", field);
	snprintf(out[nout].value, sizeof out[nout].value, "%s", value);
	snprintf(out[nout].majority, sizeof out[nout].majority, "%s", expect);
	return nout + 1;
}

/* "GPU 3", "GPUs 3,5", "GPUs 0,1,2,3,…": the GPUs of mask */
static void gpus_text(unsigned mask, char *out, size_t len)
{
	size_t used = (size_t)snprintf(out, len, "GPU%s ", mask & (mask - 1) ? "s" : "");

	for (int g = 0, k = 0; g < INV_GPUS_MAX && used < len; g++) {
		if (!(mask & (1u << g)))
			continue;
		if (k < 4)
			used += (size_t)snprintf(out + used, len - used, "%s%d", k ? "," : "", g);
		else if (k == 4)
			used += (size_t)snprintf(out + used, len - used, ",…");
		k++;
	}
}

/* the node's own checks: registration, its status, a zero UUID, cliques, health */
static int node_checks(const struct inv_node *node, int k, int uuid_elsewhere, struct inv_mismatch *out,
		       int nout, int max)
{
	unsigned pending = 0, failed = 0, zero = 0, unhealthy = 0;
	char doms[INV_GPUS_MAX][64], v[128], gl[24], health[96] = "", h[96];
	int ndom = 0, state = INV_FABRIC_COMPLETED, status = 0;

	for (int g = 0; g < node->ngpus; g++) {
		const struct inv_gpu_nvml *nv = &node->gpus[g].nv;
		int dup = 0;

		if (nv->fabric == INV_FABRIC_NOT_STARTED || nv->fabric == INV_FABRIC_IN_PROGRESS)
			pending |= 1u << g, state = nv->fabric;
		if (nv->fabric == INV_FABRIC_COMPLETED && nv->fabric_status != 0)
			failed |= 1u << g, status = nv->fabric_status;
		if (nv->fabric == INV_FABRIC_COMPLETED && nv->fabric_status == 0 && inv_uuid_zero(nv->cluster_uuid) &&
		    uuid_elsewhere)
			zero |= 1u << g;
		inv_fabric_health(nv, h, sizeof h);
		if (h[0] && strcmp(h, "ok"))
			unhealthy |= 1u << g, snprintf(health, sizeof health, "%s", h);
		inv_gpu_domain(nv, doms[ndom], sizeof doms[ndom]);
		for (int i = 0; i < ndom && !dup; i++)
			dup = !strcmp(doms[i], doms[ndom]);
		ndom += doms[ndom][0] && !dup;
	}
	if (pending) {
		gpus_text(pending, gl, sizeof gl);
		snprintf(v, sizeof v, "%s %s", inv_fabric_name(state), gl);
		nout = add(out, nout, max, k, "nvlink fabric", "registration", v, "completed");
	}
	if (failed) {
		gpus_text(failed, gl, sizeof gl);
		snprintf(v, sizeof v, "error %d %s", status, gl);
		nout = add(out, nout, max, k, "nvlink fabric", "registration_status", v, "0");
	}
	if (zero) {
		gpus_text(zero, gl, sizeof gl);
		snprintf(v, sizeof v, "zero %s", gl);
		nout = add(out, nout, max, k, "nvlink fabric", "cluster_uuid", v, "set");
	}
	if (ndom > 1) {
		snprintf(v, sizeof v, "%d", ndom);
		nout = add(out, nout, max, k, "nvlink domain", "cliques", v, "1");
	}
	if (unhealthy) {
		gpus_text(unhealthy, gl, sizeof gl);
		snprintf(v, sizeof v, "%.20s %s", health, gl);
		nout = add(out, nout, max, k, "nvlink fabric", "fabric_health", v, "ok");
	}
	return nout;
}

static int int_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* the most frequent of v[0..n) (sorted here), ties to the larger */
static int mode(int *v, int n)
{
	int best = v[0], best_n = 0;

	qsort(v, (size_t)n, sizeof *v, int_cmp);
	for (int i = 0, j; i < n; i = j) {
		for (j = i; j < n && v[j] == v[i]; j++)
			;
		if (j - i >= best_n)
			best = v[i], best_n = j - i;
	}
	return best;
}

/* a GPU with fewer active NVLinks than GPUs of its kind have; a domain smaller than its peers */
static int fleet_checks(const struct inv_node *nodes, int n, struct inv_mismatch *out, int nout, int max)
{
	int ngpu = 0, *up = malloc(sizeof *up * ((size_t)n * INV_GPUS_MAX + 1)), common, ndom = 0;
	char (*dom)[64] = malloc(sizeof *dom * ((size_t)n + 1)), d[64], item[INV_PATH_MAX], v[INV_NAME_MAX],
	     e[INV_NAME_MAX];
	int *size = calloc((size_t)n + 1, sizeof *size), *first = calloc((size_t)n + 1, sizeof *first);

	if (!up || !dom || !size || !first)
		goto out;
	for (int k = 0; k < n; k++)
		for (int g = 0; g < nodes[k].ngpus; g++)
			if (nodes[k].gpus[g].nv.nvlinks > 0)
				up[ngpu++] = nodes[k].gpus[g].nv.nvlinks_up;
	common = ngpu ? mode(up, ngpu) : 0;
	for (int k = 0; k < n; k++)
		for (int g = 0; g < nodes[k].ngpus; g++) {
			const struct inv_gpu_nvml *nv = &nodes[k].gpus[g].nv;

			if (nv->nvlinks <= 0 || nv->nvlinks_up >= common)
				continue;
			snprintf(item, sizeof item, "GPU %d %.40s", g, nodes[k].gpus[g].pci);
			snprintf(v, sizeof v, "%d of %d", nv->nvlinks_up, nv->nvlinks);
			snprintf(e, sizeof e, "%d", common);
			nout = add(out, nout, max, k, item, "nvlinks_up", v, e);
		}
	for (int k = 0; k < n; k++) {
		int i = 0;

		inv_node_domain(&nodes[k], d, sizeof d);
		if (!d[0])
			continue;
		while (i < ndom && strcmp(dom[i], d))
			i++;
		if (i == ndom)
			strcpy(dom[ndom], d), first[ndom++] = k;
		size[i]++;
	}
	if (ndom > 1) {
		int *s = malloc(sizeof *s * (size_t)ndom);

		if (!s)
			goto out;
		memcpy(s, size, sizeof *s * (size_t)ndom);
		common = mode(s, ndom);
		free(s);
		for (int i = 0; i < ndom; i++) {
			if (size[i] >= common)
				continue;
			domain_short(dom[i], item, sizeof item);
			snprintf(v, sizeof v, "%d node%s", size[i], size[i] == 1 ? "" : "s");
			snprintf(e, sizeof e, "%d node%s", common, common == 1 ? "" : "s");
			nout = add(out, nout, max, first[i], item, "nodes", v, e);
		}
	}
out:
	free(up);
	free(dom);
	free(size);
	free(first);
	return nout;
}

int inv_nvl_mismatches(const struct inv_node *nodes, int n, struct inv_mismatch *out, int nout, int max)
{
	int uuid_set = 0;

	for (int k = 0; k < n; k++)
		for (int g = 0; g < nodes[k].ngpus; g++)
			uuid_set |= nodes[k].gpus[g].nv.fabric == INV_FABRIC_COMPLETED &&
				    !inv_uuid_zero(nodes[k].gpus[g].nv.cluster_uuid);
	for (int k = 0; k < n; k++)
		nout = node_checks(&nodes[k], k, uuid_set, out, nout, max);
	return fleet_checks(nodes, n, out, nout, max);
}

void inv_nvl_summary(const struct inv_node *nodes, int n, char *out, size_t len)
{
	int unsupported = 0, read = 0, ndom = 0, in_dom = 0;
	char d[64], prev[16][64];

	out[0] = 0;
	for (int k = 0; k < n; k++) {
		int dup = 0;

		for (int g = 0; g < nodes[k].ngpus; g++) {
			read += nodes[k].gpus[g].nv.fabric != INV_FABRIC_UNREAD;
			unsupported += nodes[k].gpus[g].nv.fabric == INV_FABRIC_NOT_SUPPORTED;
		}
		inv_node_domain(&nodes[k], d, sizeof d);
		if (!d[0])
			continue;
		in_dom++;
		for (int i = 0; i < ndom && i < 16 && !dup; i++)
			dup = !strcmp(prev[i], d);
		if (!dup && ndom < 16)
			strcpy(prev[ndom], d);
		ndom += !dup;
	}
	if (!read)
		return;
	if (!ndom)
		snprintf(out, len, "NVLink domains: none (%s)", unsupported == read
			 ? "the GPUs do not support NVLink fabric registration: one node is its own NVLink domain"
			 : "no node's GPUs all registered into one");
	else
		snprintf(out, len, "NVLink domains: %d%s, %d of %d nodes in one", ndom, ndom > 16 ? " or more" : "",
			 in_dom, n);
}

/* "7d1e53a4..32766": a domain short enough for a mismatch's value */
static void value_short(const char *d, char *out, size_t len)
{
	const char *dot = strrchr(d, '.');

	if (!d[0])
		snprintf(out, len, "none");
	else if (!dot || strlen(d) < 24)
		snprintf(out, len, "%.30s", d);
	else
		snprintf(out, len, "%.8s..%.12s", d, dot + 1);
}

struct labelled {
	const char *host, *label;
};

static int labelled_cmp(const void *a, const void *b)
{
	return strcmp(((const struct labelled *)a)->host, ((const struct labelled *)b)->host);
}

int inv_nvl_labels_check(const struct inv_node *nodes, int n, const char *const *host, const char *const *label,
			 int nlabels, struct inv_mismatch *out, int nout, int max)
{
	struct labelled *by = malloc(sizeof *by * ((size_t)nlabels + 1)), key, *hit;

	if (!by)
		return nout;
	for (int i = 0; i < nlabels; i++)
		by[i] = (struct labelled){ host[i], label[i] };
	qsort(by, (size_t)nlabels, sizeof *by, labelled_cmp);
	for (int k = 0; k < n; k++) {
		char d[64], v[INV_NAME_MAX], e[INV_NAME_MAX];

		key.host = nodes[k].host;
		if (!(hit = bsearch(&key, by, (size_t)nlabels, sizeof *by, labelled_cmp)))
			continue; /* a node the file does not list: nothing to compare */
		inv_node_domain(&nodes[k], d, sizeof d);
		if (!strcmp(d, hit->label ? hit->label : ""))
			continue;
		if (hit->label)
			value_short(hit->label, v, sizeof v);
		else
			snprintf(v, sizeof v, "absent");
		value_short(d, e, sizeof e);
		nout = add(out, nout, max, k, "k8s label nvidia.com/gpu.clique", "value", v, e);
	}
	free(by);
	return nout;
}
