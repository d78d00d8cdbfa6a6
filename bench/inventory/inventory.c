/* inventory.c — `fabprobe inventory`: one leader rank per node probes it, rank 0 gathers the
 * inventories (MPI_Gatherv of struct inv_node bytes), writes the CSVs, prints the table and
 * judges the nodes against the majority. Without a launcher it inventories this node (MPI
 * singleton). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "core/mpi_util.h"
#include "core/rjson.h"
#include "core/run.h"
#include "core/world.h"
#include "node/inv_nvml.h"
#include "inv_report.h"
#include "inv_stage.h"

#define MISMATCH_MAX 4096

int inv_expand(const char *pattern, const char *host, int rank, char *out, size_t len)
{
	size_t o = 0;

	for (const char *p = pattern; *p; p++) {
		char num[16];
		const char *add = num;

		if (*p != '%') {
			num[0] = *p, num[1] = 0;
		} else if (p[1] == 'h') {
			add = host, p++;
		} else if (p[1] == 'r') {
			snprintf(num, sizeof num, "%d", rank), p++;
		} else if (p[1] == '%') {
			strcpy(num, "%"), p++;
		} else {
			return FP_EUSAGE;
		}
		if (o + strlen(add) >= len)
			return FP_EUSAGE;
		strcpy(out + o, add);
		o += strlen(add);
	}
	out[o] = 0;
	return 0;
}

/* ------------------------------------------------------------------ probing and gathering */

/* whether the sources name the rank (%r): then every rank is a node of its own, "host/r<rank>" */
static int per_rank(const struct inv_opts *o)
{
	return (o->sysfs_root && strstr(o->sysfs_root, "%r")) || (o->hwloc_xml && strstr(o->hwloc_xml, "%r")) ||
	       (o->nvml_capture && strstr(o->nvml_capture, "%r"));
}

int inventory_leader(const struct world *w, const struct inv_opts *o, char *label, size_t len)
{
	int per = per_rank(o);

	if (label && per && w->size > 1)
		snprintf(label, len, "%.200s/r%d", w->host, w->rank);
	else if (label)
		snprintf(label, len, "%s", w->host);
	if (per)
		return 1;
	for (int r = 0; r < w->rank; r++)
		if (!strcmp(w->hosts[r], w->host))
			return 0;
	return 1;
}

/* The sources as this rank expands them (%h, %r), into ctx (bufs: their text); checked: a
 * directory, a regular file, a directory. 0, or FP_EUSAGE after saying why. */
struct sources { char sysfs[4096], xml[4096], nvml[4096]; };

static int sources_expand(const struct inv_opts *o, const struct world *w, struct inv_probe_ctx *ctx,
			  struct sources *b)
{
	struct stat st;

	*ctx = (struct inv_probe_ctx){ 0 };
	if ((o->sysfs_root && inv_expand(o->sysfs_root, w->host, w->rank, b->sysfs, sizeof b->sysfs)) ||
	    (o->hwloc_xml && inv_expand(o->hwloc_xml, w->host, w->rank, b->xml, sizeof b->xml)) ||
	    (o->nvml_capture && inv_expand(o->nvml_capture, w->host, w->rank, b->nvml, sizeof b->nvml))) {
		LOG_ERROR("--sysfs-root/--hwloc-xml/--nvml-capture: the expanded path is too long");
		return FP_EUSAGE;
	}
	ctx->sysfs_root = o->sysfs_root ? b->sysfs : NULL;
	ctx->hwloc_xml = o->hwloc_xml ? b->xml : NULL;
	ctx->nvml_capture = o->nvml_capture ? b->nvml : NULL;
	if (ctx->sysfs_root && (stat(ctx->sysfs_root, &st) || !S_ISDIR(st.st_mode))) {
		LOG_ERROR("--sysfs-root %s: %s", ctx->sysfs_root, stat(ctx->sysfs_root, &st) ? strerror(errno)
			  : "not a directory");
		return FP_EUSAGE;
	}
	if (ctx->hwloc_xml && (stat(ctx->hwloc_xml, &st) || !S_ISREG(st.st_mode) || access(ctx->hwloc_xml, R_OK))) {
		LOG_ERROR("--hwloc-xml %s: %s", ctx->hwloc_xml, stat(ctx->hwloc_xml, &st) ? strerror(errno)
			  : !S_ISREG(st.st_mode) ? "not a regular file" : "not readable");
		return FP_EUSAGE;
	}
	if (o->k8s_nodes && w->rank == 0 && (stat(o->k8s_nodes, &st) || !S_ISREG(st.st_mode))) {
		LOG_ERROR("--k8s-nodes %s: %s", o->k8s_nodes, stat(o->k8s_nodes, &st) ? strerror(errno)
			  : "not a regular file (save `kubectl get nodes -o json` to a file)");
		return FP_EUSAGE;
	}
	if (ctx->nvml_capture && (stat(ctx->nvml_capture, &st) || !S_ISDIR(st.st_mode))) {
		LOG_ERROR("--nvml-capture %s: %s", ctx->nvml_capture, stat(ctx->nvml_capture, &st) ? strerror(errno)
			  : "not a directory");
		return FP_EUSAGE;
	}
	return 0;
}

