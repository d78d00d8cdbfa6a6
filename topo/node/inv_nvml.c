/* inv_nvml.c — the NVML probe (see inv_nvml.h): libnvidia-ml.so.1 loaded at run time, its
 * few calls and structures mirrored here (the toolkit's nvml.h is not needed to build), or a
 * captured tree of its answers. GPUs are matched to hwloc's by PCI address; a GPU NVML
 * lists that hwloc did not (no hwloc in this build) is added with NVML's name. */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/log.h"
#include "core/results.h"
#include "inv_nvml.h"
#include "inv_probe.h"

void inv_gpu_nvml_init(struct inv_gpu_nvml *nv)
{
	memset(nv, 0, sizeof *nv);
	nv->nvlinks = nv->nvlinks_up = nv->fabric_status = -1;
	nv->nvlink_to = INV_NVL_TO_NONE;
	nv->fabric = INV_FABRIC_UNREAD;
	nv->health_mask = -1;
	nv->slot = nv->tray = nv->host_id = nv->module_id = -1;
}

static const char *const fabric_names[] = { "not_supported", "not_started", "in_progress", "completed" };
static const char *const nvl_to_names[] = { "none", "gpu", "switch", "mixed" };

const char *inv_fabric_name(int state)
{
	return state >= 0 && state <= INV_FABRIC_COMPLETED ? fabric_names[state] : "";
}

const char *inv_nvl_to_name(const struct inv_gpu_nvml *nv)
{
	return nv->nvlinks < 0 || nv->nvlink_to < 0 || nv->nvlink_to > INV_NVL_TO_MIXED ? "" : nvl_to_names[nv->nvlink_to];
}

int inv_uuid_zero(const uint8_t u[16])
{
	for (int i = 0; i < 16; i++)
		if (u[i])
			return 0;
	return 1;
}

void inv_uuid_text(const uint8_t u[16], char out[37])
{
	char *p = out;

	out[0] = 0;
	if (inv_uuid_zero(u))
		return;
	for (int i = 0; i < 16; i++)
		p += sprintf(p, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", u[i]);
}

void inv_gpu_domain(const struct inv_gpu_nvml *nv, char *out, size_t len)
{
	char u[37];

	out[0] = 0;
	if (nv->fabric != INV_FABRIC_COMPLETED || nv->fabric_status != 0 || inv_uuid_zero(nv->cluster_uuid))
		return;
	inv_uuid_text(nv->cluster_uuid, u);
	snprintf(out, len, "%s.%" PRIu32, u, nv->clique_id);
}

/* NVML's fabric health mask: 2-bit fields, 1 = the condition holds (nvml.h's
 * NVML_GPU_FABRIC_HEALTH_MASK_*: degraded bandwidth at bit 0, route recovery at 2, route
 * unhealthy at 4, access timeout recovery at 6) */
void inv_fabric_health(const struct inv_gpu_nvml *nv, char *out, size_t len)
{
	static const char *const flag[] = { "degraded_bw", "route_recovery", "route_unhealthy",
					    "access_timeout_recovery" };
	size_t used = 0;

	out[0] = 0;
	if (nv->health_mask < 0)
		return;
	for (int k = 0; k < 4; k++)
		if (((nv->health_mask >> (2 * k)) & 3) == 1 && used < len)
			used += (size_t)snprintf(out + used, len - used, "%s%s", used ? "+" : "", flag[k]);
	if (!used)
		snprintf(out, len, "ok");
}

/* ------------------------------------------------------------------ a capture's fields */

static int text_ok(const char *v, size_t max)
{
	size_t n = strlen(v);

	for (size_t i = 0; i < n; i++)
		if ((unsigned char)v[i] < 0x20 || (unsigned char)v[i] > 0x7e)
			return 0;
	return n > 0 && n < max;
}

/* a decimal in [lo, hi] */
static int num(const char *v, long long lo, long long hi, long long *out)
{
	char *end;
	long long x;

	if (!isdigit((unsigned char)v[0]) && !(v[0] == '-' && isdigit((unsigned char)v[1])))
		return -1;
	errno = 0;
	x = strtoll(v, &end, 10);
	if (errno || *end || x < lo || x > hi)
		return -1;
	*out = x;
	return 0;
}

static int uuid_parse(const char *v, uint8_t u[16])
{
	int k = 0;

	for (const char *p = v; *p; p++) {
		if (*p == '-')
			continue;
		if (!isxdigit((unsigned char)p[0]) || !isxdigit((unsigned char)p[1]) || k == 16)
			return -1;
		u[k++] = (uint8_t)strtoul((char[]){ p[0], p[1], 0 }, NULL, 16);
		p++;
	}
	return k == 16 ? 0 : -1;
}

static int pick(const char *v, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v, names[i]))
			return i;
	return -1;
}

