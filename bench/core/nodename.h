/* nodename.h — the name a node goes by in every output: its processor name (the host name
 * MPI reports), or its Slurm node name. Under Slurm the two can differ (fully qualified host
 * names, NodeHostname aliases), and every Slurm file must name the Slurm nodes. Pure: no MPI,
 * no environment reads (the caller passes the variables' values). */
#ifndef FP_NODENAME_H
#define FP_NODENAME_H

#include <stddef.h>

enum nodename_mode {
	NODENAME_AUTO,     /* Slurm's name where the task runs under Slurm, else the processor name */
	NODENAME_HOSTNAME, /* the processor name as it is */
	NODENAME_SHORT,    /* the processor name up to its first '.' */
	NODENAME_SLURM,    /* Slurm's name; an error where there is none */
};
#define NODENAME_MODES "hostname, short or slurm"

/* "hostname", "short" or "slurm" (--node-names) → the mode; -1 for anything else. */
int nodename_mode_parse(const char *s);

/* Slurm's name for this node from the task environment: SLURMD_NODENAME, else the node part
 * (the last dot-separated component) of SLURM_TOPOLOGY_ADDR ("s1.leaf3.node07" → "node07").
 * Either may be NULL. Returns out, or NULL when neither gives a usable name (empty, blank or
 * control characters, or longer than len - 1). */
const char *nodename_slurm(const char *slurmd_nodename, const char *topology_addr, char *out, size_t len);

/* This node's name under mode, into out (len). proc: the processor name; slurm: Slurm's name
 * (nodename_slurm) or NULL outside Slurm. Returns 0, or FP_EUSAGE when mode is NODENAME_SLURM
 * and slurm is NULL, or when the name does not fit. */
int nodename_choose(int mode, const char *proc, const char *slurm, char *out, size_t len);

/* The chosen names of n ranks against their processor names (both arrays of n names,
 * `stride` bytes apart): a chosen name shared by two different processor names means the
 * Slurm variables were copied from another node (a launcher that forwards the whole
 * environment). Returns -1 when there is no such pair, else the rank of one of them with
 * *other set to the other's rank. O(n log n). Returns FP_ERUNTIME when out of memory. */
int nodename_conflict(const char *proc, const char *chosen, size_t stride, int n, int *other);

#endif
