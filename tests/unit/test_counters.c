/* The link counters (topo/node/counters.h) on the fixtures' sysfs trees: what is read, with
 * which kind and whether the port is physical; then the deltas between two reads of one node,
 * and the findings they make: only a flap or an error counter that rose above its threshold on a
 * judged port. A healthy node under load (traffic, congestion, retransmissions, drops) makes
 * none. Over a pass with no incast, a RoCE port's ECN marks and CNPs above 100 are congestion;
 * IB's PortXmitWait and a netdev's drops are not. */
#include <string.h>

#include "check.h"
#include "node/counters.h"

#define FIX "tests/fixtures/"

static struct ctr_value *get(struct ctr_set *s, const char *port, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].port, port) && !strcmp(s->v[i].name, name))
			return &s->v[i];
	return NULL;
}

static void test_read_trees(void)
{
	struct ctr_set s;
	struct ctr_value *v;

	CHECK_EQ(ctr_read(FIX "ib-hdr/sysfs", &s), 0);
	CHECK((v = get(&s, "mlx5_3:1", "symbol_error")) && v->kind == CTR_KIND_IB && v->physical &&
	      v->source == CTR_SRC_COUNTERS && v->v == 0);
	CHECK((v = get(&s, "mlx5_0:1", "port_xmit_data")) && v->v == 81985529216486895ULL);
	CHECK((v = get(&s, "eth0", "carrier_changes")) && v->source == CTR_SRC_NETDEV && v->physical && v->v == 2);
	CHECK(get(&s, "lo", "rx_bytes") == NULL);
	CHECK_EQ(s.left_out, 0);
	ctr_set_free(&s);
	CHECK_EQ(ctr_read(FIX "roce/sysfs", &s), 0);
	CHECK((v = get(&s, "mlx5_1:1", "np_cnp_sent")) && v->kind == CTR_KIND_ROCE && v->source == CTR_SRC_HW_COUNTERS);
	ctr_set_free(&s);
	CHECK_EQ(ctr_read(FIX "eth25/sysfs", &s), 0);
	CHECK((v = get(&s, "docker0", "carrier_changes")) && !v->physical && v->v == 14);
	CHECK((v = get(&s, "eth0", "rx_crc_errors")) && v->physical && v->kind == CTR_KIND_ETH);
	ctr_set_free(&s);
	CHECK_EQ(ctr_read(FIX "no-such-tree", &s), 0); /* nothing there: nothing read, no error */
	CHECK_EQ(s.n, 0);
	ctr_set_free(&s);
}

/* the findings rule makes of the rows between a and b: "finding port name;" each */
static int found(const struct ctr_set *a, const struct ctr_set *b, const char *const *nd, int nnd,
		 const char *(*rule)(const struct ctr_delta *), char *out)
{
	static struct ctr_delta d[4096];
	int n = ctr_deltas(a, b, nd, nnd, d, 4096), k = 0;

	out[0] = 0;
	for (int i = 0; i < n && i < 4096; i++)
		if (rule(&d[i])) {
			k++;
			sprintf(out + strlen(out), "%s %s %s;", rule(&d[i]), d[i].port, d[i].name);
		}
	return k;
}

/* the rows and findings between a and b */
static int findings(const struct ctr_set *a, const struct ctr_set *b, const char *const *nd, int nnd, char *out)
{
	return found(a, b, nd, nnd, ctr_finding, out);
}

