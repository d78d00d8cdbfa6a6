/* inv_csv.c — see inv_csv.h. */
#include "inv_csv.h"

#define NODE(i, n, t, f, p) [INV_CSV_NODE_##i] = CSV_COL(n, t, struct inv_csv_node, f, p)
const struct csv_col inv_csv_node_cols[INV_CSV_NODE_NCOLS] = {
	NODE(RUN_ID, "run_id", CSV_STR, run_id, 0),
	NODE(HOST, "host", CSV_STR, host, 0),
	NODE(HOSTNAME, "hostname", CSV_STR, hostname, 0),
	NODE(RANKS, "ranks", CSV_I64, ranks, 0),
	NODE(CPU_MODEL, "cpu_model", CSV_STR, cpu_model, 0),
	NODE(SOCKETS, "sockets", CSV_I64, sockets, 0),
	NODE(CORES, "cores", CSV_I64, cores, 0),
	NODE(THREADS, "threads", CSV_I64, threads, 0),
	NODE(NUMA_NODES, "numa_nodes", CSV_I64, numa, 0),
	NODE(MEM, "mem_B", CSV_I64, mem, 0),
	NODE(NUMA_MEM, "numa_mem_B", CSV_I64, numa_mem, 0),
	NODE(GPUS, "gpus", CSV_I64, gpus, 0),
	NODE(NICS, "nics", CSV_I64, nics, 0),
	NODE(KERNEL, "kernel", CSV_STR, kernel, 0),
	NODE(MPI_VERSION, "mpi_version", CSV_STR, mpi, 0),
	NODE(PROBES, "probes", CSV_STR, used, 0),
	NODE(PROBES_MISSING, "probes_missing", CSV_STR, missing, 0),
	NODE(WARNINGS, "warnings", CSV_STR, notes, 0),
};

#define NIC(i, n, t, f, p) [INV_CSV_NIC_##i] = CSV_COL(n, t, struct inv_csv_nic, f, p)
const struct csv_col inv_csv_nic_cols[INV_CSV_NIC_NCOLS] = {
	NIC(RUN_ID, "run_id", CSV_STR, run_id, 0),
	NIC(HOST, "host", CSV_STR, host, 0),
	NIC(DEVICE, "device", CSV_STR, device, 0),
	NIC(PORT, "port", CSV_I64, port, 0),
	NIC(NETDEV, "netdev", CSV_STR, netdev, 0),
	NIC(KIND, "kind", CSV_STR, kind, 0),
	NIC(VIRTUAL, "virtual", CSV_I64, virt, 0),
	NIC(STATE, "state", CSV_STR, state, 0),
	NIC(NETDEV_STATE, "netdev_state", CSV_STR, netdev_state, 0),
	NIC(RATE, "rate_Gbps", CSV_F64, rate, 1),
	NIC(WIDTH, "width_lanes", CSV_I64, width, 0),
	NIC(LANE_SPEED, "lane_speed", CSV_STR, speed, 0),
	NIC(MTU, "mtu_B", CSV_I64, mtu, 0),
	NIC(NUMA_NODE, "numa_node", CSV_I64, numa, 0),
	NIC(PCI_ADDR, "pci_addr", CSV_STR, pci, 0),
	NIC(GUID_OR_MAC, "guid_or_mac", CSV_STR, addr, 0),
	NIC(IPV4, "ipv4", CSV_STR, ipv4, 0),
	NIC(IPV4_PREFIX, "ipv4_prefix", CSV_I64, prefix, 0),
	NIC(GID_INDEX, "roce_v2_gid_index", CSV_I64, gid, 0),
	NIC(FW_VER, "fw_ver", CSV_STR, fw, 0),
};

#define GPU(i, n, t, f) [INV_CSV_GPU_##i] = CSV_COL(n, t, struct inv_csv_gpu, f, 0)
const struct csv_col inv_csv_gpu_cols[INV_CSV_GPU_NCOLS] = {
	GPU(RUN_ID, "run_id", CSV_STR, run_id),
	GPU(HOST, "host", CSV_STR, host),
	GPU(INDEX, "index", CSV_I64, index),
	GPU(MODEL, "model", CSV_STR, model),
	GPU(PCI, "pci_addr", CSV_STR, pci),
	GPU(NUMA, "numa_node", CSV_I64, numa),
	GPU(NIC, "nearest_nic", CSV_STR, nic),
	GPU(CLASS, "path_class", CSV_STR, cls),
	GPU(UUID, "uuid", CSV_STR, uuid),
	GPU(NVLINKS, "nvlinks", CSV_I64, nvlinks),
	GPU(NVLINKS_UP, "nvlinks_up", CSV_I64, nvlinks_up),
	GPU(NVLINK_TO, "nvlink_to", CSV_STR, nvlink_to),
	GPU(FABRIC, "fabric_state", CSV_STR, fabric),
	GPU(FABRIC_STATUS, "fabric_status", CSV_I64, fabric_status),
	GPU(DOMAIN, "nvlink_domain", CSV_STR, domain),
	GPU(HEALTH, "fabric_health", CSV_STR, health),
	GPU(CHASSIS, "chassis_serial", CSV_STR, chassis),
	GPU(SLOT, "slot", CSV_I64, slot),
	GPU(TRAY, "tray", CSV_I64, tray),
	GPU(HOST_ID, "host_id", CSV_I64, host_id),
	GPU(MODULE_ID, "module_id", CSV_I64, module_id),
};

#define PATH(i, n, t, f) [INV_CSV_PATH_##i] = CSV_COL(n, t, struct inv_csv_path, f, 0)
const struct csv_col inv_csv_path_cols[INV_CSV_PATH_NCOLS] = {
	PATH(RUN_ID, "run_id", CSV_STR, run_id),
	PATH(PATH, "path", CSV_STR, path),
	PATH(KIND, "kind", CSV_STR, kind),
	PATH(NODES, "nodes", CSV_I64, nodes),
	PATH(MISSING, "nodes_missing", CSV_I64, missing),
	PATH(SUBNET, "subnet", CSV_STR, subnet),
	PATH(DIFFERS, "subnet_differs", CSV_I64, differs),
};

#define MM(i, n, t, f) [INV_CSV_MM_##i] = CSV_COL(n, t, struct inv_csv_mm, f, 0)
const struct csv_col inv_csv_mm_cols[INV_CSV_MM_NCOLS] = {
	MM(RUN_ID, "run_id", CSV_STR, run_id),
	MM(HOST, "host", CSV_STR, host),
	MM(ITEM, "item", CSV_STR, item),
	MM(FIELD, "field", CSV_STR, field),
	MM(VALUE, "value", CSV_STR, value),
	MM(MAJORITY, "majority", CSV_STR, majority),
	MM(TIE, "tie", CSV_I64, tie),
};
