/* inv_probe.h — what the probe files share (not for the rest of the program): sysfs access
 * under a root, reporting bad files, and the probes themselves for the registry. */
#ifndef FP_INV_PROBE_H
#define FP_INV_PROBE_H

#include "inventory.h"

#define INV_DIR_MAX 128 /* entries of one sysfs directory examined */

/* Read the first line of "<root>/<rel>" (rel after printf formatting) into buf, without
 * the newline. Returns 0, or -errno without logging (absence is often normal). */
int inv_sysfs_read(const char *root, char *buf, int len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Entries of "<root>/<rel>" (not . and ..), in natural order. Returns the count, or -errno. */
int inv_sysfs_list(const char *root, const char *rel, char (*names)[INV_NAME_MAX], int max);
/* The PCI address ("0000:17:00.0") that the device link "<root>/<rel>" resolves to (the last
 * path component that looks like one). Returns 0 or -errno / FP_EUSAGE. */
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

#endif
