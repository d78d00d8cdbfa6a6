/* counters.c — see counters.h. The names and widths are the kernel's sysfs ABI
 * (Documentation/ABI/stable/sysfs-class-infiniband: the PortCounters attribute of the IB
 * specification, whose error counters are 4 to 16 bits wide and stop at their maximum;
 * sysfs-class-net-statistics; the mlx5 hw_counters of RoCE). */
#include "counters.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "inv_probe.h"

/* ---------------------------------------------------------------- the classes */

struct ctr_known {
	const char *name;
	int cls;
	int bits;   /* a PortCounters field's width (it saturates there); 0: 64-bit, or a kernel count */
	int allow;  /* flap and errors: the rise over a run a judged port may show (docs/judging.md) */
};

/* The thresholds, as operators set them (docs/judging.md names the sources): a link that went
 * down, and the physical layer's uncorrected errors (IB symbol errors and link recoveries,
 * Ethernet FCS and frame errors after FEC), count from the first; receive errors of any cause
 * above 100 (a marginal cable reads a few at the specified bit error rate over a long run);
 * transmit discards above 1,000 (on a lossless fabric, packets dropped after waiting for credits
 * that did not come). */
#define ANY 0
#define RCV 100
#define DISCARDS 1000

/* ports/<p>/counters */
static const struct ctr_known ib_counters[] = {
	{ "link_downed", CTR_FLAP, 8, ANY },
	{ "symbol_error", CTR_ERRORS, 16, ANY },
	{ "link_error_recovery", CTR_ERRORS, 8, ANY },
	{ "port_rcv_errors", CTR_ERRORS, 16, RCV },
	{ "port_rcv_remote_physical_errors", CTR_ERRORS, 16, RCV },
	{ "local_link_integrity_errors", CTR_ERRORS, 4, ANY },
	{ "excessive_buffer_overrun_errors", CTR_ERRORS, 4, ANY },
	{ "port_rcv_switch_relay_errors", CTR_OTHER, 16, 0 },  /* routing drops: a switch's table, not the link */
	{ "port_xmit_discards", CTR_ERRORS, 16, DISCARDS },
	{ "port_xmit_wait", CTR_CONGESTION, 0, 0 },
	{ "port_xmit_constraint_errors", CTR_OTHER, 8, 0 },
	{ "port_rcv_constraint_errors", CTR_OTHER, 8, 0 },
	{ "VL15_dropped", CTR_OTHER, 16, 0 },
	{ "port_xmit_data", CTR_TRAFFIC, 0, 0 },
	{ "port_rcv_data", CTR_TRAFFIC, 0, 0 },
	{ "port_xmit_packets", CTR_TRAFFIC, 0, 0 },
	{ "port_rcv_packets", CTR_TRAFFIC, 0, 0 },
	{ "unicast_xmit_packets", CTR_TRAFFIC, 0, 0 },
	{ "unicast_rcv_packets", CTR_TRAFFIC, 0, 0 },
	{ "multicast_xmit_packets", CTR_TRAFFIC, 0, 0 },
	{ "multicast_rcv_packets", CTR_TRAFFIC, 0, 0 },
	{ NULL, 0, 0, 0 },
};

/* ports/<p>/hw_counters (mlx5): RoCE's congestion control and its retransmissions */
static const struct ctr_known hw_counters[] = {
	{ "np_cnp_sent", CTR_CONGESTION, 0, 0 },
	{ "rp_cnp_handled", CTR_CONGESTION, 0, 0 },
	{ "rp_cnp_ignored", CTR_CONGESTION, 0, 0 },
	{ "np_ecn_marked_roce_packets", CTR_CONGESTION, 0, 0 },
	{ "out_of_sequence", CTR_RETRANSMIT, 0, 0 },
	{ "packet_seq_err", CTR_RETRANSMIT, 0, 0 },
	{ "out_of_buffer", CTR_RETRANSMIT, 0, 0 },
	{ "duplicate_request", CTR_RETRANSMIT, 0, 0 },
	{ "implied_nak_seq_err", CTR_RETRANSMIT, 0, 0 },
	{ "local_ack_timeout_err", CTR_RETRANSMIT, 0, 0 },
	{ "rnr_nak_retry_err", CTR_RETRANSMIT, 0, 0 },
	{ "req_cqe_error", CTR_RETRANSMIT, 0, 0 },
	{ "resp_cqe_error", CTR_RETRANSMIT, 0, 0 },
	{ "rx_icrc_encapsulated", CTR_ERRORS, 0, RCV },
	{ NULL, 0, 0, 0 },
};

