/* nic_place.h — where the measurements of a NIC port run: on the cores of the port's NUMA node,
 * with their buffers there. A port's PCI device gives its NUMA node and local CPUs (sysfs:
 * <dev>/device/numa_node and local_cpulist, else the node's cpulist); the cores that this
 * process may use among them are the placement. A measurement from the far socket reads a
 * fraction of the port's rate (its DMA and the host's memory cross the socket link), so a port
 * that cannot be placed on its node (no core of it allowed: a cgroup, a launcher's binding) is
 * said, never measured silently from elsewhere. Pure but for the sysfs reads (root settable,
 * as the probes'); no MPI. */
#ifndef FP_NIC_PLACE_H
#define FP_NIC_PLACE_H

#include <sched.h>
#include <stddef.h>

/* none: the path has no NIC of its own (mpi, a GPU path), or the machine's endpoints share it
 * (placed for the emulation); nic_node: on the port's NUMA node; off_node: none of the allowed
 * cores is on it (measured from the allowed ones, said); unknown: no PCI device (a virtual
 * port) or no NUMA node known (one node, or a firmware that does not say) */
enum nic_place_status { PLACE_NONE, PLACE_NIC_NODE, PLACE_OFF_NODE, PLACE_UNKNOWN, PLACE_NSTATUS };

struct nic_place {
	int status;                 /* enum nic_place_status */
	int numa;                   /* the port's NUMA node; -1 unknown */
	cpu_set_t local;            /* its local CPUs (empty when unknown) */
	cpu_set_t use;              /* the cores the measurement runs on: allowed ∩ local on its node,
				     * else the allowed ones */
};

/* The placement of path's port ("tcp:eth3": netdev eth3; "verbs:mlx5_3:1": RDMA device mlx5_3;
 * anything else: PLACE_NONE) under root ("/sys" when NULL), for a process allowed the CPUs of
 * allowed. Always fills p. */
void nic_place_find(const char *root, const char *path, const cpu_set_t *allowed, struct nic_place *p);
/* "", "nic_node", "off_node", "unknown" (as placement.csv writes it) */
const char *nic_place_status_name(int status);

/* A kernel CPU list ("0-7,16-23"; blanks and a final newline allowed) into out: 0, or -1 when
 * it is not one (out then empty). */
int cpulist_parse(const char *s, cpu_set_t *out);
/* s as a CPU list into buf (len bytes; "" for none; cut with "..." when it does not fit). */
void cpulist_format(const cpu_set_t *s, char *buf, size_t len);

#endif
