/* inv_hwloc.c — the hwloc probe (compiled only with hwloc): CPU model and counts, NUMA
 * memory, GPUs from PCI objects (class 0x0300/0x0302, NVIDIA or AMD: no CUDA needed), and
 * the PCI tree above GPUs and NICs for the locality analysis. Loads the running machine, or
 * an XML export (`lstopo --of xml`) given as ctx->hwloc_xml. */
#include <errno.h>
#include <hwloc.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/log.h"
#include "inv_nvml.h"
#include "inv_probe.h"

#define PCI_VENDOR_NVIDIA 0x10de
#define PCI_VENDOR_AMD 0x1002

struct hw_tree {
	struct inv_loc_tree *t;
	hwloc_obj_t obj[INV_LOC_MAX]; /* the hwloc object of each tree entry */
};

static void pci_addr(hwloc_obj_t o, char *out, size_t len)
{
	snprintf(out, len, "%04x:%02x:%02x.%01x", o->attr->pcidev.domain, o->attr->pcidev.bus,
		 o->attr->pcidev.dev, o->attr->pcidev.func);
}

/* The single NUMA node of an object's CPU-side ancestry, -1 when none or several. */
static int obj_numa(hwloc_topology_t topo, hwloc_obj_t o)
{
	hwloc_obj_t a = o->type == HWLOC_OBJ_PCI_DEVICE || o->type == HWLOC_OBJ_BRIDGE
				? hwloc_get_non_io_ancestor_obj(topo, o) : o;

	if (!a || !a->nodeset || hwloc_bitmap_weight(a->nodeset) != 1)
		return -1;
	return hwloc_bitmap_first(a->nodeset);
}

/* Index of o in the tree, adding it and its ancestors first; -1 when the tree is full. */
static int tree_add(hwloc_topology_t topo, struct hw_tree *h, hwloc_obj_t o)
{
	struct inv_loc_node *v;
	int parent = -1;

	for (int i = 0; i < h->t->n; i++)
		if (h->obj[i] == o)
			return i;
	if (o->parent && (parent = tree_add(topo, h, o->parent)) < 0)
		return -1;
	if (h->t->n >= INV_LOC_MAX)
		return -1;
	v = &h->t->v[h->t->n];
	memset(v, 0, sizeof *v);
	v->parent = parent;
	v->numa = obj_numa(topo, o);
	if (o->type == HWLOC_OBJ_PCI_DEVICE) {
		v->kind = INV_LOC_DEVICE;
		pci_addr(o, v->pci, sizeof v->pci);
	} else if (o->type == HWLOC_OBJ_BRIDGE) {
		v->kind = o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST ? INV_LOC_HOSTBRIDGE
										  : INV_LOC_BRIDGE;
	} else {
		v->kind = INV_LOC_CPU;
	}
	h->obj[h->t->n] = o;
	return h->t->n++;
}

static int is_gpu(hwloc_obj_t o)
{
	unsigned cls = o->attr->pcidev.class_id, vendor = o->attr->pcidev.vendor_id;

	return (cls == 0x0300 || cls == 0x0302) && (vendor == PCI_VENDOR_NVIDIA || vendor == PCI_VENDOR_AMD);
}

static void add_gpu(hwloc_topology_t topo, hwloc_obj_t o, struct inv_node *node)
{
	struct inv_gpu *g;
	const char *model = o->name ? o->name : hwloc_obj_get_info_by_name(o, "PCIDevice");

	if (node->ngpus >= INV_GPUS_MAX)
		return;
	g = &node->gpus[node->ngpus++];
	memset(g, 0, sizeof *g);
	if (model)
		snprintf(g->model, sizeof g->model, "%s", model);
	else
		snprintf(g->model, sizeof g->model, "[%04x:%04x]", o->attr->pcidev.vendor_id,
			 o->attr->pcidev.device_id);
	pci_addr(o, g->pci, sizeof g->pci);
	g->numa = obj_numa(topo, o);
	g->nic = -1;
	g->path_class = INV_CLASS_UNKNOWN;
	inv_gpu_nvml_init(&g->nv);
}

/* GPUs and network devices, with the tree above them; NICs learn their NUMA node here when
 * sysfs did not say. */
