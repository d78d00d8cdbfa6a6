/* emit_blocks.c — Slurm's topology/block blocks from the NVLink domains (emit_topo.domain):
 * one block per domain, never built from the InfiniBand leaves where domains exist.
 *
 * Slurm pairs consecutive blocks (by position in the file) into aggregates of 2, 4, … blocks,
 * so positions matter: domains are ordered by the spine (tier 1 of the latency map) of their
 * first node in the map's order, then by that node's position; with several spines, each
 * spine's domains are padded with empty placeholder blocks to the same power of two, so that
 * an aggregate never joins domains under two spines and a missing domain (a rack down, a rack
 * not yet installed) keeps the others in place. Slurm accepts a block without nodes from 25.05
 * on (before, every block needs at least the base size of nodes); the files say so. */
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "emit.h"
#include "fabric/io/hostlist.h"

void emit_blocks_free(struct emit_blocks *b)
{
	free(b->dom_of_block);
	free(b->dom);
	*b = (struct emit_blocks){ 0 };
}

static int pow2_at_least(int x)
{
	int p = 1;

	while (p < x)
		p *= 2;
	return p;
}

int emit_blocks_from_domains(const struct emit_topo *t, struct emit_blocks *b)
{
	const struct infer_result *r = t->tree;
	int *spine_of = NULL, *count = NULL, nspines = 1, per_max = 0, rc = FP_ERUNTIME;

	*b = (struct emit_blocks){ 0 };
	if (!t->domain)
		return 0;
	if (!(b->dom = calloc((size_t)t->n + 1, sizeof *b->dom)) ||
	    !(spine_of = calloc((size_t)t->n + 1, sizeof *spine_of)) || !(count = calloc((size_t)t->n + 1, sizeof *count)))
		goto out;
	/* distinct domains in the map's order, each with its spine and node count */
	for (int i = 0; i < t->n; i++) {
		int node = r->order[i], d = 0;
		const char *dom = t->domain[node];

		if (!dom || !dom[0]) {
			b->unplaced++;
			continue;
		}
		while (d < b->ndom && strcmp(b->dom[d], dom))
			d++;
		if (d == b->ndom) {
			b->dom[b->ndom++] = dom;
			spine_of[d] = r->ntiers > 1 ? r->group[(size_t)t->n + node] : 0;
		}
		count[d]++;
	}
	if (!b->ndom) {
		rc = 0;
		goto out;
	}
	b->base = t->n;
	for (int d = 0; d < b->ndom; d++)
		b->base = count[d] < b->base ? count[d] : b->base;
	if (r->ntiers > 1)
		nspines = r->ngroups[1];
	for (int s = 0; s < nspines; s++) {
		int in = 0;

		for (int d = 0; d < b->ndom; d++)
			in += spine_of[d] == s;
		per_max = in > per_max ? in : per_max;
	}
	/* one spine: no padding, aggregates up to the largest power of two of domains; several:
	 * each spine padded to P = a power of two, aggregates up to a spine's P */
	{
		int used_spines = 0, p = nspines > 1 ? pow2_at_least(per_max) : b->ndom;

		for (int s = 0; s < nspines; s++) {
			int in = 0;

			for (int d = 0; d < b->ndom; d++)
				in += spine_of[d] == s;
			used_spines += in > 0;
		}
		b->nblocks = nspines > 1 && used_spines > 1 ? used_spines * p : b->ndom;
		if (!(b->dom_of_block = malloc(sizeof *b->dom_of_block * (size_t)b->nblocks)))
			goto out;
		if (b->nblocks == b->ndom) {
			for (int d = 0; d < b->ndom; d++)
				b->dom_of_block[d] = d;
		} else {
			int k = 0;

			for (int s = 0; s < nspines; s++) {
				int in = 0;

				for (int d = 0; d < b->ndom; d++)
					if (spine_of[d] == s)
						b->dom_of_block[k + in++] = d;
				if (!in)
					continue;
				for (; in < p; in++)
					b->dom_of_block[k + in] = -1, b->placeholders++;
				k += p;
			}
		}
		/* aggregates never reach past a spine's blocks where there are several spines */
		for (int size = 2; size <= (nspines > 1 && used_spines > 1 ? p : b->ndom); size *= 2)
			b->levels++;
	}
	rc = 0;
out:
	free(spine_of);
	free(count);
	if (rc)
		emit_blocks_free(b);
	return rc;
}

int emit_block_nodes(const struct emit_topo *t, const struct emit_blocks *b, int block, char **out, char *err)
{
	const char **names = calloc((size_t)t->n + 1, sizeof *names);
	int k = 0, rc, d = b->dom_of_block[block];

	*out = NULL;
	if (!names) {
		snprintf(err, EMIT_ERR_MAX, "out of memory");
		return FP_ERUNTIME;
	}
	for (int i = 0; i < t->n && d >= 0; i++) {
		int node = t->tree->order[i];

		if (t->domain[node] && !strcmp(t->domain[node], b->dom[d]))
			names[k++] = t->hosts[node];
	}
	rc = d < 0 ? 0 : hostlist_compress(names, k, out, err, EMIT_ERR_MAX);
	free(names);
	return rc;
}