static void test_deltas_and_findings(void)
{
	struct ctr_set a, b;
	struct ctr_delta d[4096];
	const char *nd[] = { "veth12ab" };
	char out[2048];
	int n;

	CHECK_EQ(ctr_read(FIX "eth25/sysfs", &a), 0);
	CHECK_EQ(ctr_read(FIX "eth25/sysfs", &b), 0);
	/* unchanged: the judged ports' flap and error counters are listed at 0 (read), nothing else */
	n = ctr_deltas(&a, &b, NULL, 0, d, 4096);
	CHECK(n > 0);
	for (int i = 0; i < n; i++)
		CHECK(d[i].judged && (d[i].cls == CTR_FLAP || d[i].cls == CTR_ERRORS) && d[i].after == d[i].before);
	CHECK_EQ(findings(&a, &b, NULL, 0, out), 0);
	/* load: traffic, drops: rows, no finding */
	get(&b, "eth0", "rx_bytes")->v += 1000000;
	get(&b, "eth0", "rx_dropped")->v += 40;
	get(&b, "eth0", "rx_fifo_errors")->v += 3;
	CHECK_EQ(findings(&a, &b, NULL, 0, out), 0);
	/* a virtual interface no path uses flaps (a container came and went): not judged */
	get(&b, "docker0", "carrier_changes")->v += 2;
	get(&b, "veth12ab", "carrier_changes")->v += 2;
	CHECK_EQ(findings(&a, &b, NULL, 0, out), 0);
	/* ...unless a path names it */
	CHECK_EQ(findings(&a, &b, nd, 1, out), 1);
	CHECK_STR(out, "link_flap veth12ab carrier_changes;");
	/* the physical port: a flap and CRC errors, each its own finding */
	get(&b, "eth0", "carrier_changes")->v += 2;
	get(&b, "eth0", "rx_crc_errors")->v += 17;
	CHECK_EQ(findings(&a, &b, NULL, 0, out), 2);
	CHECK(strstr(out, "link_flap eth0 carrier_changes;") && strstr(out, "link_errors eth0 rx_crc_errors;"));
	/* a counter that went back (a driver reload): no delta, no finding */
	get(&b, "eth0", "carrier_changes")->v = 0;
	get(&b, "eth0", "rx_crc_errors")->v = 0;
	CHECK_EQ(findings(&a, &b, NULL, 0, out), 0);
	n = ctr_deltas(&a, &b, NULL, 0, d, 4096);
	int resets = 0;
	for (int i = 0; i < n; i++)
		resets += d[i].note == CTR_NOTE_RESET;
	CHECK_EQ(resets, 1); /* carrier_changes 2 -> 0; rx_crc_errors is back at its first value */
	/* room for 3 rows: the count says how many there were */
	CHECK(ctr_deltas(&a, &b, NULL, 0, d, 3) > 3);
	ctr_set_free(&a);
	ctr_set_free(&b);
}

static void test_ib_saturation_and_congestion(void)
{
	struct ctr_set a, b;
	char out[2048];

	CHECK_EQ(ctr_read(FIX "ib-hdr/sysfs", &a), 0);
	CHECK_EQ(ctr_read(FIX "ib-hdr/sysfs", &b), 0);
	/* congestion on a healthy fabric: PortXmitWait, discards; no finding */
	get(&b, "mlx5_2:1", "port_xmit_wait")->v += 5000000;
	get(&b, "mlx5_2:1", "port_xmit_discards")->v += 4;
	CHECK_EQ(findings(&a, &b, NULL, 0, out), 0);
	/* mlx5_7's symbol_error stopped at 65535 long ago: it cannot say, and does not count */
	CHECK_EQ(get(&a, "mlx5_7:1", "symbol_error")->v, 65535);
	CHECK_EQ(findings(&a, &b, NULL, 0, out), 0);
	/* one that reaches its maximum during the run counts, "at least" */
	get(&a, "mlx5_1:1", "symbol_error")->v = 65000;
	get(&b, "mlx5_1:1", "symbol_error")->v = 65535;
	get(&b, "mlx5_4:1", "link_downed")->v += 1;
	CHECK_EQ(findings(&a, &b, NULL, 0, out), 2);
	CHECK(strstr(out, "link_errors mlx5_1:1 symbol_error;") && strstr(out, "link_flap mlx5_4:1 link_downed;"));
	/* a port that went away during the run: said, no finding */
	b.v[0] = b.v[--b.n];
	CHECK_EQ(findings(&a, &b, NULL, 0, out), 2);
	ctr_set_free(&a);
	ctr_set_free(&b);
}

/* findings of the quiet pass */
static int quiet(const struct ctr_set *a, const struct ctr_set *b, char *out)
{
	return found(a, b, NULL, 0, ctr_quiet_finding, out);
}

static void test_quiet_congestion(void)
{
	static const char *const names[] = { "np_cnp_sent", "rp_cnp_handled", "rp_cnp_ignored",
					     "np_ecn_marked_roce_packets" };
	struct ctr_set a, b, c, d;
	char out[2048], want[128];

	CHECK_EQ(ctr_read(FIX "roce/sysfs", &a), 0);
	CHECK_EQ(ctr_read(FIX "roce/sysfs", &b), 0);
	CHECK_EQ(quiet(&a, &b, out), 0);
	for (int i = 0; i < 4; i++) {
		struct ctr_value *v = get(&b, "mlx5_1:1", names[i]);

		CHECK(v != NULL);
		if (!v)
			continue;
		v->v += CTR_QUIET_ALLOW; /* exactly the allowance: none */
		CHECK_EQ(quiet(&a, &b, out), 0);
		v->v += 1;
		CHECK_EQ(quiet(&a, &b, out), 1);
		snprintf(want, sizeof want, "congestion mlx5_1:1 %s;", names[i]);
		CHECK_STR(out, want);
		v->v -= CTR_QUIET_ALLOW + 1;
	}
	/* a retransmission counter, a netdev's drops: not congestion */
	get(&b, "mlx5_1:1", "out_of_sequence")->v += 5000;
	CHECK_EQ(quiet(&a, &b, out), 0);
	ctr_set_free(&a);
	ctr_set_free(&b);
	/* InfiniBand's PortXmitWait, however high: not */
	CHECK_EQ(ctr_read(FIX "ib-hdr/sysfs", &c), 0);
	CHECK_EQ(ctr_read(FIX "ib-hdr/sysfs", &d), 0);
	get(&d, "mlx5_2:1", "port_xmit_wait")->v += 5000000;
	CHECK_EQ(quiet(&c, &d, out), 0);
	ctr_set_free(&c);
	ctr_set_free(&d);
}

