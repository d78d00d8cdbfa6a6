/* emit_slurm.c — Slurm topology/tree, topology/block and topology.yaml. */
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "emit.h"
#include "fabric/io/hostlist.h"

/* The members of group g at tier t, as a hostlist expression: its hosts at tier 0, else the
 * names of its child switches; tier = ntiers is a root above every top group. *out is
 * malloc'd. */
static int members(const struct emit_topo *t, int tier, int g, char **out, char *err)
{
	const struct infer_result *r = t->tree;
	const char **names = calloc((size_t)t->n, sizeof *names);
	char (*sw)[EMIT_NAME_MAX] = calloc((size_t)t->n, sizeof *sw);
	int k = 0, last = -1, rc;

	if (!names || !sw) {
		free(names);
		free(sw);
		snprintf(err, EMIT_ERR_MAX, "out of memory");
		return FP_ERUNTIME;
	}
	for (int i = 0; i < t->n; i++) {
		int node = r->order[i];

		if (tier < r->ntiers && r->group[(size_t)tier * t->n + node] != g)
			continue;
		if (tier == 0)
			names[k++] = t->hosts[node];
		else if (r->group[(size_t)(tier - 1) * t->n + node] != last) {
			/* children are contiguous in tree order: a change is a new child */
			last = r->group[(size_t)(tier - 1) * t->n + node];
			emit_group_name(t, tier - 1, last, sw[k]);
			names[k] = sw[k];
			k++;
		}
	}
	rc = hostlist_compress(names, k, out, err, EMIT_ERR_MAX);
	free(names);
	free(sw);
	return rc;
}

static void header(FILE *f, const struct emit_topo *t, const char *what)
{
	const struct infer_result *r = t->tree;

	fprintf(f, "# %s, made by fabprobe from measured latencies (no switch or subnet-manager access)\n", what);
	emit_comment(f, t->how);
	for (int k = 0; k < r->ntiers; k++) {
		char name[EMIT_NAME_MAX];

		emit_tier_kind(k, name);
		fprintf(f, "# tier %d (%s): %d switch%s, p50 latency %.2f us between nodes that meet here\n", k,
			name, r->ngroups[k], r->ngroups[k] == 1 ? "" : "es", r->lat_p50_us[k]);
	}
}

/* One switch of the tree (tier, group g), its name, and its members as a hostlist: nodes at
 * tier 0, switches above. */
typedef void (*switch_put)(FILE *f, int tier, int g, const char *name, const char *members);

/* Every group of the tiers below `tiers`, leaves first, through put. 0, or members()'s error. */
static int each_switch(FILE *f, const struct emit_topo *t, int tiers, switch_put put, char *err)
{
	for (int k = 0; k < tiers; k++)
		for (int g = 0; g < t->tree->ngroups[k]; g++) {
			char name[EMIT_NAME_MAX], *list = NULL;
			int rc = members(t, k, g, &list, err);

			if (rc)
				return rc;
			emit_group_name(t, k, g, name);
			put(f, k, g, name, list);
			free(list);
		}
	return 0;
}

static void put_conf_switch(FILE *f, int tier, int g, const char *name, const char *list)
{
	(void)g;
	fprintf(f, "SwitchName=%s %s=%s\n", name, tier ? "Switches" : "Nodes", list);
}

int emit_slurm_tree(FILE *f, const struct emit_topo *t, char *err)
{
	const struct infer_result *r = t->tree;
	int top = r->ntiers - 1, rc;

	if ((rc = emit_hosts_check(t, EMIT_FMT_SLURM, err)))
		return rc;
	header(f, t, "Slurm topology.conf for TopologyPlugin=topology/tree");
	if ((rc = each_switch(f, t, r->ntiers, put_conf_switch, err)))
		return rc;
	if (r->ngroups[top] > 1) {
		/* parts that no measurement connects still need one top switch, or Slurm never
		 * puts them in one job */
		char *list = NULL;

		if ((rc = members(t, r->ntiers, 0, &list, err)))
			return rc;
		fprintf(f, "# the switches below root are not connected by any measurement\n"
			   "SwitchName=root Switches=%s\n", list);
		free(list);
	}
	return 0;
}

/* Block sizes: the base is the smallest leaf (every block must hold at least that many nodes);
 * each larger size (base x 2^k) is offered only while Slurm's pairing of consecutive blocks
 * (by position in the file) keeps every aggregate under one spine. Slurm refuses empty blocks,
 * so misaligned spines are not padded: the sizes stop below them. */
static int block_sizes(const struct emit_topo *t, int *base)
{
	const struct infer_result *r = t->tree;
	int nb = r->ngroups[0], *count = calloc((size_t)nb, sizeof *count), *spine = calloc((size_t)nb, sizeof *spine);
	int levels = 0;

	if (!count || !spine) {
		free(count);
		free(spine);
		return -1;
	}
	for (int i = 0; i < t->n; i++) {
		int b = r->group[i];

		count[b]++;
		spine[b] = r->ntiers > 1 ? r->group[(size_t)t->n + i] : 0;
	}
	*base = t->n;
	for (int b = 0; b < nb; b++)
		if (count[b] < *base)
			*base = count[b];
	for (int size = 2; size <= nb; size *= 2) {
		int ok = 1;

		for (int b = 0; b < nb && ok; b++)
			ok = spine[b] == spine[b - b % size];
		if (!ok)
			break;
		levels++;
	}
	free(count);
	free(spine);
	return levels;
}

