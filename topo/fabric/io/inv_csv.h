/* inv_csv.h — nodes.csv's and nics.csv's columns: the one definition that the writer
 * (bench/inventory) and every reader (fabric/io/rundir.c, report/report_inventory.c) share. A
 * column's name is written nowhere else: others take inv_csv_node_cols[INV_CSV_NODE_…].name
 * and inv_csv_nic_cols[INV_CSV_NIC_…].name. */
#ifndef FP_INV_CSV_H
#define FP_INV_CSV_H

#include <stdint.h>

#include "core/csv.h"

/* One nodes.csv row: one node. Missing values are -1 / NULL (empty cells). */
struct inv_csv_node {
	const char *run_id, *host, *hostname, *cpu_model, *kernel, *mpi, *used, *missing, *notes;
	int64_t ranks, sockets, cores, threads, numa, mem, numa_mem, gpus, nics; /* mem: bytes */
};

/* One nics.csv row: one NIC port (or netdev). Missing values are NAN / -1 / NULL. */
struct inv_csv_nic {
	const char *run_id, *host, *device, *netdev, *kind, *state, *netdev_state, *speed, *pci, *addr,
		*ipv4, *fw;
	int64_t port, virt, width, mtu, numa, prefix, gid; /* mtu: bytes */
	double rate;                                       /* Gbit/s */
};

/* Column indices, in file order. Columns added later go at the end, so that readers by
 * position (awk in scripts) keep working. */
enum inv_csv_node_col {
	INV_CSV_NODE_RUN_ID, INV_CSV_NODE_HOST, INV_CSV_NODE_HOSTNAME, INV_CSV_NODE_RANKS,
	INV_CSV_NODE_CPU_MODEL, INV_CSV_NODE_SOCKETS, INV_CSV_NODE_CORES, INV_CSV_NODE_THREADS,
	INV_CSV_NODE_NUMA_NODES, INV_CSV_NODE_MEM, INV_CSV_NODE_NUMA_MEM, INV_CSV_NODE_GPUS,
	INV_CSV_NODE_NICS, INV_CSV_NODE_KERNEL, INV_CSV_NODE_MPI_VERSION, INV_CSV_NODE_PROBES,
	INV_CSV_NODE_PROBES_MISSING, INV_CSV_NODE_WARNINGS, INV_CSV_NODE_NCOLS
};
enum inv_csv_nic_col {
	INV_CSV_NIC_RUN_ID, INV_CSV_NIC_HOST, INV_CSV_NIC_DEVICE, INV_CSV_NIC_PORT,
	INV_CSV_NIC_NETDEV, INV_CSV_NIC_KIND, INV_CSV_NIC_VIRTUAL, INV_CSV_NIC_STATE,
	INV_CSV_NIC_NETDEV_STATE, INV_CSV_NIC_RATE, INV_CSV_NIC_WIDTH, INV_CSV_NIC_LANE_SPEED,
	INV_CSV_NIC_MTU, INV_CSV_NIC_NUMA_NODE, INV_CSV_NIC_PCI_ADDR, INV_CSV_NIC_GUID_OR_MAC,
	INV_CSV_NIC_IPV4, INV_CSV_NIC_IPV4_PREFIX, INV_CSV_NIC_GID_INDEX, INV_CSV_NIC_FW_VER,
	INV_CSV_NIC_NCOLS
};

extern const struct csv_col inv_csv_node_cols[INV_CSV_NODE_NCOLS];
extern const struct csv_col inv_csv_nic_cols[INV_CSV_NIC_NCOLS];

/* gpus.csv: one row per GPU. */
struct inv_csv_gpu {
	const char *run_id, *host, *model, *pci, *nic, *cls;
	int64_t index, numa;
	/* NVML (topo/node/inv_nvml.h): empty where not read */
	const char *uuid, *nvlink_to, *fabric, *domain, *health, *chassis;
	int64_t nvlinks, nvlinks_up, fabric_status, slot, tray, host_id, module_id;
};
enum inv_csv_gpu_col {
	INV_CSV_GPU_RUN_ID, INV_CSV_GPU_HOST, INV_CSV_GPU_INDEX, INV_CSV_GPU_MODEL, INV_CSV_GPU_PCI,
	INV_CSV_GPU_NUMA, INV_CSV_GPU_NIC, INV_CSV_GPU_CLASS, INV_CSV_GPU_UUID, INV_CSV_GPU_NVLINKS,
	INV_CSV_GPU_NVLINKS_UP, INV_CSV_GPU_NVLINK_TO, INV_CSV_GPU_FABRIC, INV_CSV_GPU_FABRIC_STATUS,
	INV_CSV_GPU_DOMAIN, INV_CSV_GPU_HEALTH, INV_CSV_GPU_CHASSIS, INV_CSV_GPU_SLOT, INV_CSV_GPU_TRAY,
	INV_CSV_GPU_HOST_ID, INV_CSV_GPU_MODULE_ID, INV_CSV_GPU_NCOLS
};
extern const struct csv_col inv_csv_gpu_cols[INV_CSV_GPU_NCOLS];

/* paths.csv: one row per path the inventory found. */
struct inv_csv_path {
	const char *run_id, *path, *kind, *subnet;
	int64_t nodes, missing, differs;
};
enum inv_csv_path_col {
	INV_CSV_PATH_RUN_ID, INV_CSV_PATH_PATH, INV_CSV_PATH_KIND, INV_CSV_PATH_NODES, INV_CSV_PATH_MISSING,
	INV_CSV_PATH_SUBNET, INV_CSV_PATH_DIFFERS, INV_CSV_PATH_NCOLS
};
extern const struct csv_col inv_csv_path_cols[INV_CSV_PATH_NCOLS];

/* inventory_mismatch.csv: one row per value a node holds against the majority. */
struct inv_csv_mm {
	const char *run_id, *host, *item, *field, *value, *majority;
	int64_t tie;
};
enum inv_csv_mm_col {
	INV_CSV_MM_RUN_ID, INV_CSV_MM_HOST, INV_CSV_MM_ITEM, INV_CSV_MM_FIELD, INV_CSV_MM_VALUE,
	INV_CSV_MM_MAJORITY, INV_CSV_MM_TIE, INV_CSV_MM_NCOLS
};
extern const struct csv_col inv_csv_mm_cols[INV_CSV_MM_NCOLS];

/* The NVLink domain of each of the n hosts, from a gpus.csv's host and nvlink_domain columns:
 * a host's when all its GPUs name the same one, else NULL. *out: n pointers into one block
 * (free(*out) frees all), NULL when the file names no domain (or has no such column: written
 * before it existed). 0, or FP_EUSAGE with "file:line: why" in err (a value that is not
 * "<hex UUID>.<clique id>"), FP_ERUNTIME out of memory. */
int inv_csv_domains(const char *file, const char *const *hosts, int n, char ***out, char *err);

#endif
