/* NVML's answers (topo/node/inv_nvml.c) and the NVLink fabric's checks (inv_nvl.c) on nodes
 * modelled on real systems: an HGX H200 node (fabric information not supported: no domain,
 * no finding), two GB200 NVL72 racks of 18 compute trays of 4 GPUs (one NVLink domain each),
 * and the faults: a tray whose GPUs never finished registration, a node whose GPUs sit in two
 * cliques, a zero cluster UUID where the others have one, a degraded-bandwidth flag, a GPU
 * with two NVLinks down, a rack with fewer trays than its peer. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/log.h"
#include "node/inv_nvml.h"
#include "node/inventory.h"

#define RACKS 2
#define TRAYS 18
#define NODES (RACKS * TRAYS)

static const char *const rack_uuid[RACKS] = { "7d1e53a4-2c3b-4f65-9d1c-0c1f2e3a4b5c",
					      "c0ffee00-1234-4abc-8def-00112233aa01" };

static void set(struct inv_gpu_nvml *nv, const char *field, const char *value)
{
	char why[96];

	CHECK_EQ(inv_nvml_field(nv, field, value, why, sizeof why), 0);
}

/* a GB200 compute tray: 4 GPUs, 18 NVLinks each to the NVSwitch trays, registered */
static void tray(struct inv_node *node, int rack, int t)
{
	static const char *const pci[4] = { "0008:01:00.0", "0009:01:00.0", "0018:01:00.0", "0019:01:00.0" };
	char v[48];

	inv_node_init(node);
	snprintf(node->host, sizeof node->host, "r%dt%02d", rack, t);
	node->ngpus = 4;
	for (int g = 0; g < 4; g++) {
		struct inv_gpu *gpu = &node->gpus[g];

		snprintf(gpu->model, sizeof gpu->model, "NVIDIA GB200");
		snprintf(gpu->pci, sizeof gpu->pci, "%s", pci[g]);
		inv_gpu_nvml_init(&gpu->nv);
		snprintf(v, sizeof v, "GPU-%08x-0000-0000-0000-%012x", rack * 100 + t, g);
		set(&gpu->nv, "uuid", v);
		set(&gpu->nv, "nvlinks", "18");
		set(&gpu->nv, "nvlinks_up", "18");
		set(&gpu->nv, "nvlink_to", "switch");
		set(&gpu->nv, "fabric_state", "completed");
		set(&gpu->nv, "fabric_status", "0");
		set(&gpu->nv, "cluster_uuid", rack_uuid[rack]);
		set(&gpu->nv, "clique_id", "32766");
		set(&gpu->nv, "health_mask", "0x2"); /* degraded bandwidth: false */
		snprintf(v, sizeof v, "18211241900%02d", rack);
		set(&gpu->nv, "chassis_serial", v);
		snprintf(v, sizeof v, "%d", t < 10 ? t + 1 : t + 9);
		set(&gpu->nv, "slot", v);
		snprintf(v, sizeof v, "%d", t);
		set(&gpu->nv, "tray", v);
		set(&gpu->nv, "host_id", "0");
		snprintf(v, sizeof v, "%d", g + 1);
		set(&gpu->nv, "module_id", v);
	}
}

static struct inv_node *racks(void)
{
	struct inv_node *n = calloc(NODES, sizeof *n);

	for (int r = 0; r < RACKS; r++)
		for (int t = 0; t < TRAYS; t++)
			tray(&n[r * TRAYS + t], r, t);
	return n;
}

static int mm(const struct inv_node *n, int count, struct inv_mismatch *out)
{
	return inv_mismatches(n, count, NULL, out, 64);
}

/* the one row of node k with this field; NULL when none */
static const struct inv_mismatch *row(const struct inv_mismatch *m, int nm, int k, const char *field)
{
	for (int i = 0; i < nm; i++)
		if (m[i].node == k && !strcmp(m[i].field, field))
			return &m[i];
	return NULL;
}

