/* inv_csv.c — see inv_csv.h. */
#include "inv_csv.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "csv_read.h"

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

/* "<8-4-4-4-12 hex>.<digits>", as inv_gpu_domain writes it */
static int domain_ok(const char *v)
{
	static const char shape[] = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx.";
	size_t i = 0;

	for (; shape[i]; i++)
		if (shape[i] == 'x' ? !isxdigit((unsigned char)v[i]) || isupper((unsigned char)v[i]) : v[i] != shape[i])
			return 0;
	if (!v[i] || strlen(v + i) > 10)
		return 0;
	for (; v[i]; i++)
		if (!isdigit((unsigned char)v[i]))
			return 0;
	return 1;
}

struct host_at {
	const char *name;
	int i;
};

static int host_cmp(const void *a, const void *b)
{
	return strcmp(((const struct host_at *)a)->name, ((const struct host_at *)b)->name);
}

int inv_csv_domains(const char *file, const char *const *hosts, int n, char ***out, char *err)
{
	struct csv_read r;
	struct host_at *by = malloc(sizeof *by * ((size_t)n + 1)), key, *hit;
	char **dom = calloc((size_t)n + 1, sizeof *dom), *text = NULL;
	int idx[INV_CSV_GPU_NCOLS], *state = calloc((size_t)n + 1, sizeof *state), rc, named = 0;
	size_t used = 0;

	*out = NULL;
	if (!by || !dom || !state || !(text = malloc((size_t)n * 48 + 1))) {
		free(by), free(dom), free(state), free(text);
		snprintf(err, CSV_READ_ERR_MAX, "out of memory");
		return FP_ERUNTIME;
	}
	if ((rc = csv_read_open(&r, file, err))) {
		free(by), free(dom), free(state), free(text);
		return rc;
	}
	for (int i = 0; i < n; i++)
		by[i] = (struct host_at){ hosts[i], i };
	qsort(by, (size_t)n, sizeof *by, host_cmp);
	csv_read_cols(&r, inv_csv_gpu_cols, INV_CSV_GPU_NCOLS, idx);
	while (idx[INV_CSV_GPU_HOST] >= 0 && idx[INV_CSV_GPU_DOMAIN] >= 0 && (rc = csv_read_next(&r, err)) == 1) {
		const char *v = csv_read_get(&r, idx[INV_CSV_GPU_DOMAIN]);

		key.name = csv_read_get(&r, idx[INV_CSV_GPU_HOST]);
		if (v[0] && !domain_ok(v)) {
			snprintf(err, CSV_READ_ERR_MAX, "%.300s:%d: nvlink_domain is not <cluster UUID>.<clique id>", file,
				 r.line);
			rc = FP_EUSAGE;
			break;
		}
		if (!(hit = bsearch(&key, by, (size_t)n, sizeof *by, host_cmp)) || state[hit->i] < 0)
			continue; /* a host of another run, or one already in none */
		if (!v[0] || (state[hit->i] && strcmp(dom[hit->i], v))) {
			state[hit->i] = -1, dom[hit->i] = NULL;
			continue;
		}
		if (!state[hit->i]) {
			dom[hit->i] = text + used;
			used += (size_t)snprintf(text + used, 48, "%s", v) + 1;
			state[hit->i] = 1;
		}
	}
	csv_read_close(&r);
	for (int i = 0; i < n; i++)
		named += state[i] > 0;
	free(by);
	free(state);
	if (rc < 0 || !named) {
		free(dom);
		free(text);
		return rc < 0 ? rc : 0;
	}
	/* one block: the pointers, then the text (moved behind them) */
	char **all = realloc(dom, sizeof *dom * (size_t)n + used);

	if (!all) {
		free(dom);
		free(text);
		snprintf(err, CSV_READ_ERR_MAX, "out of memory");
		return FP_ERUNTIME;
	}
	memcpy((char *)(all + n), text, used);
	for (int i = 0; i < n; i++)
		if (all[i])
			all[i] = (char *)(all + n) + (all[i] - text);
	free(text);
	*out = all;
	return 0;
}
