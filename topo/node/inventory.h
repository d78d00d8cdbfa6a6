/* inventory.h — what one node has: CPUs, memory, GPUs, NIC ports, and where they sit.
 *
 * Every struct here is plain data of fixed size (no pointers), so that a node's inventory
 * travels between ranks as bytes (MPI_Gatherv of struct inv_node) and can be written as is.
 * Unknown values: NAN doubles, -1 integers, "" strings.
 *
 * Discovery is done by probes (inv_probe.h, the probes' contract and what their files share):
 * inv_probe_all runs every probe of the registry on one struct inv_node; a probe whose
 * library is absent is not compiled in, and the node says so (inv_node.probes_missing). The
 * analysis below (locality classes, rails, paths, mismatches) is pure. What a transport
 * needs of a port (kinds, rate codes, netdev and GID readers) is inv_link.h, included here. */
#ifndef FP_INVENTORY_H
#define FP_INVENTORY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "inv_link.h"

#define INV_HOST_MAX 256
#define INV_TEXT_MAX 128    /* models, versions */
#define INV_PCI_MAX 16      /* "0000:17:00.0" */
#define INV_NICS_MAX 40
#define INV_GPUS_MAX 16
#define INV_LOC_MAX 192     /* objects of the locality tree */
#define INV_NOTES_MAX 12
#define INV_NOTE_MAX 160

/* NCCL's path classes between a GPU and a NIC, nearest first (docs/measurement.md). */
enum inv_class { INV_PIX, INV_PXB, INV_PHB, INV_NODE, INV_SYS, INV_CLASS_UNKNOWN };
/* Kinds of objects of the locality tree. */
enum inv_loc_kind { INV_LOC_CPU, INV_LOC_HOSTBRIDGE, INV_LOC_BRIDGE, INV_LOC_DEVICE };

/* One NIC port: an RDMA port (with its netdev when it has one) or a netdev without RDMA. */
struct inv_nic {
	char device[INV_NAME_MAX];  /* RDMA device ("mlx5_0"); "" for a plain netdev */
	int32_t port;               /* RDMA port number; -1 for a plain netdev */
	char netdev[INV_NAME_MAX];  /* "ib0", "eth0"; "" when none */
	int32_t kind;               /* enum inv_kind */
	int32_t is_virtual;         /* no device behind it: lo, veth, bridges, docker… */
	char state[INV_NAME_MAX];   /* RDMA: "active", "down", "init", "armed"; net: operstate */
	char netdev_state[INV_NAME_MAX]; /* the netdev's operstate ("up", "down"), "" */
	double rate_gbps;           /* line rate, Gb/s; NAN when unknown or not active */
	int32_t width;              /* lanes (RDMA), -1 unknown */
	char speed[INV_NAME_MAX];   /* lane speed name ("HDR"), "" unknown */
	int32_t mtu;                /* bytes: the netdev MTU, else the RDMA active MTU */
	int32_t numa;               /* NUMA node of the device */
	char pci[INV_PCI_MAX];      /* PCI address of the device */
	char guid_or_mac[48];       /* node GUID for InfiniBand, MAC otherwise */
	char ipv4[16];              /* dotted quad, "" when none */
	int32_t ipv4_prefix;        /* prefix length, -1 */
	int32_t gid_index;          /* RoCE v2 GID index chosen, -1 */
	char fw_ver[INV_NAME_MAX];
};

/* A GPU's NVLink fabric registration (NVML's GPU fabric information): its state. */
enum inv_fabric { INV_FABRIC_UNREAD = -1, INV_FABRIC_NOT_SUPPORTED, INV_FABRIC_NOT_STARTED,
		  INV_FABRIC_IN_PROGRESS, INV_FABRIC_COMPLETED };
/* What a GPU's active NVLinks reach. */
enum inv_nvl_to { INV_NVL_TO_NONE, INV_NVL_TO_GPU, INV_NVL_TO_SWITCH, INV_NVL_TO_MIXED };