static void test_h200_no_domain(void)
{
	struct inv_node n;
	struct inv_mismatch m[64];
	char d[64], line[256];

	inv_node_init(&n);
	n.ngpus = 8;
	for (int g = 0; g < 8; g++) {
		inv_gpu_nvml_init(&n.gpus[g].nv);
		set(&n.gpus[g].nv, "nvlinks", "18");
		set(&n.gpus[g].nv, "nvlinks_up", "18");
		set(&n.gpus[g].nv, "nvlink_to", "switch");
		set(&n.gpus[g].nv, "fabric_state", "not_supported");
	}
	CHECK_EQ(mm(&n, 1, m), 0);
	inv_node_domain(&n, d, sizeof d);
	CHECK_STR(d, "");
	inv_nvl_summary(&n, 1, line, sizeof line);
	CHECK(strstr(line, "NVLink domains: none (the GPUs do not support NVLink fabric registration") == line);
	/* NVML not read at all: nothing said */
	inv_gpu_nvml_init(&n.gpus[0].nv);
	for (int g = 0; g < 8; g++)
		n.gpus[g].nv.fabric = INV_FABRIC_UNREAD;
	inv_nvl_summary(&n, 1, line, sizeof line);
	CHECK_STR(line, "");
}

static void test_racks_healthy(void)
{
	struct inv_node *n = racks();
	struct inv_mismatch m[64];
	char d[64], line[256];

	CHECK_EQ(mm(n, NODES, m), 0);
	inv_node_domain(&n[0], d, sizeof d);
	CHECK_STR(d, "7d1e53a4-2c3b-4f65-9d1c-0c1f2e3a4b5c.32766");
	inv_node_domain(&n[TRAYS], d, sizeof d);
	CHECK_STR(d, "c0ffee00-1234-4abc-8def-00112233aa01.32766");
	inv_nvl_summary(n, NODES, line, sizeof line);
	CHECK_STR(line, "NVLink domains: 2, 36 of 36 nodes in one");
	inv_fabric_health(&n[0].gpus[0].nv, line, sizeof line);
	CHECK_STR(line, "ok");
	free(n);
}

static void test_racks_faults(void)
{
	struct inv_node *n = racks();
	struct inv_mismatch m[64];
	const struct inv_mismatch *r;
	char d[64];
	int nm;

	/* rack 1 tray 7 never finished registering; its GPUs have no domain */
	for (int g = 0; g < 4; g++)
		set(&n[TRAYS + 7].gpus[g].nv, "fabric_state", g < 2 ? "in_progress" : "not_started");
	/* rack 0 tray 3: GPUs 2 and 3 in another clique */
	set(&n[3].gpus[2].nv, "clique_id", "5");
	set(&n[3].gpus[3].nv, "clique_id", "5");
	/* rack 0 tray 5: a zero UUID */
	for (int g = 0; g < 4; g++)
		memset(n[5].gpus[g].nv.cluster_uuid, 0, 16);
	/* rack 0 tray 9: degraded bandwidth on GPU 1 */
	set(&n[9].gpus[1].nv, "health_mask", "0x1");
	/* rack 1 tray 2: GPU 0 with two NVLinks down */
	set(&n[TRAYS + 2].gpus[0].nv, "nvlinks_up", "16");
	nm = mm(n, NODES, m);

	CHECK((r = row(m, nm, TRAYS + 7, "registration")) != NULL);
	if (r) {
		CHECK_STR(r->value, "not_started GPUs 0,1,2,3");
		CHECK_STR(r->majority, "completed");
	}
	CHECK((r = row(m, nm, 3, "cliques")) != NULL);
	if (r)
		CHECK_STR(r->value, "2");
	CHECK((r = row(m, nm, 5, "cluster_uuid")) != NULL);
	if (r)
		CHECK_STR(r->value, "zero GPUs 0,1,2,3");
	CHECK((r = row(m, nm, 9, "fabric_health")) != NULL);
	if (r)
		CHECK_STR(r->value, "degraded_bw GPU 1");
	CHECK((r = row(m, nm, TRAYS + 2, "nvlinks_up")) != NULL);
	if (r) {
		CHECK_STR(r->value, "16 of 18");
		CHECK_STR(r->item, "GPU 0 0008:01:00.0");
	}
	/* without trays 3 and 5 (two cliques, a zero UUID) rack 0's domain has 16 nodes, rack 1's
	 * 17 without tray 7: the smaller one is named, at its first node; nothing else */
	CHECK((r = row(m, nm, 0, "nodes")) != NULL);
	if (r) {
		CHECK_STR(r->value, "16 nodes");
		CHECK_STR(r->majority, "17 nodes");
	}
	CHECK_EQ(nm, 6);
	inv_node_domain(&n[3], d, sizeof d);
	CHECK_STR(d, "");
	inv_node_domain(&n[TRAYS + 7], d, sizeof d);
	CHECK_STR(d, "");
	free(n);
}

