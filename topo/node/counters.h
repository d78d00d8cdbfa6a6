/* counters.h — the ports' error and traffic counters, read before the first pair and after the
 * last, and what changed between: every RDMA port's counters/ and hw_counters/
 * (/sys/class/infiniband/<dev>/ports/<p>/), every netdev's statistics/ and carrier_changes
 * (/sys/class/net/<if>/). Pure: no MPI; the sysfs root is settable, as the probes'.
 *
 * A counter's class decides what a change means. Only two classes make a finding, and only on
 * a port that is judged (an RDMA port; a netdev with a PCI device, or one a measured path
 * names): a link that went down (flap: link_downed, carrier_changes) and a link that corrupts
 * or drops (errors: symbol_error, link_error_recovery, port_rcv_errors, CRC and frame errors,
 * transmit discards, ...), each above its threshold (ctr_threshold). Traffic, congestion
 * (PortXmitWait, CNPs, ECN marks) and retransmission counters are written, never judged: they
 * move on a healthy fabric under load. */
#ifndef FP_COUNTERS_H
#define FP_COUNTERS_H

#include <stdint.h>

#define CTR_PORT_MAX 40   /* "mlx5_0:1", or a netdev name */
#define CTR_NAME_MAX 48
#define CTR_MAX 4096      /* counters of one node; more are left out (and said) */

enum ctr_class { CTR_OTHER, CTR_TRAFFIC, CTR_CONGESTION, CTR_RETRANSMIT, CTR_ERRORS, CTR_FLAP, CTR_NCLASSES };
/* where a counter lives: ports/<p>/counters, ports/<p>/hw_counters, net/<if>/statistics,
 * net/<if> itself (carrier_changes) */
enum ctr_source { CTR_SRC_COUNTERS, CTR_SRC_HW_COUNTERS, CTR_SRC_STATISTICS, CTR_SRC_NETDEV, CTR_NSOURCES };
enum ctr_port_kind { CTR_KIND_ETH, CTR_KIND_IB, CTR_KIND_ROCE, CTR_NKINDS };

struct ctr_value {
	char port[CTR_PORT_MAX];
	char name[CTR_NAME_MAX];
	uint8_t source, kind;     /* enum ctr_source, enum ctr_port_kind */
	uint8_t physical;         /* an RDMA port, or a netdev with a device link */
	uint64_t v;
};

struct ctr_set {
	int n, left_out;          /* read; beyond CTR_MAX */
	int nports;
	struct ctr_value *v;      /* CTR_MAX of room */
};

/* Every counter under root ("/sys" when NULL) into s (allocated here; ctr_set_free). A file
 * that is unreadable or not a decimal number is skipped (sysfs counters can refuse a read on a
 * port that is down). 0, or FP_ERUNTIME (out of memory). */
int ctr_read(const char *root, struct ctr_set *s);
void ctr_set_free(struct ctr_set *s);

/* The class of a counter (by its source and name; unknown names are CTR_OTHER) and the names
 * of the enums as counters.csv writes them. */
int ctr_class_of(int source, const char *name);
const char *ctr_class_name(int cls);
const char *ctr_source_name(int source);
const char *ctr_kind_name(int kind);

/* One row of counters.csv, as a node sends it (fixed size: gathered as bytes). */
enum ctr_note { CTR_NOTE_NONE, CTR_NOTE_RESET, CTR_NOTE_GONE, CTR_NOTE_NEW, CTR_NOTE_SATURATED };
struct ctr_delta {
	char port[CTR_PORT_MAX];
	char name[CTR_NAME_MAX];
	uint8_t source, kind, cls, judged, note;
	uint64_t before, after;   /* after - before is the delta when note is NONE or SATURATED */
};
const char *ctr_note_text(int note);

/* The rows between two reads of one node: every counter that changed, every flap or error
 * counter of a judged port (a zero says it was read), and any counter that went back (a
 * reset), went away or came. A port is judged when it is physical or its name is one of
 * netdevs (the netdevs of the measured paths). At most max rows into out; returns the count
 * (more than max when some did not fit). Pure. */
int ctr_deltas(const struct ctr_set *before, const struct ctr_set *after, const char *const *netdevs, int nnetdevs,
	       struct ctr_delta *out, int max);

/* The rise over a run that a judged port may show on counter name of source before it is a
 * finding (0: none; counters.c's table, docs/judging.md), or -1 when it is never judged. */
long long ctr_threshold(int source, const char *name);

/* A RoCE port's congestion counters (hw_counters: ECN-marked packets, CNPs sent, handled or
 * ignored) over a pass with no incast, each port streaming to one port of its own leaf (`run
 * --rails`' every rail at once): a rise above CTR_QUIET_ALLOW is "congestion" (a switch's ECN
 * or PFC settings, or a receiver that cannot keep up: its NIC marks or pauses), else NULL. Only
 * these counters: on InfiniBand PortXmitWait rises whenever a port waits for credits. Pure. */
#define CTR_QUIET_ALLOW 100
const char *ctr_quiet_finding(const struct ctr_delta *d);
/* The finding a row makes: "link_flap", "link_errors", or NULL (none: not judged, not a flap
 * or error counter, a rise within its threshold, or an unreadable delta). */
const char *ctr_finding(const struct ctr_delta *d);

#endif
