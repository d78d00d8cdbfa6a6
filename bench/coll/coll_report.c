/* coll_report.c — what the collective benchmark writes: collectives.csv rows (docs/formats.md)
 * and the nccl-tests terminal table. Pure over plain structs (only FILE * output). */
#include <math.h>
#include <string.h>

#include "coll_report.h"
#include "core/results.h"

const char *coll_status_name(int status)
{
	static const char *const names[] = { "ok", "wrong", "unsupported" };

	return status >= 0 && status <= COLL_UNSUPPORTED ? names[status] : "unknown";
}

/* ---------------------------------------------------------------- collectives.csv */

static const char *redop_name(const struct coll_case *c)
{
	return c->redop >= 0 && c->redop < COLL_NREDOPS ? coll_redop_names[c->redop] : NULL;
}

void coll_csv_row(FILE *f, const struct coll_row *r)
{
	const struct coll_case *c = r->c;
	struct coll_csv_row row = {
		.run_id = r->run_id, .backend = r->backend, .op = c->op->name,
		.size_B = (int64_t)r->size_B, .count = (int64_t)c->count, .dtype = c->dtype->name,
		.redop = redop_name(c), .root = c->root, .nranks = c->nranks, .nnodes = r->nnodes,
		.in_place = c->in_place, .time_us = r->time_us, .time_us_max = r->time_us_max,
		.algbw_GBps = r->algbw, .busbw_GBps = r->busbw, .wrong = r->wrong,
		.status = coll_status_name(r->status), .path = r->path,
		.line_rate_Gbps = r->line_rate_Gbps > 0 ? r->line_rate_Gbps : NAN,
		.pct_line_rate = coll_pct_line_rate(r->busbw, r->line_rate_Gbps),
	};

	coll_csv_write(f, &row);
}

/* ---------------------------------------------------------------- terminal table */

void coll_table_header(FILE *f)
{
	fprintf(f, "#%*s%s%*s%s\n", 61, "", "out-of-place", 23, "", "in-place");
	fprintf(f, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n", "size",
		"count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw",
		"busbw", "#wrong");
	fprintf(f, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n", "(B)",
		"(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
}

/* nccl-tests' precision: fewer decimals as the time grows */
static void mode_cells(FILE *f, const struct coll_row *r)
{
	double t = r->time_us;

	if (r->status == COLL_UNSUPPORTED || isnan(t)) {
		fprintf(f, "  %7s  %6s  %6s  %6s", "n/a", "n/a", "n/a", "n/a");
		return;
	}
	fprintf(f, "  %7.*f  %6.2f  %6.2f", t >= 10000 ? 0 : t >= 100 ? 1 : 2, t, r->algbw, r->busbw);
	if (r->wrong < 0)
		fprintf(f, "  %6s", "N/A");
	else
		fprintf(f, "  %6lld", (long long)r->wrong);
}

void coll_table_line(FILE *f, const struct coll_row *oop, const struct coll_row *ip)
{
	const struct coll_case *c = oop->c;
	const char *redop = redop_name(c);

	fprintf(f, "  %10llu  %12llu  %8s  %6s  %6d", (unsigned long long)oop->size_B,
		(unsigned long long)c->count, c->dtype->name, redop ? redop : "none", c->root);
	mode_cells(f, oop);
	mode_cells(f, ip);
	fputc('\n', f);
}

/* ---------------------------------------------------------------- coll_meta.json */

static void json_names(FILE *f, const char *key, const int *ids, int n, const char *(*name)(int))
{
	fprintf(f, "  \"%s\": [", key);
	for (int i = 0; i < n; i++) {
		fputs(i ? ", " : "", f);
		results_json_string(f, name(ids[i]));
	}
	fputs("],\n", f);
}

static const char *op_name(int i) { return coll_ops[i].name; }
static const char *dtype_name(int i) { return coll_dtypes[i].name; }
static const char *redop_str(int i) { return coll_redop_names[i]; }

void coll_meta_write(FILE *f, const struct coll_opts *o, const struct coll_be_status *st, int nst,
		     int nranks, int nnodes, char *const *env)
{
	fprintf(f, "{\n  \"command\": \"coll\",\n  \"nranks\": %d,\n  \"nnodes\": %d,\n", nranks, nnodes);
	fprintf(f, "  \"iters\": %ld,\n  \"warmup_iters\": %ld,\n  \"check\": %ld,\n", o->iters,
		o->warmup, o->check);
	fputs("  \"sizes_B\": [", f);
	for (int i = 0; i < o->nsizes; i++)
		fprintf(f, "%s%llu", i ? ", " : "", (unsigned long long)o->sizes[i]);
	fputs("],\n", f);
	json_names(f, "ops", o->ops, o->nops, op_name);
	json_names(f, "datatypes", o->dtypes, o->ndtypes, dtype_name);
	json_names(f, "redops", o->redops, o->nredops, redop_str);
	fprintf(f, "  \"root\": %ld,\n  \"backends\": [", o->root);
	for (int i = 0; i < nst; i++) {
		fprintf(f, "%s\n    { \"name\": \"%s\", \"selected\": %s, \"status\": \"%s\", \"why\": ",
			i ? "," : "", st[i].name, st[i].selected ? "true" : "false",
			!st[i].selected ? "not selected" : st[i].usable ? "run" : "skipped");
		results_json_string(f, st[i].why);
		fputs(", \"version\": ", f);
		results_json_string(f, st[i].version);
		fputs(" }", f);
	}
	fputs("\n  ],\n  \"path\": ", f);
	results_json_string(f, o->path ? o->path : "");
	fputs(",\n  \"ring_paths\": [", f); /* fabprobe's ring: the paths it runs over */
	for (int i = 0; i < (o->nring_paths ? o->nring_paths : 1); i++) {
		fputs(i ? ", " : "", f);
		results_json_string(f, o->nring_paths ? o->ring_paths[i] : o->path ? o->path : "mpi");
	}
	fprintf(f, "],\n  \"min_pct\": %g", o->min_pct);
	fputs(",\n  \"path_env\": {", f); /* what --path set, and what it replaced */
	for (int i = 0; i < o->env.n; i++) {
		fputs(i ? ",\n    " : "\n    ", f);
		results_json_string(f, o->env.v[i].name);
		fputs(": {\"set\": ", f);
		results_json_string(f, o->env.v[i].value);
		fputs(", \"was\": ", f);
		if (o->env.v[i].had)
			results_json_string(f, o->env.v[i].was);
		else
			fputs("null", f);
		fputs(", \"library\": ", f); /* what the MPI library reports (MPI_T); null: not its setting */
		if (o->env.v[i].lib_known)
			results_json_string(f, o->env.v[i].lib);
		else
			fputs("null", f);
		fputs("}", f);
	}
	fputs(o->env.n ? "\n  },\n  \"nccl_env\": {" : "},\n  \"nccl_env\": {", f);
	for (int i = 0, k = 0; env && env[i]; i++) {
		const char *eq = strchr(env[i], '=');
		char key[128];

		if (strncmp(env[i], "NCCL_", 5) || !eq || eq - env[i] >= (long)sizeof key)
			continue;
		snprintf(key, sizeof key, "%.*s", (int)(eq - env[i]), env[i]);
		fputs(k++ ? ",\n    " : "\n    ", f);
		results_json_string(f, key);
		fputs(": ", f);
		results_json_string(f, eq + 1);
	}
	fputs("\n  }\n}\n", f);
}
