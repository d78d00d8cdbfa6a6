/* inv_nvml.h — what NVML says of each GPU (its NVLinks, its NVLink fabric registration, the
 * platform's chassis, slot and tray), read through libnvidia-ml loaded at run time (dlopen:
 * the binary runs where the driver is absent), or from a captured tree of its answers.
 *
 * A capture is a directory with one folder per GPU, named by its PCI address, of one-line
 * files (the fields of struct inv_gpu_nvml, as `inventory --nvml-save DIR` writes them on a
 * real node; any may be absent: not read):
 *   DIR/0000:17:00.0/uuid            GPU-5f3b…           name          NVIDIA H200
 *                    nvlinks         18                  nvlinks_up    18
 *                    nvlink_to       switch | gpu | mixed | none
 *                    fabric_state    not_supported | not_started | in_progress | completed
 *                    fabric_status   0 (NVML's return code of the registration)
 *                    cluster_uuid    7d1e53a4-2c3b-4f65-9d1c-0c1f2e3a4b5c
 *                    clique_id       32766               health_mask   0x2
 *                    chassis_serial  1821124190123       slot  tray  host_id  module_id
 * Every value is checked as it is read (a bad one is named and left unknown). */
#ifndef FP_INV_NVML_H
#define FP_INV_NVML_H

#include "inventory.h"

/* Every field unknown (-1, "", INV_FABRIC_UNREAD). */
void inv_gpu_nvml_init(struct inv_gpu_nvml *nv);
/* "not_supported", "not_started", "in_progress", "completed"; "" unread. */
const char *inv_fabric_name(int state);
/* "none", "gpu", "switch", "mixed"; "" when no NVLink was read. */
const char *inv_nvl_to_name(const struct inv_gpu_nvml *nv);
/* The cluster UUID as 8-4-4-4-12 lower-case hex (37 bytes with its NUL); "" when zero. */
void inv_uuid_text(const uint8_t u[16], char out[37]);
/* 1 when the 16 bytes are all zero. */
int inv_uuid_zero(const uint8_t u[16]);
/* The GPU's NVLink domain as Kubernetes' nvidia.com/gpu.clique label says it:
 * "<cluster UUID>.<clique id>", when it registered (completed, status 0) with a non-zero
 * UUID; else "". len ≥ 48. */
void inv_gpu_domain(const struct inv_gpu_nvml *nv, char *out, size_t len);
/* The fabric health flags that are set ("degraded_bw", "route_recovery", "route_unhealthy",
 * "access_timeout_recovery", joined by '+'), "ok" when none, "" unknown. */
void inv_fabric_health(const struct inv_gpu_nvml *nv, char *out, size_t len);

/* The node's NVLink domain (inv_gpu_domain) when all its GPUs registered into one; else "". */
void inv_node_domain(const struct inv_node *node, char *out, size_t len);
/* One line on the NVLink domains of n nodes ("NVLink domains: 2, 36 of 36 nodes in one", or
 * none and why); "" when NVML was read on none of their GPUs. */
void inv_nvl_summary(const struct inv_node *nodes, int n, char *out, size_t len);

/* Kubernetes' nvidia.com/gpu.clique labels (label[i] of node host[i]; NULL: the node has no
 * such label) against the domains found: each node the labels list whose label differs from
 * its domain (inv_node_domain; "" none) is a mismatch appended to out[nout..max). */
int inv_nvl_labels_check(const struct inv_node *nodes, int n, const char *const *host, const char *const *label,
			 int nlabels, struct inv_mismatch *out, int nout, int max);

/* One field of a capture, decoded into nv: 0, or FP_EUSAGE (the value is left unknown) with
 * why. An unknown name is FP_EUSAGE too. */
int inv_nvml_field(struct inv_gpu_nvml *nv, const char *name, const char *value, char *why, size_t wlen);
/* The names of a capture's per-GPU files (besides "name"), in the order they are read. */
#define INV_NVML_NFIELDS 14
extern const char *const inv_nvml_fields[INV_NVML_NFIELDS];
/* Write node's GPUs' NVML fields as a capture under dir (created; a GPU folder that exists is
 * refused: a capture is never overwritten). 0, or FP_EUSAGE / FP_ERUNTIME with err. */
int inv_nvml_save(const char *dir, const struct inv_node *node, char *err, size_t elen);

#endif
