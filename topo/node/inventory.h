/* inventory.h — what one node has: CPUs, memory, GPUs, NIC ports, and where they sit.
 *
 * Every struct here is plain data of fixed size (no pointers), so that a node's inventory
 * travels between ranks as bytes (MPI_Gatherv of struct inv_node) and can be written as is.
 * Unknown values: NAN doubles, -1 integers, "" strings.
 *
 * Discovery is done by probes (probes.c): each is a const struct inv_probe_ops that fills
 * what it can of one struct inv_node; a probe whose library is absent is not compiled in,
 * and the node says so (inv_node.probes_missing). The decoding and the analysis below
 * (rates, GIDs, locality classes, rails, paths, mismatches) are pure functions. */
#ifndef FP_INVENTORY_H
#define FP_INVENTORY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define INV_HOST_MAX 256
#define INV_NAME_MAX 32     /* device, netdev, state names */
#define INV_TEXT_MAX 128    /* models, versions */
#define INV_PCI_MAX 16      /* "0000:17:00.0" */
#define INV_NICS_MAX 40
#define INV_GPUS_MAX 16
#define INV_LOC_MAX 192     /* objects of the locality tree */
#define INV_NOTES_MAX 12
#define INV_NOTE_MAX 160
#define INV_GIDS_MAX 16     /* GID table entries examined per port */

enum inv_kind { INV_KIND_UNKNOWN, INV_KIND_INFINIBAND, INV_KIND_ROCE, INV_KIND_ETHERNET,
		INV_KIND_LOOPBACK };
/* NCCL's path classes between a GPU and a NIC, nearest first (REFERENCE.md). */
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

struct inv_gpu {
	char model[INV_TEXT_MAX];
	char pci[INV_PCI_MAX];
	int32_t numa;
	int32_t nic;                /* nearest usable NIC (rail), index in nics; -1 none */
	int32_t path_class;         /* enum inv_class to that NIC */
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
};

struct inv_probe_ops {
	const char *name;
	const char *absent;  /* NULL, or why this build lacks it (core/registry.h) */
	/* Fill what this probe knows. Returns 0; 1 when it does not apply here (why says so:
	 * "no RDMA devices"); or a negative FP_E* code after logging (why says what failed).
	 * A failing probe does not stop the others; bad files are reported naming the file and
	 * skipped. */
	int (*probe)(const struct inv_probe_ctx *ctx, struct inv_node *node, char *why, int whylen);
};

/* The registry (probes.c), in the order they run, NULL-terminated; a probe this build lacks
 * is listed with `absent` set. */
extern const struct inv_probe_ops *const inv_probe_registry[];

/* Run every probe on a node set up by inv_node_init (host may be set first: the probes keep
 * it), then the locality analysis. Fills probes_used / probes_missing. Returns the number of
 * probes that failed. */
