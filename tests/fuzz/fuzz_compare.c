/* fuzz_compare.c — compare's readers: the files of a results directory (rundir_load: p2p.csv,
 * p2p_retest.csv, p2p_confirm.csv, topology.csv, collectives.csv, nodes.csv, nics.csv), as
 * sections of one input ("@@ p2p.csv" ... lines start them; after a line "@@@ NEW" they go to a
 * second directory). Oracles: a refusal says why; a loaded run holds no p2p row twice; each
 * run compared with itself is all "same" (or "better" by its own retests) with no node moved; the collectives' noise built once
 * equals the reference scan; BASE against NEW ends with every item in a class. Seeds:
 * tests/fuzz/seeds/fuzz_compare. */
#include "fuzz.h"

#include <math.h>

#include "fabric/judge/compare.h"
#include "fabric/io/rundir.h"

static const char *const files[] = { "p2p.csv", "p2p_retest.csv", "p2p_confirm.csv", "topology.csv",
				     "collectives.csv", "nodes.csv", "nics.csv", NULL };

/* Split the input into the files of dirs[0] (and dirs[1] after "@@@ NEW"); *two says whether
 * the second was started. */
static void split(const uint8_t *data, size_t size, char dirs[2][128], int *two)
{
	FILE *f = NULL;
	int side = 0;

	*two = 0;
	for (int s = 0; s < 2; s++)
		for (int k = 0; files[k]; k++) {
			char path[320];

			snprintf(path, sizeof path, "%s/%s", dirs[s], files[k]);
			remove(path);
		}
	for (size_t i = 0; i < size;) {
		const uint8_t *nl = memchr(data + i, '\n', size - i);
		size_t len = nl ? (size_t)(nl - (data + i)) + 1 : size - i, body = len - (nl != NULL);
		int k = -1;

		if (body == 7 && !memcmp(data + i, "@@@ NEW", 7)) {
			side = *two = 1;
			if (f)
				fclose(f);
			f = NULL;
		} else if (body > 3 && !memcmp(data + i, "@@ ", 3)) {
			for (k = 0; files[k] && !(strlen(files[k]) == body - 3 && !memcmp(data + i + 3, files[k], body - 3));)
				k++;
			if (files[k]) {
				char path[320];

				if (f)
					fclose(f);
				snprintf(path, sizeof path, "%s/%s", dirs[side], files[k]);
				if (!(f = fopen(path, "w")))
					abort();
			} else
				k = -1;
		}
		if (k < 0 && !(body == 7 && !memcmp(data + i, "@@@ NEW", 7)) && f && fwrite(data + i, 1, len, f) != len)
			abort();
		i += len;
	}
	if (f)
		fclose(f);
}

static void self_item(void *ctx, const struct cmp_item *it)
{
	(void)ctx;
	/* its retests (NEW's only) can make a pair better than its first figure, never worse */
	FUZZ_ASSERT(it->cls == CMP_SAME || (it->cls == CMP_BETTER && !isnan(it->retest)),
		    "a run compared with itself: %s %s->%s %s is %s", it->path, it->src, it->dst, it->metric,
		    cmp_class_name(it->cls));
}

static void self_map(void *ctx, const struct cmp_map_row *r)
{
	(void)ctx;
	FUZZ_ASSERT(r->change == CMP_MAP_SAME, "a map compared with itself: %s %s", r->host ? r->host : "",
		    cmp_map_change_name(r->change));
}

static void any_item(void *ctx, const struct cmp_item *it)
{
	(void)ctx;
	FUZZ_ASSERT(it->cls >= 0 && it->cls < CMP_NCLASS && it->path && it->src && it->dst && it->metric,
		    "an item without a class or a name (class %d)", it->cls);
}

static void any_map(void *ctx, const struct cmp_map_row *r)
{
	(void)ctx, (void)r;
}

/* One run loaded: its oracles of its own. */
static void one_run(const struct rundir *rd)
{
	struct cmp_opts o = { 0 };
	struct cmp_skip sk;
	struct cmp_coll_noise nz;

	for (size_t i = 1; i < rd->np2p; i++) {
		const struct rd_p2p *x = &rd->p2p[i - 1], *y = &rd->p2p[i];

		FUZZ_ASSERT(!(x->path == y->path && x->src == y->src && x->dst == y->dst && x->size == y->size &&
			      x->src_dev == y->src_dev && x->dst_dev == y->dst_dev),
			    "p2p rows of lines %d and %d kept twice", x->line, y->line);
	}
	if (cmp_p2p(rd, rd, &o, self_item, NULL, &sk) || cmp_coll(rd, rd, &o, self_item, NULL, &sk) ||
	    cmp_inventory(rd, rd, self_item, NULL) || (rd->has_topo && cmp_map(rd, rd, self_map, NULL)) ||
	    cmp_coll_noise_build(rd, &nz))
		abort();
	for (int i = 0; rd->ncoll <= 48 && i < rd->ncoll; i++) {
		const struct rd_coll *c = &rd->coll[i];
		double a = cmp_coll_noise_get(&nz, c);
		double b = cmp_coll_sigma(rd, c);

		FUZZ_ASSERT(a == b, "collectives' noise of row %d: %.17g, the scan %.17g", i, a, b);
	}
	cmp_coll_noise_free(&nz);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char dirs[2][128], err[RUNDIR_ERR_MAX];
	struct rundir rd[2];
	int two, ok[2] = { 0, 0 };

	for (int s = 0; s < 2; s++) {
		snprintf(dirs[s], sizeof dirs[s], "%s/%s", fuzz_dir(), s ? "new" : "base");
		mkdir(dirs[s], 0700);
	}
	split(data, size, dirs, &two);
	for (int s = 0; s < 1 + two; s++) {
		int rc;

		err[0] = 0;
		rc = rundir_load(dirs[s], &rd[s], err);
		FUZZ_ASSERT(rc == 0 || ((rc == FP_EUSAGE || rc == FP_ERUNTIME) && err[0]), "rundir_load: rc %d", rc);
		if ((ok[s] = rc == 0))
			one_run(&rd[s]);
	}
	if (ok[0] && ok[1]) {
		struct cmp_opts o = { 0 };
		struct cmp_skip sk;

		if (cmp_p2p(&rd[0], &rd[1], &o, any_item, NULL, &sk) || cmp_coll(&rd[0], &rd[1], &o, any_item, NULL, &sk) ||
		    cmp_inventory(&rd[0], &rd[1], any_item, NULL) ||
		    (rd[0].has_topo && rd[1].has_topo && cmp_map(&rd[0], &rd[1], any_map, NULL)))
			abort();
	}
	for (int s = 0; s < 2; s++)
		if (ok[s])
			rundir_free(&rd[s]);
	return 0;
}
