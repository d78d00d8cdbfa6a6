/* fuzz_summary.c — arbitrary bytes as a results directory's summary.json, through
 * run_model_load (fabric/emit/run_model.h) as `report` reads it. Oracles: a model it takes
 * renders summary.json, junit.xml and fabprobe.prom without fault; the summary.json it renders
 * loads again, and from then on every load and write gives the same bytes (the file holds
 * every field of the model: nothing a load keeps is lost by the next write; the first write
 * may only spell a string otherwise, a byte that is not UTF-8 as \ufffd). Seeds:
 * tests/fuzz/seeds. */
#include "fabric/emit/run_model.h"
#include "fuzz.h"

static char *render(int (*fn)(FILE *, const struct run_model *), const struct run_model *m, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f)
		abort();
	fn(f, m);
	if (fclose(f))
		abort();
	return text;
}

/* the summary.json that dir's model renders, loaded again; NULL when dir's does not load */
static char *again(struct run_model_loaded *l, size_t *len)
{
	char err[512], *text;

	if (run_model_load(fuzz_dir(), l, err, sizeof err))
		return NULL;
	text = render(emit_summary_json, &l->m, len);
	fuzz_file("summary.json", (const uint8_t *)text, *len);
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run_model_loaded a, b, c;
	size_t la, lb, lc, lj, lp;
	char *sa, *sb, *sc, *j, *p;

	fuzz_file("summary.json", data, size);
	if (!(sa = again(&a, &la)))
		return 0;
	j = render(emit_junit, &a.m, &lj);
	p = render(emit_prom, &a.m, &lp);
	FUZZ_ASSERT((sb = again(&b, &lb)) != NULL, "what it wrote does not load");
	FUZZ_ASSERT((sc = again(&c, &lc)) != NULL, "what it wrote again does not load");
	FUZZ_ASSERT(lb == lc && !memcmp(sb, sc, lb), "written again it differs (%zu, %zu bytes)", lb, lc);
	run_model_unload(&a);
	run_model_unload(&b);
	run_model_unload(&c);
	free(sa);
	free(sb);
	free(sc);
	free(j);
	free(p);
	return 0;
}
