/* Node names under Slurm: the choice between the processor name and Slurm's node name, the
 * check for Slurm variables copied between nodes, and a cluster whose host names are fully
 * qualified while Slurm's node names are short: every Slurm file names the Slurm nodes. */
#include <stdlib.h>

#include "check.h"
#include "cmd/cmd.h"
#include "coll/coll.h"
#include "inventory/inv_stage.h"
#include "p2p/p2p.h"
#include "run/run_stage.h"
#include "core/log.h"
#include "core/nodename.h"
#include "fabric/emit/emit.h"

#define LEN 64

static void test_mode_parse(void)
{
	CHECK(nodename_mode_parse("hostname") == NODENAME_HOSTNAME);
	CHECK(nodename_mode_parse("short") == NODENAME_SHORT);
	CHECK(nodename_mode_parse("slurm") == NODENAME_SLURM);
	CHECK(nodename_mode_parse("Slurm") == -1);
	CHECK(nodename_mode_parse("slurm ") == -1);
	CHECK(nodename_mode_parse("") == -1);
	CHECK(nodename_mode_parse("auto") == -1); /* the default has no name: it is what no option gives */
}

static void test_slurm_name_from_environment(void)
{
	char out[LEN], small[7];

	CHECK_STR(nodename_slurm("gpu017", "s0.leaf3.gpu017", out, sizeof out), "gpu017");
	/* SLURMD_NODENAME wins over the topology address */
	CHECK_STR(nodename_slurm("gpu017", "s0.leaf3.other", out, sizeof out), "gpu017");
	/* without it, the node part of SLURM_TOPOLOGY_ADDR (pattern switch.switch.node) */
	CHECK_STR(nodename_slurm(NULL, "s0.leaf3.gpu017", out, sizeof out), "gpu017");
	CHECK_STR(nodename_slurm("", "gpu017", out, sizeof out), "gpu017"); /* topology/none: the node only */
	CHECK(nodename_slurm(NULL, NULL, out, sizeof out) == NULL);
	CHECK(nodename_slurm(NULL, "s0.leaf3.", out, sizeof out) == NULL);
	CHECK(nodename_slurm("gpu 17", NULL, out, sizeof out) == NULL);
	CHECK(nodename_slurm("gpu\n17", "s0.gpu9", out, sizeof out) != NULL && !strcmp(out, "gpu9"));
	CHECK(nodename_slurm("gpu0017", NULL, small, sizeof small) == NULL); /* does not fit */
	CHECK_STR(nodename_slurm("gpu017", NULL, small, sizeof small), "gpu017");
}

static void test_choose(void)
{
	const char *fq = "node07.cluster.example.org";
	char out[LEN], tiny[5];

	CHECK(nodename_choose(NODENAME_AUTO, fq, "node07", out, sizeof out) == 0);
	CHECK_STR(out, "node07");
	CHECK(nodename_choose(NODENAME_AUTO, fq, NULL, out, sizeof out) == 0);
	CHECK_STR(out, fq); /* outside Slurm: the processor name as it is */
	CHECK(nodename_choose(NODENAME_HOSTNAME, fq, "node07", out, sizeof out) == 0);
	CHECK_STR(out, fq);
	CHECK(nodename_choose(NODENAME_SHORT, fq, "gpu-a", out, sizeof out) == 0);
	CHECK_STR(out, "node07");
	CHECK(nodename_choose(NODENAME_SHORT, "node07", NULL, out, sizeof out) == 0);
	CHECK_STR(out, "node07");
	CHECK(nodename_choose(NODENAME_SHORT, ".odd", NULL, out, sizeof out) == 0);
	CHECK_STR(out, ".odd");
	CHECK(nodename_choose(NODENAME_SLURM, fq, "gpu-a", out, sizeof out) == 0);
	CHECK_STR(out, "gpu-a"); /* a NodeHostname alias: Slurm's name, whatever the host says */
	CHECK(nodename_choose(NODENAME_SLURM, fq, NULL, out, sizeof out) == FP_EUSAGE);
	CHECK(nodename_choose(NODENAME_HOSTNAME, fq, NULL, tiny, sizeof tiny) == FP_EUSAGE);
	CHECK(nodename_choose(NODENAME_SHORT, "node.x", NULL, tiny, sizeof tiny) == 0);
	CHECK_STR(tiny, "node");
}

static void test_copied_environment_is_caught(void)
{
	char proc[6][LEN] = { "a.x", "a.x", "b.x", "b.x", "c.x", "c.x" };
	char good[6][LEN] = { "a", "a", "b", "b", "c", "c" };
	char copied[6][LEN] = { "a", "a", "a", "a", "c", "c" }; /* b's ranks got a's SLURMD_NODENAME */
	char alias[6][LEN] = { "a1", "a2", "b", "b", "c", "c" }; /* two Slurm nodes on host a (multiple slurmd) */
	int other = -1, r;

	CHECK(nodename_conflict(proc[0], good[0], LEN, 6, &other) == -1);
	r = nodename_conflict(proc[0], copied[0], LEN, 6, &other);
	CHECK(r >= 0 && r < 4 && other >= 0 && other < 4 && r < other);
	CHECK(r >= 0 && other >= 0 && strcmp(proc[r], proc[other]) && !strcmp(copied[r], copied[other]));
	CHECK(nodename_conflict(proc[0], alias[0], LEN, 6, &other) == -1);
	CHECK(nodename_conflict(proc[0], good[0], LEN, 1, &other) == -1);
	CHECK(nodename_conflict(proc[0], good[0], LEN, 0, &other) == -1);
}