/* a rack with fewer trays registered than its peers: the domain is named, at its first node */
static void test_small_domain(void)
{
	struct inv_node *n = racks();
	struct inv_mismatch m[64];
	const struct inv_mismatch *r;
	int nm = mm(n, NODES - 1, m); /* rack 1 has 17 trays here */

	CHECK_EQ(nm, 1);
	CHECK((r = row(m, nm, TRAYS, "nodes")) != NULL);
	if (r) {
		CHECK_STR(r->item, "nvlink domain c0ffee00..32766");
		CHECK_STR(r->value, "17 nodes");
		CHECK_STR(r->majority, "18 nodes");
	}
	free(n);
}

/* every field of a capture refuses what is not its kind, leaving it unknown */
static void test_fields_hostile(void)
{
	static const char *const bad[][2] = {
		{ "nvlinks", "-1" }, { "nvlinks", "65" }, { "nvlinks", "1x" }, { "nvlinks", "" },
		{ "nvlink_to", "Switch" }, { "fabric_state", "done" }, { "fabric_status", "1000" },
		{ "cluster_uuid", "7d1e53a4" }, { "cluster_uuid", "zz1e53a42c3b4f659d1c0c1f2e3a4b5c" },
		{ "clique_id", "4294967296" }, { "health_mask", "-1" }, { "health_mask", "0x100000000" },
		{ "uuid", "GPU-\x1b[31m" }, { "uuid", "" }, { "chassis_serial", "12345678901234567890" },
		{ "slot", "256" }, { "tray", "a" }, { "nosuch", "1" },
	};
	struct inv_gpu_nvml nv, fresh;
	char why[96];

	inv_gpu_nvml_init(&fresh);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		inv_gpu_nvml_init(&nv);
		CHECK_EQ(inv_nvml_field(&nv, bad[i][0], bad[i][1], why, sizeof why), FP_EUSAGE);
		CHECK(!memcmp(&nv, &fresh, sizeof nv));
	}
	/* NVML's own bus id and UUID forms are taken */
	inv_gpu_nvml_init(&nv);
	CHECK_EQ(inv_nvml_field(&nv, "cluster_uuid", "7D1E53A42C3B4F659D1C0C1F2E3A4B5C", why, sizeof why), 0);
	inv_uuid_text(nv.cluster_uuid, why);
	CHECK_STR(why, "7d1e53a4-2c3b-4f65-9d1c-0c1f2e3a4b5c");
}

/* a node's answers saved as a capture read back the same; a second save is refused */
static void test_save_round_trip(void)
{
	char dir[] = "/tmp/fp-nvl-XXXXXX", cap[64], err[256], cmd[96];
	struct inv_node n, back;
	struct inv_probe_ctx ctx = { .sysfs_root = dir, .nvml_capture = cap };

	if (!mkdtemp(dir))
		SKIP("no temporary directory");
	snprintf(cap, sizeof cap, "%s/cap", dir);
	snprintf(cmd, sizeof cmd, "mkdir -p %s/class/net", dir); /* an empty sysfs: no NIC */
	CHECK(system(cmd) == 0);
	tray(&n, 1, 7);
	set(&n.gpus[2].nv, "health_mask", "0x1");
	CHECK_EQ(inv_nvml_save(cap, &n, err, sizeof err), 0);
	CHECK_EQ(inv_nvml_save(cap, &n, err, sizeof err), FP_EUSAGE);
	CHECK(strstr(err, "exists (a capture is never overwritten)") != NULL);
	inv_node_init(&back);
	inv_probe_all(&ctx, &back);
	CHECK_EQ(back.ngpus, 4);
	for (int g = 0; g < 4 && g < back.ngpus; g++) {
		CHECK_STR(back.gpus[g].pci, n.gpus[g].pci);
		CHECK_STR(back.gpus[g].model, "NVIDIA GB200");
		CHECK(!memcmp(&back.gpus[g].nv, &n.gpus[g].nv, sizeof n.gpus[g].nv));
	}
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
}

int main(void)
{
	RUN(test_h200_no_domain);
	RUN(test_racks_healthy);
	RUN(test_racks_faults);
	RUN(test_small_domain);
	RUN(test_fields_hostile);
	RUN(test_save_round_trip);
	CHECK_EXIT();
}