int inv_nvml_field(struct inv_gpu_nvml *nv, const char *name, const char *v, char *why, size_t wlen)
{
	long long x;
	int32_t *small = !strcmp(name, "slot") ? &nv->slot : !strcmp(name, "tray") ? &nv->tray
		       : !strcmp(name, "host_id") ? &nv->host_id : !strcmp(name, "module_id") ? &nv->module_id : NULL;
	int rc = 0, k;

	if (!strcmp(name, "uuid") || !strcmp(name, "chassis_serial")) {
		char *dst = name[0] == 'u' ? nv->uuid : nv->chassis_serial;
		size_t max = name[0] == 'u' ? sizeof nv->uuid : sizeof nv->chassis_serial;

		if (!(rc = text_ok(v, max) ? 0 : -1))
			snprintf(dst, max, "%s", v);
	} else if (!strcmp(name, "nvlinks") || !strcmp(name, "nvlinks_up")) {
		if (!(rc = num(v, 0, 64, &x)))
			*(name[7] ? &nv->nvlinks_up : &nv->nvlinks) = (int32_t)x;
	} else if (!strcmp(name, "nvlink_to")) {
		if (!(rc = (k = pick(v, nvl_to_names, 4)) < 0 ? -1 : 0))
			nv->nvlink_to = k;
	} else if (!strcmp(name, "fabric_state")) {
		if (!(rc = (k = pick(v, fabric_names, 4)) < 0 ? -1 : 0))
			nv->fabric = k;
	} else if (!strcmp(name, "fabric_status")) {
		if (!(rc = num(v, 0, 999, &x)))
			nv->fabric_status = (int32_t)x;
	} else if (!strcmp(name, "cluster_uuid")) {
		rc = uuid_parse(v, nv->cluster_uuid);
		if (rc)
			memset(nv->cluster_uuid, 0, 16);
	} else if (!strcmp(name, "clique_id")) {
		if (!(rc = num(v, 0, UINT32_MAX, &x)))
			nv->clique_id = (uint32_t)x;
	} else if (!strcmp(name, "health_mask")) {
		char *end;

		errno = 0;
		x = (long long)strtoull(v, &end, 0);
		if (!(rc = !isdigit((unsigned char)v[0]) || errno || *end || x < 0 || x > UINT32_MAX ? -1 : 0))
			nv->health_mask = x;
	} else if (small) {
		if (!(rc = num(v, 0, 255, &x)))
			*small = (int32_t)x;
	} else if (strcmp(name, "name")) {
		snprintf(why, wlen, "not a field of a GPU's capture");
		return FP_EUSAGE;
	}
	if (rc)
		snprintf(why, wlen, "not a valid %s", name);
	return rc ? FP_EUSAGE : 0;
}