/* The block sizes (block_sizes) and the Slurm name rule, checked before anything is written:
 * the number of sizes above the base, or FP_ERUNTIME / FP_EUSAGE with err. */
static int block_start(const struct emit_topo *t, int *base, char *err)
{
	int rc, levels = block_sizes(t, base);

	if (levels < 0) {
		snprintf(err, EMIT_ERR_MAX, "out of memory");
		return FP_ERUNTIME;
	}
	return (rc = emit_hosts_check(t, EMIT_FMT_SLURM, err)) ? rc : levels;
}

/* One block, i its position; list NULL: an empty placeholder. */
typedef void (*block_put)(FILE *f, int i, const char *list);

/* The block topology's sizes and the Slurm name rule, checked before anything is written:
 * the NVLink domains' blocks where t has domains (b), else one block per leaf. 0 or an error. */
static int blocks_start(const struct emit_topo *t, struct emit_blocks *b, int *base, int *levels, char *err)
{
	if (emit_blocks_from_domains(t, b)) {
		snprintf(err, EMIT_ERR_MAX, "out of memory");
		return FP_ERUNTIME;
	}
	if (b->ndom) {
		*base = b->base, *levels = b->levels;
		return emit_hosts_check(t, EMIT_FMT_SLURM, err);
	}
	*levels = block_start(t, base, err);
	return *levels < 0 ? *levels : 0;
}

static int each_block(FILE *f, const struct emit_topo *t, const struct emit_blocks *b, block_put put, char *err)
{
	int nb = b->ndom ? b->nblocks : t->tree->ngroups[0];

	for (int i = 0; i < nb; i++) {
		char *list = NULL;
		int rc = b->ndom ? emit_block_nodes(t, b, i, &list, err) : members(t, 0, i, &list, err);

		if (rc)
			return rc;
		put(f, i, list);
		free(list);
	}
	return 0;
}

/* what the blocks are, for the header */
static void blocks_said(FILE *f, const struct emit_blocks *b)
{
	if (!b->ndom) {
		fputs("# one block per leaf (no NVLink domain found: the inventory's GPUs have none)\n", f);
		return;
	}
	fprintf(f, "# one block per NVLink domain (%d), in the latency map's order: never from the leaves\n", b->ndom);
	if (b->placeholders)
		fprintf(f, "# %d empty placeholder block%s keep%s each spine's domains aligned for Slurm's pairing of "
			   "consecutive blocks (a block without nodes needs Slurm 25.05 or later)\n",
			b->placeholders, b->placeholders == 1 ? "" : "s", b->placeholders == 1 ? "s" : "");
	if (b->unplaced)
		fprintf(f, "# %d node%s in no NVLink domain %s in no block\n", b->unplaced, b->unplaced == 1 ? "" : "s",
			b->unplaced == 1 ? "is" : "are");
}

static void put_conf_block(FILE *f, int i, const char *list)
{
	if (list)
		fprintf(f, "BlockName=b%02d Nodes=%s\n", i, list);
	else
		fprintf(f, "BlockName=b%02d\n", i);
}

int emit_slurm_block(FILE *f, const struct emit_topo *t, char *err)
{
	struct emit_blocks b;
	int base, levels, rc = blocks_start(t, &b, &base, &levels, err);

	if (!rc) {
		header(f, t, "Slurm topology.conf for TopologyPlugin=topology/block");
		blocks_said(f, &b);
		rc = each_block(f, t, &b, put_conf_block, err);
	}
	if (!rc) {
		fprintf(f, "BlockSizes=%d", base);
		for (int k = 1; k <= levels; k++)
			fprintf(f, ",%d", base << k);
		fputc('\n', f);
	}
	emit_blocks_free(&b);
	return rc;
}

/* every name is a double-quoted YAML scalar (emit_yaml_line); the Slurm rule applies too */
static void put_yaml_switch(FILE *f, int tier, int g, const char *name, const char *list)
{
	(void)g;
	emit_yaml_line(f, "    - switch: ", NULL, name);
	emit_yaml_line(f, tier ? "      children: " : "      nodes: ", NULL, list);
}

static void put_yaml_block(FILE *f, int i, const char *list)
{
	char block[EMIT_NAME_MAX];

	snprintf(block, sizeof block, "b%02d", i);
	emit_yaml_line(f, "    - block: ", NULL, block);
	if (list)
		emit_yaml_line(f, "      nodes: ", NULL, list);
}

int emit_slurm_yaml(FILE *f, const struct emit_topo *t, char *err)
{
	struct emit_blocks b;
	int base, levels, rc = blocks_start(t, &b, &base, &levels, err);

	if (!rc) {
		header(f, t, "Slurm topology.yaml (takes precedence over topology.conf)");
		blocks_said(f, &b);
		fputs("- topology: fabprobe-tree\n  cluster_default: true\n  tree:\n    switches:\n", f);
		rc = each_switch(f, t, t->tree->ntiers, put_yaml_switch, err);
	}
	if (!rc) {
		fprintf(f, "- topology: fabprobe-block\n  cluster_default: false\n  block:\n    block_sizes:\n");
		for (int k = 0; k <= levels; k++)
			fprintf(f, "      - %d\n", base << k);
		fputs("    blocks:\n", f);
		rc = each_block(f, t, &b, put_yaml_block, err);
	}
	emit_blocks_free(&b);
	return rc;
}
