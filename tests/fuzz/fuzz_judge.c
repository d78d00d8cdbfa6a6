/* fuzz_judge.c — the judges' readers: a results directory (p2p.csv, topology.csv,
 * collectives.csv), an expectations file and a declared topology, as sections of one input
 * ("@@ p2p", "@@ topology", "@@ coll", "@@ expect", "@@ declared" lines start them). Oracles:
 * a refusal says why; a run compared with itself has nothing better, worse, new or gone and no
 * node moved; judging and the declared check end. Seeds: tests/fuzz/seeds/fuzz_judge. */
#include "fuzz.h"

#include "fabric/judge/accept.h"
#include "fabric/judge/compare.h"
#include "fabric/judge/declared.h"
#include "fabric/judge/expect.h"
#include "fabric/io/rundir.h"

static const char *const sections[] = { "p2p.csv", "topology.csv", "collectives.csv", "expect.conf",
					"declared.conf", NULL };

/* Split the input into the scratch directory's files (absent sections: no file). */
static void split(const uint8_t *data, size_t size, const char *dir)
{
	FILE *f = NULL;
	size_t i = 0;

	for (int k = 0; sections[k]; k++) {
		char path[192];

		snprintf(path, sizeof path, "%s/%s", dir, sections[k]);
		remove(path);
	}
	while (i < size) {
		const uint8_t *nl = memchr(data + i, '\n', size - i);
		size_t len = nl ? (size_t)(nl - (data + i)) + 1 : size - i;

		if (len > 3 && !memcmp(data + i, "@@ ", 3)) {
			for (int k = 0; sections[k]; k++)
				if (len - 3 >= strcspn(sections[k], ".") &&
				    !memcmp(data + i + 3, sections[k], strcspn(sections[k], "."))) {
					char path[192];

					if (f)
						fclose(f);
					snprintf(path, sizeof path, "%s/%s", dir, sections[k]);
					if (!(f = fopen(path, "w")))
						abort();
					break;
				}
		} else if (f && fwrite(data + i, 1, len, f) != len)
			abort();
		i += len;
	}
	if (f)
		fclose(f);
}

static void self_item(void *ctx, const struct cmp_item *it)
{
	(void)ctx;
	FUZZ_ASSERT(it->cls == CMP_SAME, "a run compared with itself: %s %s->%s %s is %s", it->path, it->src, it->dst,
		    it->metric, cmp_class_name(it->cls));
}

static void self_map(void *ctx, const struct cmp_map_row *r)
{
	(void)ctx;
	FUZZ_ASSERT(r->change == CMP_MAP_SAME, "a map compared with itself: %s %s", r->host ? r->host : "",
		    cmp_map_change_name(r->change));
}

static void acc_row(void *ctx, const struct acc_row *r)
{
	(void)ctx, (void)r;
}

static void decl_row(void *ctx, const struct decl_row *r)
{
	(void)ctx;
	FUZZ_ASSERT(r->host && r->host[0], "a declared mismatch without a host");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char dir[128], path[192], err[RUNDIR_ERR_MAX] = "";
	struct rundir rd;
	struct exp_set s = { 0 };
	struct decl d = { 0 };
	struct cmp_skip sk;
	struct cmp_opts o = { 0 };
	int rc, have_decl;

	snprintf(dir, sizeof dir, "%s/run", fuzz_dir());
	mkdir(dir, 0700);
	split(data, size, dir);
	snprintf(path, sizeof path, "%s/expect.conf", dir);
	rc = access(path, F_OK) ? 0 : exp_parse_file(path, &s, err);
	FUZZ_ASSERT(rc == 0 || (rc == FP_EUSAGE && err[0]), "exp_parse: rc %d", rc);
	if (rc == 0 && exp_defaults(&s))
		abort();
	snprintf(path, sizeof path, "%s/declared.conf", dir);
	err[0] = 0;
	have_decl = access(path, F_OK) == 0 && (rc = decl_read(path, &d, err)) == 0;
	FUZZ_ASSERT(have_decl || access(path, F_OK) || (rc == FP_EUSAGE && err[0]), "decl_read: rc %d", rc);
	err[0] = 0;
	rc = rundir_load(dir, &rd, err);
	FUZZ_ASSERT(rc == 0 || (rc == FP_EUSAGE && err[0]), "rundir_load: rc %d", rc);
	if (rc == 0) {
		if (cmp_p2p(&rd, &rd, &o, self_item, NULL, &sk) || cmp_coll(&rd, &rd, &o, self_item, NULL, &sk) ||
		    cmp_inventory(&rd, &rd, self_item, NULL) || cmp_map(&rd, &rd, self_map, NULL) ||
		    acc_evaluate(&rd, &s, acc_row, NULL) || (have_decl && decl_check(&d, &rd, decl_row, NULL) < 0))
			abort();
		rundir_free(&rd);
	}
	exp_free(&s);
	decl_free(&d);
	return 0;
}