/* 6 nodes with fully qualified host names, Slurm names node01..node06, 2 leaves of 3. */
#define N 6
static char buf[8192], err[EMIT_ERR_MAX];

static const char *render(int (*fn)(FILE *, const struct emit_topo *, char *), struct emit_topo *t)
{
	FILE *f = fmemopen(buf, sizeof buf, "w");
	int rc = fn(f, t, err);

	fclose(f);
	return rc ? "(refused)" : buf;
}

static void test_fqdn_hosts_slurm_files_name_slurm_nodes(void)
{
	static int group[2 * N], order[N];
	char names[N][LEN], proc[N][LEN], slurm[LEN];
	const char *hosts[N];
	struct infer_result r = { .n = N, .ntiers = 2, .group = group, .order = order, .ngroups = { 2, 1 } };
	struct emit_topo t = { N, hosts, &r, 1, "fabprobe", "test", NULL, NULL, NULL, 0, NULL };
	int (*const slurm_files[])(FILE *, const struct emit_topo *, char *) = {
		emit_slurm_tree, emit_slurm_block, emit_slurm_yaml, emit_slurm_hostfile, emit_node_order };

	for (int i = 0; i < N; i++) {
		char env[LEN];

		snprintf(proc[i], LEN, "node%02d.cluster.example.org", i + 1);
		snprintf(env, sizeof env, "node%02d", i + 1);
		/* as a task sees it: SLURMD_NODENAME and SLURM_TOPOLOGY_ADDR both set */
		CHECK(nodename_choose(NODENAME_AUTO, proc[i], nodename_slurm(env, "s0.leaf.x", slurm, LEN),
				      names[i], LEN) == 0);
		hosts[i] = names[i];
		order[i] = i;
		group[i] = i / 3;
		group[N + i] = 0;
	}
	for (size_t k = 0; k < sizeof slurm_files / sizeof slurm_files[0]; k++) {
		render(slurm_files[k], &t);
		CHECK(strstr(buf, "node01") != NULL || strstr(buf, "node[01") != NULL);
		CHECK(strstr(buf, "cluster.example") == NULL);
	}
	CHECK(strstr(render(emit_slurm_tree, &t), "SwitchName=leaf00 Nodes=node[01-03]\n") != NULL);
	/* the same run named by host: the files name hosts Slurm does not know */
	for (int i = 0; i < N; i++)
		CHECK(nodename_choose(NODENAME_HOSTNAME, proc[i], "x", names[i], LEN) == 0);
	CHECK(strstr(render(emit_slurm_tree, &t), "node01.cluster.example.org") != NULL);
}

/* --node-names is taken by every measuring command's parser, and validated there. */
static void test_option_in_every_command(void)
{
	char e[OPTS_ERR_MAX];
	struct run_opts ro;
	struct p2p_opts po;
	struct coll_opts co;
	struct inv_opts io;
	char *p2p_ok[] = { "p2p", "--node-names", "short" }, *p2p_bad[] = { "p2p", "--node-names=fqdn" };
	char *run_ok[] = { "run", "--node-names=slurm", "--no-coll" }, *dflt[] = { "run" };
	char *coll_ok[] = { "coll", "--node-names", "hostname" }, *coll_bad[] = { "coll", "--node-names" };
	char *inv_ok[] = { "inventory", "--node-names", "slurm" }, *inv_bad[] = { "inventory", "--node-names", "" };

	CHECK(p2p_opts_parse(3, p2p_ok, &po, e) == 0 && po.where.node_names == NODENAME_SHORT);
	CHECK(p2p_opts_parse(2, p2p_bad, &po, e) == FP_EUSAGE && strstr(e, "--node-names: 'fqdn'"));
	CHECK(run_opts_parse(3, run_ok, &ro, e) == 0 && ro.p2p.where.node_names == NODENAME_SLURM);
	CHECK(run_opts_parse(1, dflt, &ro, e) == 0 && ro.p2p.where.node_names == NODENAME_AUTO);
	CHECK(coll_opts_parse(3, coll_ok, &co, e) == 0 && co.where.node_names == NODENAME_HOSTNAME);
	CHECK(coll_opts_parse(2, coll_bad, &co, e) == FP_EUSAGE && strstr(e, "needs a value"));
	CHECK(inv_opts_parse(3, inv_ok, &io, e) == 0 && io.where.node_names == NODENAME_SLURM);
	CHECK(inv_opts_parse(3, inv_bad, &io, e) == FP_EUSAGE);
}

int main(void)
{
	RUN(test_mode_parse);
	RUN(test_slurm_name_from_environment);
	RUN(test_choose);
	RUN(test_copied_environment_is_caught);
	RUN(test_fqdn_hosts_slurm_files_name_slurm_nodes);
	RUN(test_option_in_every_command);
	CHECK_EXIT();
}