/* net/<if>/statistics and net/<if> */
static const struct ctr_known net_counters[] = {
	{ "carrier_changes", CTR_FLAP, 0, ANY },
	{ "rx_crc_errors", CTR_ERRORS, 0, ANY },
	{ "rx_frame_errors", CTR_ERRORS, 0, ANY },
	{ "rx_length_errors", CTR_ERRORS, 0, RCV },
	{ "rx_errors", CTR_ERRORS, 0, RCV },
	{ "tx_errors", CTR_ERRORS, 0, RCV },
	{ "tx_carrier_errors", CTR_ERRORS, 0, ANY },
	{ "rx_dropped", CTR_CONGESTION, 0, 0 },   /* unknown protocols and full rings too: never judged */
	{ "tx_dropped", CTR_CONGESTION, 0, 0 },
	{ "rx_missed_errors", CTR_CONGESTION, 0, 0 },
	{ "rx_fifo_errors", CTR_CONGESTION, 0, 0 },
	{ "rx_over_errors", CTR_CONGESTION, 0, 0 },
	{ "tx_fifo_errors", CTR_CONGESTION, 0, 0 },
	{ "collisions", CTR_OTHER, 0, 0 },
	{ "rx_bytes", CTR_TRAFFIC, 0, 0 },
	{ "tx_bytes", CTR_TRAFFIC, 0, 0 },
	{ "rx_packets", CTR_TRAFFIC, 0, 0 },
	{ "tx_packets", CTR_TRAFFIC, 0, 0 },
	{ "multicast", CTR_TRAFFIC, 0, 0 },
	{ NULL, 0, 0, 0 },
};

static const struct ctr_known *known(int source, const char *name)
{
	const struct ctr_known *t = source == CTR_SRC_COUNTERS ? ib_counters : source == CTR_SRC_HW_COUNTERS
					? hw_counters : net_counters;

	for (; t->name; t++)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}

long long ctr_threshold(int source, const char *name)
{
	const struct ctr_known *k = known(source, name);

	return k && (k->cls == CTR_FLAP || k->cls == CTR_ERRORS) ? k->allow : -1;
}

int ctr_class_of(int source, const char *name)
{
	const struct ctr_known *k = known(source, name);

	return k ? k->cls : CTR_OTHER;
}

const char *ctr_class_name(int cls)
{
	static const char *const n[CTR_NCLASSES] = { "other", "traffic", "congestion", "retransmit", "errors", "flap" };

	return cls >= 0 && cls < CTR_NCLASSES ? n[cls] : "other";
}

const char *ctr_source_name(int source)
{
	static const char *const n[CTR_NSOURCES] = { "counters", "hw_counters", "statistics", "netdev" };

	return source >= 0 && source < CTR_NSOURCES ? n[source] : "";
}

const char *ctr_kind_name(int kind)
{
	static const char *const n[CTR_NKINDS] = { "eth", "ib", "roce" };

	return kind >= 0 && kind < CTR_NKINDS ? n[kind] : "";
}

const char *ctr_note_text(int note)
{
	static const char *const n[] = { "", "went back (reset or driver reload): no delta",
					 "gone after the run: no delta", "new during the run: no delta",
					 "at its maximum (the counter stops there): the delta is at least this" };

	return note >= 0 && note <= CTR_NOTE_SATURATED ? n[note] : "";
}

/* ---------------------------------------------------------------- reading */

/* a whole decimal number (sysfs counters: "12345\n"); 0 or -1 */
static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