int inv_probe_all(const struct inv_probe_ctx *ctx, struct inv_node *node);
void inv_node_init(struct inv_node *node);
/* Copy src into the fixed field dst of size len, cut to fit, always terminated. */
void inv_copy(char *dst, const char *src, size_t len);
/* Append a warning to node->notes (dropped beyond INV_NOTES_MAX). */
void inv_note(struct inv_node *node, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The NIC with this RDMA device and port, or this netdev (port -1); appended when absent
 * (NULL when full). */
struct inv_nic *inv_nic_get(struct inv_node *node, const char *device, int port, const char *netdev);

/* ------------------------------------------------------------------ decoding (pure) */

const char *inv_kind_name(int kind);
const char *inv_class_name(int cls);
/* verbs active_width → lanes (1,2,4,8,16 → 1,4,8,12,2); -1 for other values. */
int inv_width_lanes(int active_width);
/* verbs active_speed → Gb/s per lane; NAN for other values. name gets "HDR" etc. or "". */
double inv_speed_lane_gbps(int active_speed, const char **name);
/* sysfs rate "200 Gb/sec (4X HDR)" → 200 Gb/s, lanes 4, speed "HDR". 0 or FP_EUSAGE. */
int inv_rate_parse(const char *s, double *gbps, int *lanes, char *speed, int speed_len);
/* sysfs state "4: ACTIVE" → "active"; 0 or FP_EUSAGE. */
int inv_state_parse(const char *s, char *out, int len);
/* A GID as sysfs writes it ("fe80:0000:…", 8 groups of 4 hex digits) → 16 bytes. */
int inv_gid_parse(const char *s, uint8_t gid[16]);
/* 1 when all 16 bytes are zero (an unset GID table entry). */
int inv_gid_is_zero(const uint8_t *g);

struct inv_gid {
	int index;
	uint8_t gid[16];
	int roce_v2;      /* gid_attrs/types says "RoCE v2" */
};
/* The GID perftest would pick: RoCE v2, IPv4-mapped over IPv6, never link-local or zero.
 * Returns its index, or -1 when no RoCE v2 GID qualifies. */
int inv_gid_pick(const struct inv_gid *g, int n);

/* ------------------------------------------------------------------ locality (pure) */

/* Class of the path between two devices (tree indices) from their common ancestor. */
int inv_loc_class(const struct inv_loc_tree *t, int a, int b);
/* Index of the device with this PCI address, -1. */
int inv_loc_find(const struct inv_loc_tree *t, const char *pci);
/* 1 when a NIC can carry traffic: physical, RDMA active, or netdev up. */
int inv_nic_usable(const struct inv_nic *n);
/* "mlx5_0:1" for an RDMA port, the netdev name otherwise. */
void inv_nic_label(const struct inv_nic *n, char *buf, int len);
/* For each GPU its nearest usable NIC (RDMA ports preferred; ties go to the NIC with
 * fewer GPUs so far), and the warnings: two GPUs sharing a NIC while another is idle, a
 * GPU whose nearest NIC is across the socket, a port running at fewer lanes than its
 * peers. */
void inv_locality(struct inv_node *node);

/* ------------------------------------------------------------------ paths, mismatches (pure) */

#define INV_PATH_MAX 64
#define INV_PATHS_MAX 64

struct inv_path {
	char name[INV_PATH_MAX];    /* "mpi", "tcp:eth0", "verbs:mlx5_0:1", "nccl" */
	int kind;                   /* enum inv_kind; INV_KIND_UNKNOWN for mpi and nccl */
	int nnodes;                 /* nodes that have it */
	char subnet[24];            /* tcp: "10.0.0.0/24" of the first node; "" */
	int subnet_differs;         /* tcp: some node has it on another subnet */
};

/* The paths found on n nodes; nccl only when have_nccl. Returns the count (≤ max). */
int inv_paths(const struct inv_node *nodes, int n, int have_nccl, struct inv_path *out, int max);
/* 1 when node has path p. */
int inv_node_has_path(const struct inv_node *node, const char *path, int have_nccl);

struct inv_mismatch {
	int node;                   /* index in nodes */
	char item[INV_PATH_MAX];    /* "mlx5_0:1", "eth0", "gpus", "path tcp:eth0" */
	char field[INV_NAME_MAX];   /* "rate_Gbps", "mtu_B", "fw_ver", "state", "count", "present" */
	char value[INV_NAME_MAX];
	char majority[INV_NAME_MAX];
	int tie;                    /* no strict majority: the first node's value is the reference */
};

/* Nodes that differ from the majority: GPU count, each physical NIC's presence, state, rate,
 * width, MTU and firmware, and each path's presence. Returns the count (≤ max). */
int inv_mismatches(const struct inv_node *nodes, int n, int have_nccl, struct inv_mismatch *out,
		   int max);

/* ------------------------------------------------------------------ sysfs access */

/* Read the first line of "<root>/<rel>" (rel after printf formatting) into buf, without
 * the newline. Returns 0, or -errno without logging (absence is often normal). */
int inv_sysfs_read(const char *root, char *buf, int len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