int inventory_check(struct world *w, void *arg)
{
	struct inv_probe_ctx ctx;
	struct sources b;
	int rc = sources_expand(arg, w, &ctx, &b);

	if (MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD))
		rc = FP_ERUNTIME;
	return rc;
}

static int probe_here(const struct inv_opts *o, const struct world *w, struct inv_node *node)
{
	char lib[MPI_MAX_LIBRARY_VERSION_STRING], err[512];
	struct inv_probe_ctx ctx;
	struct sources b;
	int len = 0;

	if (sources_expand(o, w, &ctx, &b))
		return FP_EUSAGE;
	inv_node_init(node);
	inventory_leader(w, o, node->host, sizeof node->host);
	inv_copy(node->hostname, w->hostname, sizeof node->hostname);
	/* a probe that fails on the sources given (a tree with nothing of sysfs, XML hwloc
	 * cannot load) is a usage error: the inventory would be of nothing */
	if (inv_probe_all(&ctx, node) && (ctx.sysfs_root || ctx.hwloc_xml || ctx.nvml_capture)) {
		LOG_ERROR("--sysfs-root %s / --hwloc-xml %s / --nvml-capture %s: unusable (probes missing: %s)",
			  ctx.sysfs_root ? ctx.sysfs_root : "-", ctx.hwloc_xml ? ctx.hwloc_xml : "-",
			  ctx.nvml_capture ? ctx.nvml_capture : "-", node->probes_missing);
		return FP_EUSAGE;
	}
	if (o->nvml_save && inv_expand(o->nvml_save, w->host, w->rank, b.nvml, sizeof b.nvml)) {
		LOG_ERROR("--nvml-save: the expanded path is too long");
		return FP_EUSAGE;
	}
	if (o->nvml_save && inv_nvml_save(b.nvml, node, err, sizeof err)) {
		LOG_ERROR("--nvml-save: %s", err);
		return FP_EUSAGE;
	}
	MPI_Get_library_version(lib, &len);
	lib[strcspn(lib, "\n")] = 0;
	inv_copy(node->mpi_version, lib, sizeof node->mpi_version);
	return 0;
}

/* Rank 0 receives every leader's node, in rank order; *ranks[k] = ranks on node k. Every wait
 * is asleep: a rank done early must not spin while others probe or rank 0 writes. */
static int gather(const struct world *w, int per, const struct inv_node *mine, int leader,
		  struct inv_node **all, int **ranks, int *n)
{
	int *counts = NULL, *displs = NULL, bytes = leader ? (int)sizeof *mine : 0, rc = 0;
	MPI_Request req;