static void add(struct ctr_set *s, const char *port, const char *name, int source, int kind, int physical,
		uint64_t v)
{
	struct ctr_value *x;

	if (strlen(port) >= CTR_PORT_MAX || strlen(name) >= CTR_NAME_MAX)
		return;
	if (s->n >= CTR_MAX) {
		s->left_out++;
		return;
	}
	x = &s->v[s->n++];
	memset(x, 0, sizeof *x);
	strcpy(x->port, port);
	strcpy(x->name, name);
	x->source = (uint8_t)source, x->kind = (uint8_t)kind, x->physical = (uint8_t)physical, x->v = v;
}

/* every number file of root/rel into s */
static void read_dir(struct ctr_set *s, const char *root, const char *rel, const char *port, int source, int kind,
		     int physical)
{
	char names[INV_DIR_MAX][INV_NAME_MAX];
	char buf[64];
	uint64_t v;
	int n = inv_sysfs_list(root, rel, names, INV_DIR_MAX);

	for (int i = 0; i < n; i++)
		if (!inv_sysfs_read(root, buf, sizeof buf, "%s/%s", rel, names[i]) && !parse_u64(buf, &v))
			add(s, port, names[i], source, kind, physical, v);
}

static void read_ib(struct ctr_set *s, const char *root)
{
	char devs[INV_DIR_MAX][INV_NAME_MAX], ports[16][INV_NAME_MAX], rel[512], ll[32], label[CTR_PORT_MAX + 8];
	int nd = inv_sysfs_list(root, "class/infiniband", devs, INV_DIR_MAX);

	for (int d = 0; d < nd; d++) {
		int np;

		snprintf(rel, sizeof rel, "class/infiniband/%.31s/ports", devs[d]);
		np = inv_sysfs_list(root, rel, ports, 16);
		for (int p = 0; p < np; p++) {
			int kind = CTR_KIND_IB;

			if (!inv_sysfs_read(root, ll, sizeof ll, "class/infiniband/%.31s/ports/%.31s/link_layer", devs[d], ports[p]) &&
			    !strcmp(ll, "Ethernet"))
				kind = CTR_KIND_ROCE;
			snprintf(label, sizeof label, "%.31s:%.7s", devs[d], ports[p]);
			s->nports++;
			snprintf(rel, sizeof rel, "class/infiniband/%.31s/ports/%.31s/counters", devs[d], ports[p]);
			read_dir(s, root, rel, label, CTR_SRC_COUNTERS, kind, 1);
			snprintf(rel, sizeof rel, "class/infiniband/%.31s/ports/%.31s/hw_counters", devs[d], ports[p]);
			read_dir(s, root, rel, label, CTR_SRC_HW_COUNTERS, kind, 1);
		}
	}
}

static void read_net(struct ctr_set *s, const char *root)
{
	char ifs[INV_DIR_MAX][INV_NAME_MAX], rel[512], buf[64];
	int n = inv_sysfs_list(root, "class/net", ifs, INV_DIR_MAX);

	for (int i = 0; i < n; i++) {
		uint64_t v;
		int physical;

		if (!strcmp(ifs[i], "lo"))
			continue;
		snprintf(rel, sizeof rel, "class/net/%.31s/device", ifs[i]);
		physical = inv_sysfs_exists(root, rel);
		s->nports++;
		if (!inv_sysfs_read(root, buf, sizeof buf, "class/net/%.31s/carrier_changes", ifs[i]) && !parse_u64(buf, &v))
			add(s, ifs[i], "carrier_changes", CTR_SRC_NETDEV, CTR_KIND_ETH, physical, v);
		snprintf(rel, sizeof rel, "class/net/%.31s/statistics", ifs[i]);
		read_dir(s, root, rel, ifs[i], CTR_SRC_STATISTICS, CTR_KIND_ETH, physical);
	}
}

int ctr_read(const char *root, struct ctr_set *s)
{
	memset(s, 0, sizeof *s);
	if (!(s->v = malloc(sizeof *s->v * CTR_MAX)))
		return FP_ERUNTIME;
	if (!root)
		root = "/sys";
	read_ib(s, root);
	read_net(s, root);
	return 0;
}