/* "0000:17:00.0" (hwloc, sysfs) from "00000000:17:00.0" (NVML) or itself; -1 when neither */
static int pci_norm(const char *in, char out[INV_PCI_MAX])
{
	unsigned dom, bus, dev, fn;
	int used = 0;

	if (sscanf(in, "%8x:%2x:%2x.%1x%n", &dom, &bus, &dev, &fn, &used) != 4 || in[used] || dom > 0xffff)
		return -1;
	snprintf(out, INV_PCI_MAX, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return 0;
}

/* node's GPU at this PCI address; appended (named name) when hwloc did not list it */
static struct inv_gpu *gpu_at(struct inv_node *node, const char *pci, const char *name)
{
	struct inv_gpu *g;

	for (int i = 0; i < node->ngpus; i++)
		if (!strcasecmp(node->gpus[i].pci, pci))
			return &node->gpus[i];
	if (node->ngpus >= INV_GPUS_MAX)
		return NULL;
	g = &node->gpus[node->ngpus++];
	memset(g, 0, sizeof *g);
	snprintf(g->model, sizeof g->model, "%s", name && *name ? name : "NVIDIA GPU");
	snprintf(g->pci, sizeof g->pci, "%s", pci);
	g->numa = g->nic = -1;
	g->path_class = INV_CLASS_UNKNOWN;
	inv_gpu_nvml_init(&g->nv);
	return g;
}

const char *const inv_nvml_fields[INV_NVML_NFIELDS] = {
	"uuid", "nvlinks", "nvlinks_up", "nvlink_to", "fabric_state", "fabric_status", "cluster_uuid",
	"clique_id", "health_mask", "chassis_serial", "slot", "tray", "host_id", "module_id",
};

struct entry {
	char pci[INV_PCI_MAX];
	char name[INV_NAME_MAX];
};

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->pci, ((const struct entry *)b)->pci);
}

/* the capture's GPUs in PCI order (NVML's and CUDA's PCI_BUS_ID order; the folder names'
 * hex digits do not sort naturally) */
static int capture_read(const char *dir, struct inv_node *node, char *why, int whylen)
{
	char names[INV_GPUS_MAX * 2][INV_NAME_MAX], v[128], rel[PATH_MAX], w[96];
	struct entry e[INV_GPUS_MAX * 2];
	int n = inv_sysfs_list(dir, ".", names, INV_GPUS_MAX * 2), ne = 0;

	if (n < 0) {
		snprintf(why, (size_t)whylen, "--nvml-capture %.80s: %s", dir, strerror(-n));
		return FP_EUSAGE;
	}
	for (int i = 0; i < n; i++) {
		if (pci_norm(names[i], e[ne].pci)) {
			inv_sysfs_bad(node, dir, names[i], "not a GPU's PCI address");
			continue;
		}
		memcpy(e[ne++].name, names[i], INV_NAME_MAX); /* inv_sysfs_list: terminated within */
	}
	qsort(e, (size_t)ne, sizeof *e, entry_cmp);
	for (int i = 0; i < ne; i++) {
		struct inv_gpu *g;

		inv_sysfs_read(dir, v, sizeof v, "%s/name", e[i].name);
		if (!(g = gpu_at(node, e[i].pci, text_ok(v, sizeof g->model) ? v : NULL)))
			break;
		for (int f = 0; f < INV_NVML_NFIELDS; f++) {
			snprintf(rel, sizeof rel, "%s/%s", e[i].name, inv_nvml_fields[f]);
			if (inv_sysfs_read(dir, v, sizeof v, "%s", rel) == 0 && inv_nvml_field(&g->nv, inv_nvml_fields[f], v, w, sizeof w))
				inv_sysfs_bad(node, dir, rel, w);
		}
	}
	return ne ? 0 : 1;
}

/* ------------------------------------------------------------------ the library */