static void scan_pci(hwloc_topology_t topo, struct inv_node *node)
{
	struct hw_tree h = { .t = &node->loc };
	hwloc_obj_t o = NULL;

	node->loc.n = 0;
	while ((o = hwloc_get_next_pcidev(topo, o))) {
		char pci[INV_PCI_MAX];

		if (is_gpu(o))
			add_gpu(topo, o, node);
		else if (o->attr->pcidev.class_id >> 8 != 0x02) /* network controllers */
			continue;
		if (tree_add(topo, &h, o) < 0) {
			LOG_WARN("hwloc: more than %d objects above GPUs and NICs; locality is partial",
				 INV_LOC_MAX);
			continue;
		}
		pci_addr(o, pci, sizeof pci);
		for (int i = 0; i < node->nnics; i++)
			if (!strcmp(node->nics[i].pci, pci) && node->nics[i].numa < 0)
				node->nics[i].numa = obj_numa(topo, o);
	}
}

static void scan_cpus(hwloc_topology_t topo, struct inv_node *node)
{
	hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0), numa = NULL;
	const char *model = pkg ? hwloc_obj_get_info_by_name(pkg, "CPUModel") : NULL;
	int64_t mem = 0;

	if (!model)
		model = hwloc_obj_get_info_by_name(hwloc_get_root_obj(topo), "CPUModel");
	if (model)
		snprintf(node->cpu_model, sizeof node->cpu_model, "%s", model);
	node->sockets = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
	node->cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
	node->threads = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	node->numa_nodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
	while ((numa = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, numa)))
		mem += (int64_t)numa->attr->numanode.local_memory;
	node->numa_mem_bytes = mem;
}

/* hwloc 2.9 dies (SIGSEGV in hwloc_topology_load) on some malformed XML files that
 * fuzz_inventory made: a file is loaded first in a child process, and only a file the child
 * loaded and freed cleanly is loaded here. 1 when it did; 0 with why. A few milliseconds, only
 * for --hwloc-xml (the running machine's own topology is not checked this way). */
static int xml_loads(const char *xml, char *why, int whylen)
{
	int status;
	pid_t pid = fork();

	if (pid < 0) {
		snprintf(why, (size_t)whylen, "%s: cannot check it (fork: %s)", xml, strerror(errno));
		return 0;
	}
	if (pid == 0) {
		hwloc_topology_t t;
		int ok;

		/* a crash is the answer, not something to report (sanitizer builds catch signals) */
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		signal(SIGFPE, SIG_DFL);
		signal(SIGABRT, SIG_DFL);
		ok = !hwloc_topology_init(&t) && !hwloc_topology_set_xml(t, xml) && !hwloc_topology_load(t);
		hwloc_topology_destroy(t);
		_exit(ok ? 0 : 1);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			snprintf(why, (size_t)whylen, "%s: cannot check it (waitpid: %s)", xml, strerror(errno));
			return 0;
		}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 1;
	if (WIFSIGNALED(status))
		snprintf(why, (size_t)whylen, "%s: hwloc crashed reading it (signal %d): not a usable hwloc XML file",
			 xml, WTERMSIG(status));
	else
		snprintf(why, (size_t)whylen, "%s: cannot load the topology (missing, unreadable or not hwloc XML)", xml);
	return 0;
}

static int hwloc_probe(const struct inv_probe_ctx *ctx, struct inv_node *node, char *why, int whylen)
{
	const char *root = ctx->sysfs_root ? ctx->sysfs_root : "/sys";
	hwloc_topology_t topo;

	if (!ctx->hwloc_xml && strcmp(root, "/sys")) {
		snprintf(why, (size_t)whylen, "skipped: --sysfs-root without --hwloc-xml");
		return 1; /* the running machine's tree would not match the captured sysfs */
	}
	if (ctx->hwloc_xml && !xml_loads(ctx->hwloc_xml, why, whylen)) {
		LOG_ERROR("hwloc: %s", why);
		inv_note(node, "hwloc: %s", why);
		return FP_EUSAGE;
	}
	if (hwloc_topology_init(&topo)) {
		snprintf(why, (size_t)whylen, "hwloc_topology_init failed");
		LOG_ERROR("%s", why);
		return FP_ERUNTIME;
	}
	hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
	if ((ctx->hwloc_xml && hwloc_topology_set_xml(topo, ctx->hwloc_xml)) || hwloc_topology_load(topo)) {
		snprintf(why, (size_t)whylen, "%s: cannot load the topology (%s)",
			 ctx->hwloc_xml ? ctx->hwloc_xml : "this machine", "missing, unreadable or not hwloc XML");
		LOG_ERROR("hwloc: %s", why);
		inv_note(node, "hwloc: %s", why);
		hwloc_topology_destroy(topo);
		return FP_EUSAGE;
	}
	scan_cpus(topo, node);
	scan_pci(topo, node);
	hwloc_topology_destroy(topo);
	return 0;
}

const struct inv_probe_ops inv_probe_hwloc = {
	.name = "hwloc",
	.probe = hwloc_probe,
};