void ctr_set_free(struct ctr_set *s)
{
	if (!s)
		return;
	free(s->v);
	memset(s, 0, sizeof *s);
}

/* ---------------------------------------------------------------- deltas */

static int same(const struct ctr_value *a, const struct ctr_value *b)
{
	return a->source == b->source && !strcmp(a->name, b->name) && !strcmp(a->port, b->port);
}

/* x's counter in s: at its own position first (two reads of one node list the same files in
 * the same order), else searched for */
static const struct ctr_value *find(const struct ctr_set *s, const struct ctr_value *x, int at)
{
	if (at < s->n && same(&s->v[at], x))
		return &s->v[at];
	for (int i = 0; i < s->n; i++)
		if (same(&s->v[i], x))
			return &s->v[i];
	return NULL;
}

static int judged(const struct ctr_value *x, const char *const *netdevs, int nnetdevs)
{
	if (x->physical)
		return 1;
	for (int i = 0; i < nnetdevs; i++)
		if (!strcmp(netdevs[i], x->port))
			return 1;
	return 0;
}

static int saturated(const struct ctr_value *x)
{
	const struct ctr_known *k = x->source == CTR_SRC_COUNTERS ? known(x->source, x->name) : NULL;

	return k && k->bits && x->v == (1ULL << k->bits) - 1;
}

static void put(struct ctr_delta *out, int max, int *n, const struct ctr_value *x, uint64_t before, uint64_t after,
		int j, int note)
{
	if (*n < max) {
		struct ctr_delta *d = &out[*n];

		memset(d, 0, sizeof *d);
		memcpy(d->port, x->port, sizeof d->port);
		memcpy(d->name, x->name, sizeof d->name);
		d->source = x->source, d->kind = x->kind, d->cls = (uint8_t)ctr_class_of(x->source, x->name);
		d->judged = (uint8_t)j, d->note = (uint8_t)note, d->before = before, d->after = after;
	}
	(*n)++;
}

int ctr_deltas(const struct ctr_set *before, const struct ctr_set *after, const char *const *netdevs, int nnetdevs,
	       struct ctr_delta *out, int max)
{
	int n = 0;

	for (int i = 0; i < after->n; i++) {
		const struct ctr_value *y = &after->v[i], *x = find(before, y, i);
		int j = judged(y, netdevs, nnetdevs), cls = ctr_class_of(y->source, y->name);
		int health = j && (cls == CTR_FLAP || cls == CTR_ERRORS);

		if (!x)
			put(out, max, &n, y, 0, y->v, j, CTR_NOTE_NEW);
		else if (y->v < x->v)
			put(out, max, &n, y, x->v, y->v, j, CTR_NOTE_RESET);
		else if (saturated(x) || saturated(y))
			put(out, max, &n, y, x->v, y->v, j, CTR_NOTE_SATURATED);
		else if (y->v != x->v || health)
			put(out, max, &n, y, x->v, y->v, j, CTR_NOTE_NONE);
	}
	for (int i = 0; i < before->n; i++)
		if (!find(after, &before->v[i], i))
			put(out, max, &n, &before->v[i], before->v[i].v, 0, judged(&before->v[i], netdevs, nnetdevs),
			    CTR_NOTE_GONE);
	return n;
}

const char *ctr_quiet_finding(const struct ctr_delta *d)
{
	if (d->source != CTR_SRC_HW_COUNTERS || d->cls != CTR_CONGESTION ||
	    (d->note != CTR_NOTE_NONE && d->note != CTR_NOTE_SATURATED) || d->after <= d->before ||
	    d->after - d->before <= CTR_QUIET_ALLOW)
		return NULL;
	return "congestion";
}

const char *ctr_finding(const struct ctr_delta *d)
{
	long long allow = ctr_threshold(d->source, d->name);

	if (!d->judged || (d->note != CTR_NOTE_NONE && d->note != CTR_NOTE_SATURATED) || d->after <= d->before ||
	    allow < 0 || d->after - d->before <= (unsigned long long)allow)
		return NULL;
	return d->cls == CTR_FLAP ? "link_flap" : d->cls == CTR_ERRORS ? "link_errors" : NULL;
}