/* What NVML says of a GPU (inv_nvml.c): -1 / "" where it was not read or not supported. */
struct inv_gpu_nvml {
	char uuid[48];              /* "GPU-…" */
	int32_t nvlinks;            /* NVLinks the GPU has */
	int32_t nvlinks_up;         /* of them active */
	int32_t nvlink_to;          /* enum inv_nvl_to, of the active ones */
	int32_t fabric;             /* enum inv_fabric */
	int32_t fabric_status;      /* NVML's return code of the registration (0: success) */
	uint8_t cluster_uuid[16];   /* the NVLink domain: cluster UUID and clique id */
	uint32_t clique_id;
	int64_t health_mask;        /* NVML's fabric health mask; -1 unknown */
	char chassis_serial[20];    /* platform information (GB200 and later) */
	int32_t slot, tray, host_id, module_id;
};

struct inv_gpu {
	char model[INV_TEXT_MAX];
	char pci[INV_PCI_MAX];
	int32_t numa;
	int32_t nic;                /* nearest usable NIC (rail), index in nics; -1 none */
	int32_t path_class;         /* enum inv_class to that NIC */
	struct inv_gpu_nvml nv;
};

/* The PCI tree above GPUs and NICs, reduced to what locality needs. */
struct inv_loc_node {
	int32_t parent;             /* index, -1 at the root */
	int32_t kind;               /* enum inv_loc_kind */
	int32_t numa;               /* NUMA node (single) of a CPU-side object or device, -1 */
	char pci[INV_PCI_MAX];      /* devices only */
};

struct inv_loc_tree {
	int32_t n;
	struct inv_loc_node v[INV_LOC_MAX];
};

struct inv_node {
	char host[INV_HOST_MAX];                     /* the node's name in every output */
	char hostname[INV_HOST_MAX];                 /* its processor name (differs under Slurm) */
	char cpu_model[INV_TEXT_MAX];
	int32_t sockets, cores, threads, numa_nodes; /* -1 unknown */
	int64_t mem_bytes;                           /* MemTotal of the running OS; -1 unknown */
	int64_t numa_mem_bytes;                      /* sum over NUMA nodes; -1 unknown */
	char kernel[INV_TEXT_MAX];                   /* uname -r */
	char mpi_version[INV_TEXT_MAX];
	char probes_used[INV_TEXT_MAX];              /* "sysfs,hwloc" */
	char probes_missing[2 * INV_TEXT_MAX];           /* "ibverbs: not built; hwloc: failed" */
	int32_t ngpus, nnics;
	struct inv_gpu gpus[INV_GPUS_MAX];
	struct inv_nic nics[INV_NICS_MAX];
	struct inv_loc_tree loc;
	int32_t nnotes;
	char notes[INV_NOTES_MAX][INV_NOTE_MAX];    /* warnings found on this node */
};

/* ------------------------------------------------------------------ probes */

/* Where the probes look. sysfs_root replaces "/sys" in every sysfs path; hwloc_xml, when
 * set, is loaded instead of the running machine. */
struct inv_probe_ctx {
	const char *sysfs_root;
	const char *hwloc_xml;
	const char *nvml_capture;   /* NVML's answers captured (inv_nvml.h) instead of the library */
};

/* Run every probe on a node set up by inv_node_init (host may be set first: the probes keep
 * it), then the range checks and the locality analysis. Fills probes_used / probes_missing.
 * Returns the number of probes that failed. */
int inv_probe_all(const struct inv_probe_ctx *ctx, struct inv_node *node);
void inv_node_init(struct inv_node *node);
/* Copy src into the fixed field dst of size len, cut to fit, always terminated. */
void inv_copy(char *dst, const char *src, size_t len);

/* ------------------------------------------------------------------ names (pure) */

/* "PIX", "PXB", "PHB", "NODE", "SYS"; "" for unknown. (Link kinds: inv_link.h.) */
const char *inv_class_name(int cls);

/* ------------------------------------------------------------------ locality (pure) */

