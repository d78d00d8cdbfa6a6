/* topo_out.c — the latency map's files in a results directory: its own CSVs and every
 * scheduler file (emit.h's registry). */
#include "core/log.h"
#include "core/results.h"
#include "topo_csv.h"

int topo_outputs_write(const char *dir, const struct emit_topo *t, int with_schedulers)
{
	static const struct {
		const char *name;
		void (*write)(FILE *, const struct emit_topo *);
	} own[] = { { "topology", topo_csv_topology }, { "tiers", topo_csv_tiers },
		    { "suspects", topo_csv_suspects }, { "retested", topo_csv_retested } };
	struct results_file out;
	struct infer_result certain;
	struct emit_topo ts = *t;
	int rc = 0;

	for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) {
		char name[128];

		if (own[i].write == topo_csv_retested && !t->rest)
			continue;
		snprintf(name, sizeof name, "%s%.64s.csv", own[i].name, t->suffix ? t->suffix : "");
		if (results_tmp_open(&out, dir, name))
			return FP_ERUNTIME;
		own[i].write(out.f, t);
		if (results_tmp_commit(&out))
			return FP_ERUNTIME;
	}
	/* the scheduler files from the certain tiers only: a switch fabprobe is unsure of must not
	 * reach a scheduler (its groups join the tier above) */
	if (with_schedulers && infer_certain(t->tree, &certain))
		return FP_ERUNTIME;
	ts.tree = &certain;
	for (int i = 0; with_schedulers && emit_registry[i]; i++) {
		char err[EMIT_ERR_MAX] = "";

		if (emit_registry[i]->opt_in && !t->topograph)
			continue;
		if (results_tmp_open(&out, dir, emit_registry[i]->name)) {
			infer_result_free(&certain);
			return FP_ERUNTIME;
		}
		int wrc = emit_registry[i]->write(out.f, &ts, err);

		if (wrc == FP_ERUNTIME) {
			results_tmp_abort(&out);
			LOG_ERROR("%s: %s", emit_registry[i]->name, err);
			infer_result_free(&certain);
			return FP_ERUNTIME;
		}
		if (wrc) {
			/* a name this format cannot hold: no file rather than a corrupt one */
			results_tmp_abort(&out);
			fprintf(stderr, "fabprobe: %s not written: %s\n", emit_registry[i]->name, err);
			rc = FP_EUSAGE;
			continue;
		}
		if (results_tmp_commit(&out)) {
			infer_result_free(&certain);
			return FP_ERUNTIME;
		}
	}
	if (with_schedulers)
		infer_result_free(&certain);
	return rc;
}