	*all = NULL, *ranks = NULL, *n = 0;
	if (w->rank == 0) {
		counts = calloc((size_t)w->size, sizeof *counts);
		displs = calloc((size_t)w->size, sizeof *displs);
		*ranks = calloc((size_t)w->size, sizeof **ranks);
		*all = calloc((size_t)w->size, sizeof **all);
		if (!counts || !displs || !*ranks || !*all) {
			LOG_ERROR("out of memory gathering %d inventories", w->size);
			rc = FP_ERUNTIME;
		}
	}
	if (mpi_allreduce_sleepy(&rc, MPI_MIN, MPI_COMM_WORLD))
		rc = FP_ERUNTIME;
	if (rc == 0 && !(rc = MPI_RC(MPI_Igather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD, &req))))
		rc = mpi_wait_sleepy(&req, 0);
	for (int r = 0, off = 0; rc == 0 && w->rank == 0 && r < w->size; r++)
		displs[r] = off, off += counts[r];
	if (rc == 0 && !(rc = MPI_RC(MPI_Igatherv(mine, bytes, MPI_BYTE, *all, counts, displs, MPI_BYTE, 0,
						  MPI_COMM_WORLD, &req))))
		rc = mpi_wait_sleepy(&req, 0);
	for (int r = 0; rc == 0 && w->rank == 0 && r < w->size; r++) {
		if (!counts[r])
			continue;
		for (int q = 0; q < w->size; q++)
			(*ranks)[*n] += per ? q == r : !strcmp(w->hosts[q], w->hosts[r]);
		(*n)++;
	}
	free(counts);
	free(displs);
	return rc;
}

/* `kubectl get nodes -o json` (a List of Nodes, or one Node): each node's name and its
 * nvidia.com/gpu.clique label, checked against the domains found (inv_nvl_labels_check). 0, or
 * FP_EUSAGE after naming the file and what is wrong with it. */
static int k8s_cliques(const char *file, const struct inv_node *nodes, int n, struct inv_mismatch *mm, int *nmm)
{
	struct rjson doc;
	const struct rjson *items, *one[1];
	const char **host = NULL, **label = NULL;
	char err[256];
	int rc = rjson_load(file, 256u << 20, &doc, err, sizeof err), count;

	if (rc) {
		LOG_ERROR("--k8s-nodes %s: %s", file, rc == 1 ? "no such file" : err);
		return rc == FP_ERUNTIME ? rc : FP_EUSAGE;
	}
	items = rjson_get(&doc, "items");
	one[0] = &doc;
	count = items && items->type == RJSON_ARR ? items->n : rjson_get(&doc, "metadata") ? 1 : 0;
	if (!count && !(items && items->type == RJSON_ARR)) {
		LOG_ERROR("--k8s-nodes %s: neither a List of Nodes (items) nor a Node (metadata): "
			  "`kubectl get nodes -o json` writes one", file);
		rjson_free(&doc);
		return FP_EUSAGE;
	}
	host = calloc((size_t)count + 1, sizeof *host);
	label = calloc((size_t)count + 1, sizeof *label);
	for (int i = 0; host && label && i < count; i++) {
		const struct rjson *node = items && items->type == RJSON_ARR ? &items->item[i] : one[0];
		const struct rjson *meta = rjson_get(node, "metadata");

		host[i] = rjson_str(rjson_get(meta, "name"));
		label[i] = rjson_str(rjson_get(rjson_get(meta, "labels"), "nvidia.com/gpu.clique"));
		if (!host[i]) {
			LOG_ERROR("--k8s-nodes %s: item %d has no metadata.name", file, i);
			rc = FP_EUSAGE;
			break;
		}
	}
	if (!host || !label)
		rc = FP_ERUNTIME;
	if (!rc)
		*nmm = inv_nvl_labels_check(nodes, n, host, label, count, mm, *nmm, MISMATCH_MAX);
	free(host);
	free(label);
	rjson_free(&doc);
	return rc;
}

/* Rank 0: the paths, the mismatches, the files and the table. Returns 0, 1 (mismatch) or a
 * negative code. */
