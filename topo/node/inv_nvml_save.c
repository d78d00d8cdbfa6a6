/* inv_nvml_save.c — a node's NVML answers written as a capture (inv_nvml.h): one folder per
 * GPU, one-line files, through the one writer (core/results.h). */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/log.h"
#include "core/results.h"
#include "inv_nvml.h"

/* capture field f of nv as text ("" when unknown: not written) */
static void field_text(const struct inv_gpu_nvml *nv, int f, char *out, size_t len)
{
	const int32_t small[] = { nv->slot, nv->tray, nv->host_id, nv->module_id };
	char u[37];

	out[0] = 0;
	inv_uuid_text(nv->cluster_uuid, u);
	switch (f) {
	case 0: snprintf(out, len, "%s", nv->uuid); break;
	case 1: case 2:
		if ((f == 1 ? nv->nvlinks : nv->nvlinks_up) >= 0)
			snprintf(out, len, "%d", f == 1 ? nv->nvlinks : nv->nvlinks_up);
		break;
	case 3: snprintf(out, len, "%s", inv_nvl_to_name(nv)); break;
	case 4: snprintf(out, len, "%s", inv_fabric_name(nv->fabric)); break;
	case 5: if (nv->fabric_status >= 0) snprintf(out, len, "%d", nv->fabric_status); break;
	case 6: snprintf(out, len, "%s", u); break;
	case 7: if (u[0]) snprintf(out, len, "%" PRIu32, nv->clique_id); break;
	case 8: if (nv->health_mask >= 0) snprintf(out, len, "0x%" PRIx64, (uint64_t)nv->health_mask); break;
	case 9: snprintf(out, len, "%s", nv->chassis_serial); break;
	default: if (small[f - 10] >= 0) snprintf(out, len, "%d", small[f - 10]); break;
	}
}

int inv_nvml_save(const char *dir, const struct inv_node *node, char *err, size_t elen)
{
	char path[PATH_MAX], v[INV_TEXT_MAX];

	if (mkdir(dir, 0755) && errno != EEXIST) {
		snprintf(err, elen, "%s: %s", dir, strerror(errno));
		return FP_EUSAGE;
	}
	for (int i = 0; i < node->ngpus; i++) {
		const struct inv_gpu *g = &node->gpus[i];

		if (g->nv.fabric == INV_FABRIC_UNREAD && !g->nv.uuid[0])
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, g->pci);
		if (mkdir(path, 0755)) {
			snprintf(err, elen, "%s: %s", path, errno == EEXIST ? "exists (a capture is never overwritten)"
									  : strerror(errno));
			return FP_EUSAGE;
		}
		for (int f = 0; f <= INV_NVML_NFIELDS; f++) {
			const char *name = f == INV_NVML_NFIELDS ? "name" : inv_nvml_fields[f];
			FILE *out;

			if (f == INV_NVML_NFIELDS)
				snprintf(v, sizeof v, "%s", g->model);
			else
				field_text(&g->nv, f, v, sizeof v);
			if (!v[0])
				continue;
			/* the one writer (core/results.h): created new, whole or not at all */
			if (!(out = results_open(path, name)) || (fprintf(out, "%s\n", v), results_close(out, path, name))) {
				snprintf(err, elen, "%s/%s: not written", path, name);
				return FP_ERUNTIME;
			}
		}
	}
	return 0;
}