/* nvml.h's structures this reads (versioned: the version word says which layout) */
struct nv_fabric_v2 {
	unsigned int version;
	unsigned char cluster_uuid[16];
	int status;
	unsigned int clique_id;
	unsigned char state;
	unsigned int health_mask;
};
struct nv_platform_v2 {
	unsigned int version;
	unsigned char ib_guid[16], chassis_serial[16];
	unsigned char slot, tray, host_id, peer_type, module_id;
};
_Static_assert(sizeof(struct nv_fabric_v2) == 36, "nvmlGpuFabricInfo_v2_t");
_Static_assert(sizeof(struct nv_platform_v2) == 44, "nvmlPlatformInfo_v2_t");
#define NV_VERSION(st, v) ((unsigned int)(sizeof(st) | ((unsigned)(v) << 24)))
#define NV_LINKS_MAX 32   /* NVML_NVLINK_MAX_LINKS is 18 today; a link past the count is refused */
#define NV_NOT_SUPPORTED 3
#define NV_TYPE_GPU 0
#define NV_TYPE_SWITCH 2

typedef void *nvdev;
struct nvml {
	void *so;
	int (*init)(void);
	int (*shutdown)(void);
	int (*count)(unsigned int *);
	int (*by_index)(unsigned int, nvdev *);
	int (*pci)(nvdev, void *);
	int (*uuid)(nvdev, char *, unsigned int);
	int (*name)(nvdev, char *, unsigned int);
	int (*link_state)(nvdev, unsigned int, int *);
	int (*link_type)(nvdev, unsigned int, int *);
	int (*fabric_v)(nvdev, struct nv_fabric_v2 *);
	int (*fabric_v1)(nvdev, void *);
	int (*platform)(nvdev, struct nv_platform_v2 *);
};

static void nv_links(const struct nvml *l, nvdev d, struct inv_gpu_nvml *nv)
{
	int to_gpu = 0, to_switch = 0;

	nv->nvlinks = nv->nvlinks_up = 0;
	for (unsigned k = 0; k < NV_LINKS_MAX; k++) {
		int up = 0, type = -1;

		if (l->link_state(d, k, &up))
			break;
		nv->nvlinks++;
		if (up != 1)
			continue;
		nv->nvlinks_up++;
		if (l->link_type && l->link_type(d, k, &type) == 0) {
			to_gpu += type == NV_TYPE_GPU;
			to_switch += type == NV_TYPE_SWITCH;
		}
	}
	nv->nvlink_to = to_gpu && to_switch ? INV_NVL_TO_MIXED : to_switch ? INV_NVL_TO_SWITCH
		      : to_gpu ? INV_NVL_TO_GPU : INV_NVL_TO_NONE;
}

static void nv_fabric(const struct nvml *l, nvdev d, struct inv_gpu_nvml *nv)
{
	struct nv_fabric_v2 f = { .version = NV_VERSION(struct nv_fabric_v2, 2) };
	unsigned char v1[32] = { 0 }; /* nvmlGpuFabricInfo_t: uuid[16], status, clique, state */
	int rc = l->fabric_v ? l->fabric_v(d, &f) : l->fabric_v1 ? l->fabric_v1(d, v1) : NV_NOT_SUPPORTED;

	if (!l->fabric_v && rc == 0) {
		memcpy(f.cluster_uuid, v1, 16);
		memcpy(&f.status, v1 + 16, 4);
		memcpy(&f.clique_id, v1 + 20, 4);
		f.state = v1[24];
	}
	if (rc == NV_NOT_SUPPORTED) {
		nv->fabric = INV_FABRIC_NOT_SUPPORTED;
		return;
	}
	if (rc || f.state > INV_FABRIC_COMPLETED)
		return;
	nv->fabric = f.state;
	nv->fabric_status = f.status >= 0 && f.status <= 999 ? f.status : 999;
	memcpy(nv->cluster_uuid, f.cluster_uuid, 16);
	nv->clique_id = f.clique_id;
	nv->health_mask = l->fabric_v ? (int64_t)f.health_mask : -1;
}