/* Each judged counter of each fixture (InfiniBand, RoCE, 25GbE), alone, on each side of its
 * threshold: a rise of exactly the threshold is no finding, one more is, of its class's kind; a
 * counter never judged has no threshold, and rises of any size make none. */
static void test_thresholds(void)
{
	static const char *const trees[] = { FIX "ib-hdr/sysfs", FIX "roce/sysfs", FIX "eth25/sysfs" };
	char out[2048];

	for (int t = 0; t < 3; t++) {
		struct ctr_set a, b;
		int judged = 0, allow100 = 0;

		CHECK_EQ(ctr_read(trees[t], &a), 0);
		CHECK_EQ(ctr_read(trees[t], &b), 0);
		for (int i = 0; i < a.n; i++)
			a.v[i].v = b.v[i].v = 0;
		for (int i = 0; i < b.n; i++) {
			long long thr = ctr_threshold(b.v[i].source, b.v[i].name);
			int cls = ctr_class_of(b.v[i].source, b.v[i].name);
			char want[160];

			if (!b.v[i].physical)
				continue;
			if (thr < 0) { /* never judged: a large rise, no finding */
				b.v[i].v = 5000000;
				CHECK_EQ(findings(&a, &b, NULL, 0, out), 0);
				b.v[i].v = 0;
				continue;
			}
			CHECK(cls == CTR_FLAP || cls == CTR_ERRORS);
			judged++;
			allow100 += thr == 100;
			b.v[i].v = (uint64_t)thr;
			CHECK_EQ(findings(&a, &b, NULL, 0, out), 0);
			b.v[i].v = (uint64_t)thr + 1;
			snprintf(want, sizeof want, "%s %s %s;", cls == CTR_FLAP ? "link_flap" : "link_errors", b.v[i].port,
				 b.v[i].name);
			CHECK_EQ(findings(&a, &b, NULL, 0, out), 1);
			CHECK_STR(out, want);
			b.v[i].v = 0;
		}
		CHECK(judged >= 3);
		CHECK(allow100 >= 1);
		ctr_set_free(&a);
		ctr_set_free(&b);
	}
	/* the figures: a link down and a symbol error from the first, receive errors above 100,
	 * transmit discards above 1,000; congestion never */
	CHECK_EQ(ctr_threshold(CTR_SRC_COUNTERS, "link_downed"), 0);
	CHECK_EQ(ctr_threshold(CTR_SRC_COUNTERS, "symbol_error"), 0);
	CHECK_EQ(ctr_threshold(CTR_SRC_COUNTERS, "port_rcv_errors"), 100);
	CHECK_EQ(ctr_threshold(CTR_SRC_COUNTERS, "port_xmit_discards"), 1000);
	CHECK_EQ(ctr_threshold(CTR_SRC_STATISTICS, "rx_errors"), 100);
	CHECK_EQ(ctr_threshold(CTR_SRC_STATISTICS, "rx_crc_errors"), 0);
	CHECK_EQ(ctr_threshold(CTR_SRC_HW_COUNTERS, "np_ecn_marked_roce_packets"), -1);
	CHECK_EQ(ctr_threshold(CTR_SRC_COUNTERS, "port_xmit_wait"), -1);
}

static void test_names(void)
{
	CHECK_STR(ctr_class_name(ctr_class_of(CTR_SRC_COUNTERS, "link_downed")), "flap");
	CHECK_STR(ctr_class_name(ctr_class_of(CTR_SRC_NETDEV, "carrier_changes")), "flap");
	CHECK_STR(ctr_class_name(ctr_class_of(CTR_SRC_HW_COUNTERS, "out_of_sequence")), "retransmit");
	CHECK_STR(ctr_class_name(ctr_class_of(CTR_SRC_STATISTICS, "rx_dropped")), "congestion");
	CHECK_STR(ctr_class_name(ctr_class_of(CTR_SRC_COUNTERS, "no_such_counter")), "other");
	CHECK_STR(ctr_kind_name(CTR_KIND_ROCE), "roce");
	CHECK_STR(ctr_source_name(CTR_SRC_HW_COUNTERS), "hw_counters");
}

int main(void)
{
	RUN(test_read_trees);
	RUN(test_deltas_and_findings);
	RUN(test_ib_saturation_and_congestion);
	RUN(test_quiet_congestion);
	RUN(test_thresholds);
	RUN(test_names);
	CHECK_EXIT();
}