static int report(const struct inv_opts *o, const struct run_out *ro, const struct inv_node *nodes,
		  const int *ranks, int n, struct inv_path *paths, int *npaths, const char *label)
{
	struct inv_mismatch *mm = calloc(MISMATCH_MAX, sizeof *mm);
	struct inv_report r = { .dir = ro->dir, .run_id = ro->run_id, .tee = &ro->tee, .nodes = nodes, .ranks = ranks,
				.n = n, .paths = paths, .label = label };
	int rc;

	if (!mm) {
		LOG_ERROR("out of memory");
		return FP_ERUNTIME;
	}
	r.npaths = *npaths = inv_paths(nodes, n, o->gpu_path, paths, INV_PATHS_MAX);
	r.nmm = inv_mismatches(nodes, n, o->gpu_path, mm, MISMATCH_MAX);
	if (o->k8s_nodes && (rc = k8s_cliques(o->k8s_nodes, nodes, n, mm, &r.nmm)) != 0) {
		free(mm);
		return rc;
	}
	r.mm = mm;
	rc = inv_report_write(&r);
	inv_report_print(stdout, &r);
	fflush(stdout);
	free(mm);
	return rc ? rc : r.nmm > 0;
}

/* rank 0: the nodes' NVLink domains into found, when some node is in one */
static void domains_keep(const struct inv_node *all, int n, struct inv_found *found)
{
	int any = 0;

	for (int k = 0; k < n && !any; k++) {
		char d[64];

		inv_node_domain(&all[k], d, sizeof d);
		any = d[0] != 0;
	}
	if (!any || !(found->host = calloc((size_t)n, sizeof *found->host)) ||
	    !(found->domain = calloc((size_t)n, sizeof *found->domain))) {
		inv_found_free(found);
		return;
	}
	for (int k = 0; k < n; k++) {
		memcpy(found->host[k], all[k].host, INV_HOST_MAX);
		inv_node_domain(&all[k], found->domain[k], sizeof found->domain[k]);
	}
}

void inv_found_free(struct inv_found *f)
{
	free(f->host);
	free(f->domain);
	f->host = NULL;
	f->domain = NULL;
}

/* found: run's (it hands it in; its own verdict comes at its end, so the stage's summary says
 * "inventory:"), or NULL for the inventory command, whose verdict it is */
int inventory_run(struct world *w, struct run_out *ro, const struct inv_opts *o, struct inv_found *found)
{
	struct inv_path own[INV_PATHS_MAX];
	struct inv_node *mine = NULL, *all = NULL;
	int *ranks = NULL, n = 0, np = 0, per = per_rank(o), leader = inventory_leader(w, o, NULL, 0), rc = 0;

	if (leader && !(mine = malloc(sizeof *mine)))
		rc = FP_ERUNTIME;
	if (rc == 0 && leader)
		rc = probe_here(o, w, mine);
	if (mpi_allreduce_sleepy(&rc, MPI_MIN, MPI_COMM_WORLD))
		rc = FP_ERUNTIME;
	if (rc == 0)
		rc = gather(w, per, mine, leader, &all, &ranks, &n);
	if (rc == 0 && w->rank == 0)
		rc = report(o, ro, all, ranks, n, found ? found->paths : own, &np, found ? "inventory" : NULL);
	if (found) {
		found->np = np;
		found->nnodes = n;
		found->nrails = rc >= 0 && w->rank == 0 ? inv_rails(all, n, found->rails) : 0;
		if (rc >= 0 && w->rank == 0)
			domains_keep(all, n, found);
	}
	free(mine);
	free(all);
	free(ranks);
	/* the stage ends when rank 0 has written: the next one starts with every rank there, none
	 * of them having spun meanwhile */
	if (mpi_barrier_sleepy(MPI_COMM_WORLD) && rc >= 0)
		rc = FP_ERUNTIME;
	return rc;
}

int inventory_stage(struct world *w, struct run_out *ro, void *arg)
{
	return inventory_run(w, ro, arg, NULL);
}
