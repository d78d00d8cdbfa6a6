/* Where a NIC port's measurements run (topo/node/nic_place.h), on the fixtures' sysfs trees of a
 * two-socket node with 8 HCAs (ib-hdr: mlx5_0-3 and the front end's eth0 on the sockets' NUMA
 * nodes 0, 0, 0, 0 and 1; mlx5_4-7 on node 1) and of a 25GbE node: the NUMA node and cores
 * chosen for each port, with every core allowed and with a process bound to one socket (a
 * cgroup, a launcher's binding: the far socket's ports are then measured off their node, and
 * said); virtual ports and paths without a NIC of their own; the kernel's CPU lists, as they
 * are and as hostile files write them. */
#include "check.h"
#include "node/nic_place.h"

#define FIX "tests/fixtures/"

static cpu_set_t cpus(const char *list)
{
	cpu_set_t s;

	CHECK_EQ(cpulist_parse(list, &s), 0);
	return s;
}

static void check_place(const char *root, const char *path, const char *allowed, int status, int numa,
			const char *use)
{
	cpu_set_t a = cpus(allowed);
	struct nic_place p;
	char got[128];

	nic_place_find(root, path, &a, &p);
	cpulist_format(&p.use, got, sizeof got);
	CHECK_EQ(p.status, status);
	CHECK_EQ(p.numa, numa);
	CHECK_STR(got, use);
}

static void test_ports_on_their_node(void)
{
	for (int i = 0; i < 8; i++) {
		char path[32];

		snprintf(path, sizeof path, "verbs:mlx5_%d:1", i);
		check_place(FIX "ib-hdr/sysfs", path, "0-15", PLACE_NIC_NODE, i / 4, i < 4 ? "0-7" : "8-15");
		/* bound to socket 0: the far socket's HCAs are measured off their node, from socket 0 */
		check_place(FIX "ib-hdr/sysfs", path, "0-7", i < 4 ? PLACE_NIC_NODE : PLACE_OFF_NODE, i / 4, "0-7");
		/* some cores of each: the node's own */
		check_place(FIX "ib-hdr/sysfs", path, "2-3,12", PLACE_NIC_NODE, i / 4, i < 4 ? "2-3" : "12");
	}
	check_place(FIX "ib-hdr/sysfs", "tcp:eth0", "0-15", PLACE_NIC_NODE, 1, "8-15");
	check_place(FIX "eth25/sysfs", "tcp:eth0", "0-15", PLACE_NIC_NODE, 0, "0-7");
}

static void test_ports_not_placed(void)
{
	/* no NIC of its own: not placed, all allowed cores */
	check_place(FIX "ib-hdr/sysfs", "mpi", "0-15", PLACE_NONE, -1, "0-15");
	check_place(FIX "ib-hdr/sysfs", "nccl", "0-15", PLACE_NONE, -1, "0-15");
	/* a virtual port, no such port, a name that leaves the tree: unknown or none, never read */
	check_place(FIX "eth25/sysfs", "tcp:docker0", "0-15", PLACE_UNKNOWN, -1, "0-15");
	check_place(FIX "eth25/sysfs", "tcp:lo", "0-15", PLACE_UNKNOWN, -1, "0-15");
	check_place(FIX "ib-hdr/sysfs", "verbs:mlx5_9:1", "0-15", PLACE_UNKNOWN, -1, "0-15");
	check_place(FIX "ib-hdr/sysfs", "tcp:../../bus", "0-15", PLACE_NONE, -1, "0-15");
	check_place(FIX "ib-hdr/sysfs", "tcp:", "0-15", PLACE_NONE, -1, "0-15");
	CHECK_STR(nic_place_status_name(PLACE_OFF_NODE), "off_node");
	CHECK_STR(nic_place_status_name(99), "");
}

static void test_cpulists(void)
{
	static const char *const good[][2] = { { "0-7,16-23\n", "0-7,16-23" }, { "5", "5" }, { " 1,3,5-6", "1,3,5-6" },
					       { "0-1023", "0-1023" }, { "", "" } };
	static const char *const bad[] = { "7-3", "-1", "1,,x", "0-", "99999", "1-99999", "+4", "3 4", "0x10", "1-2-3" };
	cpu_set_t s;
	char out[64];

	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		CHECK_EQ(cpulist_parse(good[i][0], &s), 0);
		cpulist_format(&s, out, sizeof out);
		CHECK_STR(out, good[i][1]);
	}
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CHECK_EQ(cpulist_parse(bad[i], &s), -1);
		CHECK_EQ(CPU_COUNT(&s), 0);
	}
	/* every other core of 1024: cut, never overrun */
	CPU_ZERO(&s);
	for (int c = 0; c < 1024; c += 2)
		CPU_SET(c, &s);
	cpulist_format(&s, out, 24);
	CHECK(strlen(out) < 24 && strstr(out, "..."));
}

int main(void)
{
	RUN(test_ports_on_their_node);
	RUN(test_ports_not_placed);
	RUN(test_cpulists);
	CHECK_EXIT();
}
