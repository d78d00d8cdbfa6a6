/* inv_probe.h — the probes' contract (struct inv_probe_ops, the registry) and what the probe
 * files share, not for the rest of the program: sysfs access under a root, reporting bad
 * files, filling a node, decoding sysfs text, the locality analysis run after the probes. */
#ifndef FP_INV_PROBE_H
#define FP_INV_PROBE_H

#include "inventory.h"

#define INV_DIR_MAX 128 /* entries of one sysfs directory examined */

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

/* Append a warning to node->notes (dropped beyond INV_NOTES_MAX). */
void inv_note(struct inv_node *node, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The NIC with this RDMA device and port, or this netdev (port -1); appended when absent
 * (NULL when full). */
struct inv_nic *inv_nic_get(struct inv_node *node, const char *device, int port, const char *netdev);
/* sysfs rate "200 Gb/sec (4X HDR)" → 200 Gb/s, lanes 4, speed "HDR". 0 or FP_EUSAGE. */
int inv_rate_parse(const char *s, double *gbps, int *lanes, char *speed, int speed_len);
/* sysfs state "4: ACTIVE" → "active"; 0 or FP_EUSAGE. */
int inv_state_parse(const char *s, char *out, int len);
/* For each GPU its nearest usable NIC (RDMA ports preferred; ties go to the NIC with
 * fewer GPUs so far), and the warnings: two GPUs sharing a NIC while another is idle, a
 * GPU whose nearest NIC is across the socket, a port running at fewer lanes than its
 * peers. */
void inv_locality(struct inv_node *node);

/* ------------------------------------------------------------------ mismatches */

/* One node's value of a property. */
struct inv_vote {
	char v[INV_NAME_MAX];
	int node;
};
/* votes[0..nv) (sorted here): the reference value is the most frequent one, ties going to
 * the value some earlier node holds. Every node holding another value is a mismatch of item's
 * field, appended to out[nout..max). Returns the new count. */
int inv_judge(struct inv_vote *votes, int nv, const char *item, const char *field, struct inv_mismatch *out,
	      int nout, int max);
/* The NVLink fabric's checks (inv_nvl.c), appended the same way. */
int inv_nvl_mismatches(const struct inv_node *nodes, int n, struct inv_mismatch *out, int nout, int max);

/* ------------------------------------------------------------------ sysfs access */

/* Read the first line of "<root>/<rel>" (rel after printf formatting) into buf, without
 * the newline. Only a regular file is read, opened without blocking (a FIFO or a device in a
 * captured tree is refused, never waited on), and at most len - 1 bytes of it. Returns 0, or
 * -errno without logging (absence is often normal; -EINVAL: not a regular file). */
int inv_sysfs_read(const char *root, char *buf, int len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* "<root>/<rel>" opened for reading as inv_sysfs_read opens it (a regular file, without
 * blocking), and of at most INV_FILE_MAX bytes; NULL with errno set. */
#define INV_FILE_MAX (1 << 20)
FILE *inv_sysfs_fopen(const char *root, const char *rel);
/* Values out of any plausible range (a rate of 10^20 Gb/s, an MTU of 0, a NUMA node of
 * 10^9) are made unknown, with a warning naming them: a captured or broken file must not
 * give a figure that looks measured. inv_probe_all runs it after the probes. */
void inv_node_check_ranges(struct inv_node *node);
/* Entries of "<root>/<rel>" (not . and ..), in natural order. Returns the count, or -errno. */
int inv_sysfs_list(const char *root, const char *rel, char (*names)[INV_NAME_MAX], int max);
/* The PCI address ("0000:17:00.0") that the device link "<root>/<rel>" resolves to (the last
 * path component that looks like one). Returns 0, or 1 when it has none (a virtual device,
 * no such link): not an error, the NIC is listed without one. */
int inv_sysfs_pci(const char *root, const char *rel, char *out, int len);
/* 1 when "<root>/<rel>" exists. */
int inv_sysfs_exists(const char *root, const char *rel);
/* A file that should be there is missing, unreadable or malformed: warn naming it, and keep
 * the message in the node's notes (the probe goes on). */
void inv_sysfs_bad(struct inv_node *node, const char *root, const char *rel, const char *why);

/* The sysfs probe's parts (inv_sysfs.c, inv_sysfs_ib.c). */
void inv_sysfs_scan_ib(const char *root, struct inv_node *node);

extern const struct inv_probe_ops inv_probe_sysfs;
extern const struct inv_probe_ops inv_probe_hwloc;
extern const struct inv_probe_ops inv_probe_verbs;
extern const struct inv_probe_ops inv_probe_nvml;

#endif
