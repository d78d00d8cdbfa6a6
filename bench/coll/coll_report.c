/* coll_report.c — what the collective benchmark writes: collectives.csv rows (docs/formats.md)
 * and the nccl-tests terminal table. Pure over plain structs (only FILE * output). */
#include <math.h>
#include <string.h>

#include "coll_report.h"
#include "core/jw.h"
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
		.carried_by = r->carried_by ? r->carried_by : "",
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

static void json_names(struct jw *j, const char *key, const int *ids, int n, const char *(*name)(int))
{
	jw_karray(j, key, 1);
	for (int i = 0; i < n; i++)
		jw_str(j, name(ids[i]));
	jw_end(j);
}

static const char *op_name(int i) { return coll_ops[i].name; }
static const char *dtype_name(int i) { return coll_dtypes[i].name; }
static const char *redop_str(int i) { return coll_redop_names[i]; }

/* what --path set, what it replaced (null: unset) and what the MPI library reports it took
 * (MPI_T; null: not its setting) */
static void path_env_json(struct jw *j, const struct coll_opts *o)
{
	jw_kobject(j, "path_env", 0);
	for (int i = 0; i < o->env.n; i++) {
		jw_kobject(j, o->env.v[i].name, 1);
		jw_kstr(j, "set", o->env.v[i].value);
		jw_kstr(j, "was", o->env.v[i].had ? o->env.v[i].was : NULL);
		jw_kstr(j, "library", o->env.v[i].lib_known ? o->env.v[i].lib : NULL);
		jw_end(j);
	}
	jw_end(j);
}

int coll_meta_write(FILE *f, const struct coll_opts *o, const struct coll_be_status *st, int nst,
		    int nranks, int nnodes, char *const *env)
{
	struct jw j;

	jw_init(&j, f);
	jw_object(&j, 0);
	jw_kstr(&j, "command", "coll");
	jw_kint(&j, "nranks", nranks);
	jw_kint(&j, "nnodes", nnodes);
	jw_kint(&j, "iters", o->iters);
	jw_kint(&j, "warmup_iters", o->warmup);
	jw_kint(&j, "check", o->check);
	jw_karray(&j, "sizes_B", 1);
	for (int i = 0; i < o->nsizes; i++)
		jw_int(&j, (long long)o->sizes[i]);
	jw_end(&j);
	json_names(&j, "ops", o->ops, o->nops, op_name);
	json_names(&j, "datatypes", o->dtypes, o->ndtypes, dtype_name);
	json_names(&j, "redops", o->redops, o->nredops, redop_str);
	jw_kint(&j, "root", o->root);
	jw_karray(&j, "backends", 0);
	for (int i = 0; i < nst; i++) {
		jw_object(&j, 1);
		jw_kstr(&j, "name", st[i].name);
		jw_kbool(&j, "selected", st[i].selected);
		jw_kstr(&j, "status", !st[i].selected ? "not selected" : st[i].usable ? "run" : "skipped");
		jw_kstr(&j, "why", st[i].why);
		jw_kstr(&j, "version", st[i].version);
		jw_end(&j);
	}
	jw_end(&j);
	jw_kstr(&j, "path", o->path ? o->path : "");
	jw_karray(&j, "ring_paths", 1); /* fabprobe's ring: the paths it runs over */
	for (int i = 0; i < (o->nring_paths ? o->nring_paths : 1); i++)
		jw_str(&j, o->nring_paths ? o->ring_paths[i] : o->path ? o->path : "mpi");
	jw_end(&j);
	jw_knum(&j, "min_pct", o->min_pct, -1);
	path_env_json(&j, o);
	jw_kobject(&j, "nccl_env", 0);
	for (int i = 0; env && env[i]; i++) {
		const char *eq = strchr(env[i], '=');
		char key[128];

		if (strncmp(env[i], "NCCL_", 5) || !eq || eq - env[i] >= (long)sizeof key)
			continue;
		snprintf(key, sizeof key, "%.*s", (int)(eq - env[i]), env[i]);
		jw_kstr(&j, key, eq + 1);
	}
	jw_end(&j);
	jw_end(&j);
	return jw_done(&j);
}