/* Class of the path between two devices (tree indices) from their common ancestor. */
int inv_loc_class(const struct inv_loc_tree *t, int a, int b);
/* Index of the device with this PCI address, -1. */
int inv_loc_find(const struct inv_loc_tree *t, const char *pci);
/* 1 when a NIC can carry traffic: physical, RDMA active, or netdev up. */
int inv_nic_usable(const struct inv_nic *n);
/* "mlx5_0:1" for an RDMA port, the netdev name otherwise. */
void inv_nic_label(const struct inv_nic *n, char *buf, int len);

/* ------------------------------------------------------------------ paths, mismatches (pure) */

#define INV_PATH_MAX 64
#define INV_PATHS_MAX 64

struct inv_path {
	char name[INV_PATH_MAX];    /* "mpi", "tcp:eth0", "verbs:mlx5_0:1", "nccl" */
	int kind;                   /* enum inv_kind; INV_KIND_UNKNOWN for mpi and the GPU path */
	int nnodes;                 /* nodes that have it */
	char subnet[24];            /* tcp: "10.0.0.0/24" of the first node; "" */
	int subnet_differs;         /* tcp: some node has it on another subnet */
	double rate_gbps;           /* the fastest line rate a node reports for it; NAN unknown */
	int addr_shared;            /* tcp: two nodes hold the same address on it (docker0, virbr0:
				     * a node-local network) */
};

/* The paths found on n nodes. gpu_path: the GPU collective backend this build has ("nccl"),
 * a path on every node with a GPU; NULL when none. Returns the count (≤ max). */
int inv_paths(const struct inv_node *nodes, int n, const char *gpu_path, struct inv_path *out, int max);
/* Which of the np paths found on nnodes nodes `run` measures when not told (-p): mpi; each tcp
 * path on most nodes, unless its address is node-local (the same on two nodes) or it is a
 * management network (1 Gb/s or less beside a path at least ten times faster); each verbs
 * port active on most nodes. take[i] = 1 or 0; why[i] says why a path is left out. nccl is
 * measured by the collectives, not here. Pure. Returns how many are taken. */
#define INV_WHY_MAX 160
int inv_paths_default(const struct inv_path *p, int np, int nnodes, int *take, char (*why)[INV_WHY_MAX]);
/* The rails of a GPU cluster's nodes, from their GPU↔NIC pairing: each GPU's nearest usable
 * RDMA port (its rail), in GPU order, as verbs paths ("verbs:mlx5_0:1"), when that list is the
 * same on more than half of the n nodes, names at least 3 ports and no port twice (two GPUs
 * sharing a NIC make no rail of it). Into out; the count, 0 when none. Pure. */
#define INV_RAILS_MAX 16
int inv_rails(const struct inv_node *nodes, int n, char (*out)[INV_PATH_MAX]);
/* 1 when node has path p. */
int inv_node_has_path(const struct inv_node *node, const char *path, const char *gpu_path);

struct inv_mismatch {
	int node;                   /* index in nodes */
	char item[INV_PATH_MAX];    /* "mlx5_0:1", "eth0", "gpus", "path tcp:eth0" */
	char field[INV_NAME_MAX];   /* "rate_Gbps", "mtu_B", "fw_ver", "state", "count", "present" */
	char value[INV_NAME_MAX];
	char majority[INV_NAME_MAX];
	int tie;                    /* no strict majority: the first node's value is the reference */
};

/* Nodes that differ from the majority: GPU count, each physical NIC's presence, state, rate,
 * width, MTU and firmware, and each path's presence; and the NVLink fabric's checks (inv_nvl.c:
 * a registration not completed or failed, a zero cluster UUID where others have one, a node's
 * GPUs in two cliques, a fabric health flag, a GPU with fewer active NVLinks than its peers, a
 * domain with fewer nodes than its peers), on one node too. Returns the count (≤ max). */
int inv_mismatches(const struct inv_node *nodes, int n, const char *gpu_path,
		   struct inv_mismatch *out, int max);

#endif