static void nv_platform(const struct nvml *l, nvdev d, struct inv_gpu_nvml *nv)
{
	struct nv_platform_v2 p = { .version = NV_VERSION(struct nv_platform_v2, 2) };
	char s[17];

	if (!l->platform || l->platform(d, &p))
		return;
	memcpy(s, p.chassis_serial, 16);
	s[16] = 0;
	if (text_ok(s, sizeof nv->chassis_serial))
		snprintf(nv->chassis_serial, sizeof nv->chassis_serial, "%s", s);
	nv->slot = p.slot, nv->tray = p.tray, nv->host_id = p.host_id, nv->module_id = p.module_id;
}

#define SYM(l, f, name) (*(void **)&(l)->f = dlsym((l)->so, name))

static int live_read(struct inv_node *node, char *why, int whylen)
{
	struct nvml l = { .so = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL) };
	unsigned n = 0;
	int rc;

	if (!l.so) {
		snprintf(why, (size_t)whylen, "libnvidia-ml.so.1 not found (no NVIDIA driver)");
		return 1;
	}
	if (!SYM(&l, init, "nvmlInit_v2") || !SYM(&l, shutdown, "nvmlShutdown") ||
	    !SYM(&l, count, "nvmlDeviceGetCount_v2") || !SYM(&l, by_index, "nvmlDeviceGetHandleByIndex_v2") ||
	    !SYM(&l, pci, "nvmlDeviceGetPciInfo_v3") || !SYM(&l, uuid, "nvmlDeviceGetUUID") ||
	    !SYM(&l, name, "nvmlDeviceGetName") || !SYM(&l, link_state, "nvmlDeviceGetNvLinkState")) {
		snprintf(why, (size_t)whylen, "libnvidia-ml.so.1 lacks a call this needs (a driver older than r450?)");
		dlclose(l.so);
		return 1;
	}
	SYM(&l, link_type, "nvmlDeviceGetNvLinkRemoteDeviceType");
	SYM(&l, fabric_v, "nvmlDeviceGetGpuFabricInfoV");
	SYM(&l, fabric_v1, "nvmlDeviceGetGpuFabricInfo");
	SYM(&l, platform, "nvmlDeviceGetPlatformInfo");
	if ((rc = l.init()) || (rc = l.count(&n))) {
		snprintf(why, (size_t)whylen, "NVML error %d at %s", rc, n ? "counting GPUs" : "nvmlInit");
		dlclose(l.so);
		return 1;
	}
	for (unsigned i = 0; i < n && i < INV_GPUS_MAX; i++) {
		unsigned char pci_info[256] = { 0 }; /* nvmlPciInfo_t (v3): busId at 36 */
		char pci[INV_PCI_MAX], name[96] = "", bus[33];
		struct inv_gpu *g;
		nvdev d;

		if (l.by_index(i, &d) || l.pci(d, pci_info))
			continue;
		memcpy(bus, pci_info + 36, 32);
		bus[32] = 0;
		if (pci_norm(bus, pci)) {
			inv_note(node, "NVML: GPU %u has no PCI address it can read", i);
			continue;
		}
		l.name(d, name, sizeof name);
		if (!(g = gpu_at(node, pci, text_ok(name, sizeof name) ? name : NULL)))
			break;
		if (l.uuid(d, g->nv.uuid, sizeof g->nv.uuid) || !text_ok(g->nv.uuid, sizeof g->nv.uuid))
			g->nv.uuid[0] = 0;
		nv_links(&l, d, &g->nv);
		nv_fabric(&l, d, &g->nv);
		nv_platform(&l, d, &g->nv);
	}
	l.shutdown();
	dlclose(l.so);
	return 0;
}

static int nvml_probe(const struct inv_probe_ctx *ctx, struct inv_node *node, char *why, int whylen)
{
	if (ctx->nvml_capture)
		return capture_read(ctx->nvml_capture, node, why, whylen);
	if (ctx->sysfs_root || ctx->hwloc_xml) {
		snprintf(why, (size_t)whylen, "a captured node (no --nvml-capture)");
		return 1;
	}
	return live_read(node, why, whylen);
}

const struct inv_probe_ops inv_probe_nvml = { .name = "nvml", .probe = nvml_probe };
