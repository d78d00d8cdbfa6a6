/* p2p_report.c — what the point-to-point benchmark writes: p2p.csv rows, the per-path
 * matrices (built here from merged records, written where the caller says), the terminal
 * summary. No MPI, so it is unit-tested directly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/csv.h"
#include "core/log.h"
#include "core/natsort.h"
#include "core/results.h"
#include "core/run.h"
#include "core/stats.h"
#include "core/world.h"
#include "fabric/io/p2p_csv.h"
#include "p2p.h"
#include "p2p_int.h"
#include "verbs_wire.h"

/* ---------------------------------------------------------------- merging two views */

void p2p_rec_merge(const struct p2p_rec *sv, const struct p2p_rec *dv, const char *src_label,
		   const char *dst_label, struct p2p_rec *out)
{
	*out = *sv; /* the numbers are the source's */
	if (sv->status == P2P_OK && dv->status == P2P_OK)
		return;
	/* the worse status wins, except that an error on one side is the cause of a timeout on
	 * the other, so it is the one reported */
	out->status = sv->status > dv->status ? sv->status : dv->status;
	if (out->status == P2P_TIMEOUT && (sv->status == P2P_ERROR || dv->status == P2P_ERROR))
		out->status = P2P_ERROR;
	/* name each side that failed, with its own reason */
	if (sv->status != P2P_OK && dv->status != P2P_OK)
		snprintf(out->why, sizeof out->why, "%.40s: %.80s; %.40s: %.80s", src_label, sv->why,
			 dst_label, dv->why);
	else if (sv->status != P2P_OK)
		snprintf(out->why, sizeof out->why, "%.60s: %.180s", src_label, sv->why);
	else
		snprintf(out->why, sizeof out->why, "%.60s: %.180s", dst_label, dv->why);
}

/* ---------------------------------------------------------------- p2p.csv */

/* The sizes the matrices show: the smallest latency size and the largest bandwidth size
 * (indices into opts->sizes, -1 when none). */
static void matrix_sizes(const struct p2p_opts *o, int *first_lat, int *last_bw)
{
	*first_lat = *last_bw = -1;
	for (int i = 0; i < o->nsizes; i++) {
		if (o->sizes[i].lat && *first_lat < 0)
			*first_lat = i;
		if (o->sizes[i].bw)
			*last_bw = i;
	}
}

/* The link between two ports: same kind or unknown; rate of the slower side. */
static void link_of(const struct tr_port *a, const struct tr_port *b, const char **kind, double *rate)
{
	*kind = !strcmp(a->kind, b->kind) ? a->kind : "";
	*rate = isnan(a->rate_gbps) || isnan(b->rate_gbps) ? NAN : fmin(a->rate_gbps, b->rate_gbps);
}

void p2p_csv_row(FILE *f, const struct p2p_path_out *po, const struct p2p_rec *r)
{
	const struct p2p_size *z = &po->opts->sizes[r->size_idx];
	const struct tr_port *sp = &po->ports[r->src], *dp = &po->ports[r->dst];
	int ok = r->status == P2P_OK;
	struct p2p_row row = {
		.run_id = po->run_id, .path = po->path,
		.src_host = po->labels[r->src], .dst_host = po->labels[r->dst],
		.src_dev = sp->dev, .dst_dev = dp->dev,
		.size_B = (int64_t)z->bytes,
		.lat_iters = ok && z->lat ? r->lat_iters : -1,
		.lat_us_min = NAN, .lat_us_avg = NAN, .lat_us_p50 = NAN, .lat_us_p99 = NAN, .lat_us_min_hi = NAN,
		.bw_windows = ok && z->bw ? r->bw_iters : -1,
		.window = ok && z->bw ? po->opts->window : -1,
		.bw_GBps = NAN, .bw_Gbps = NAN, .pct_line_rate = NAN,
		.status = p2p_status_name(r->status), .note = r->why,
		.bw_GBps_total = NAN, .bw_GBps_min = NAN, .bw_GBps_max = NAN,
		.bw_warmup_windows = ok && z->bw && r->bw_warm >= 0 ? r->bw_warm : -1,
		.bw_warmup = !ok || !z->bw || r->bw_converged < 0 ? NULL
			     : r->bw_converged ? "converged" : "not converged",
		.carried_by = sp->carried,
	};

	link_of(sp, dp, &row.kind, &row.line_rate_Gbps);
	if (ok && z->lat) {
		row.lat_us_min = r->lat_min;
		row.lat_us_avg = r->lat_avg;
		row.lat_us_p50 = r->lat_p50;
		row.lat_us_p99 = r->lat_p99;
		row.lat_us_min_hi = r->lat_min_hi;
	}
	if (ok && z->bw) {
		row.bw_GBps = r->bw_GBps;
		row.bw_Gbps = r->bw_GBps * 8;
		row.bw_GBps_total = r->bw_total;
		row.bw_GBps_min = r->bw_min;
		row.bw_GBps_max = r->bw_max;
		if (!isnan(row.line_rate_Gbps) && row.line_rate_Gbps > 0)
			row.pct_line_rate = 100 * row.bw_Gbps / row.line_rate_Gbps;
	}
	p2p_csv_write(f, &row);
}

/* ---------------------------------------------------------------- matrices */

void p2p_result_free(struct p2p_result *r)
{
	for (int i = 0; i < r->npaths; i++)
		matrix_free(&r->path[i]);
	r->npaths = 0;
}

/* the better of a cell's figure so far (NAN: none) and a new one */
static float best(float had, float v, int higher)
{
	return isnan(had) || isnan(v) ? (isnan(had) ? v : had) : higher ? (v > had ? v : had) : (v < had ? v : had);
}

void p2p_matrices_add(struct p2p_matrices *m, const struct p2p_opts *o, const struct p2p_rec *r)
{
	size_t cell = (size_t)r->src * (size_t)m->n + (size_t)r->dst;
	int ok = r->status == P2P_OK, first_lat, last_bw;

	matrix_sizes(o, &first_lat, &last_bw);
	/* a pair measured again (the confirmation's rounds) keeps its best figure of each, and the
	 * highest minimum of every measurement as lat_hi */
	if (ok && r->size_idx == first_lat) {
		float had = m->lat_min[cell];

		m->lat_hi[cell] = best(m->lat_hi[cell], (float)r->lat_min_hi, 1);
		if (!isnan(had))
			m->lat_hi[cell] = best(m->lat_hi[cell], best(had, (float)r->lat_min, 1), 1);
		m->lat_p50[cell] = best(m->lat_p50[cell], (float)r->lat_p50, 0);
		m->lat_min[cell] = best(m->lat_min[cell], (float)r->lat_min, 0);
		m->lat_p99[cell] = best(m->lat_p99[cell], (float)r->lat_p99, 0);
		if (r->lat_iters > 0 && (m->lat_iters_min == 0 || r->lat_iters < m->lat_iters_min))
			m->lat_iters_min = r->lat_iters;
	}
	if (ok && r->size_idx == last_bw)
		m->bw[cell] = best(m->bw[cell], (float)r->bw_GBps, 1);
	if (r->size_idx == o->nsizes - 1)
		ok ? m->ok++ : m->failed++;
}

void p2p_matrix_name(char *out, size_t len, const char *what, const char *path)
{
	int n = snprintf(out, len, "%s_", what);

	for (const char *p = path; *p && n + 5 < (int)len; p++)
		out[n++] = (*p == ':' || *p == '/') ? '_' : *p;
	snprintf(out + n, len - (size_t)n, ".csv");
}

int p2p_path_clash(const char (*paths)[P2P_PATH_MAX], int i)
{
	char a[2 * P2P_PATH_MAX + 32], b[sizeof a];

	p2p_matrix_name(a, sizeof a, "latency", paths[i]);
	for (int j = 0; j < i; j++) {
		p2p_matrix_name(b, sizeof b, "latency", paths[j]);
		if (!strcmp(a, b))
			return j;
	}
	return -1;
}

void p2p_matrix_write(FILE *f, int n, const char *const *labels, const int *order, const float *m,
		      int precision)
{
	fputs("host", f);
	for (int j = 0; j < n; j++) {
		fputc(',', f);
		csv_field(f, labels[order[j]]);
	}
	fputc('\n', f);
	for (int i = 0; i < n; i++) {
		int s = order[i];

		csv_field(f, labels[s]);
		for (int j = 0; j < n; j++) {
			float v = m[(size_t)s * (size_t)n + (size_t)order[j]];

			fputc(',', f);
			if (s != order[j] && !isnan(v))
				fprintf(f, "%.*f", precision, v);
		}
		fputc('\n', f);
	}
}

int p2p_matrices_write(const char *dir, const struct p2p_matrices *m, const char *const *labels,
		       const int *order)
{
	char name[P2P_PATH_MAX + 32];
	int rc = 0;

	for (int k = 0; k < 2; k++) {
		struct results_file out;

		p2p_matrix_name(name, sizeof name, k ? "bandwidth" : "latency", m->path);
		if (results_tmp_open(&out, dir, name)) {
			rc = FP_ERUNTIME;
			continue;
		}
		p2p_matrix_write(out.f, m->n, labels, order, k ? m->bw : m->lat_p50, k ? 4 : 3);
		if (results_tmp_commit(&out))
			rc = FP_ERUNTIME;
	}
	return rc;
}

static int cmp_label(const void *a, const void *b, void *labels)
{
	const char *const *l = labels;

	return natsort_cmp(l[*(const int *)a], l[*(const int *)b]);
}

void p2p_order_natural(int n, const char *const *labels, int *order)
{
	for (int e = 0; e < n; e++)
		order[e] = e;
	qsort_r(order, (size_t)n, sizeof *order, cmp_label, (void *)labels);
}

/* ---------------------------------------------------------------- terminal summary */

static void print_matrix(FILE *f, int n, const char *const *labels, const int *order, const float *m,
			 const char *title)
{
	int w = 6;

	for (int i = 0; i < n; i++)
		if ((int)strlen(labels[i]) > w)
			w = (int)strlen(labels[i]);
	fprintf(f, "%s\n%*s", title, w, "");
	for (int j = 0; j < n; j++)
		fprintf(f, " %9.9s", labels[order[j]]);
	fputc('\n', f);
	for (int i = 0; i < n; i++) {
		int s = order[i];

		fprintf(f, "%*s", w, labels[s]);
		for (int j = 0; j < n; j++) {
			double v = m[(size_t)s * (size_t)n + (size_t)order[j]];

			if (s == order[j])
				fprintf(f, " %9s", "-");
			else if (isnan(v))
				fprintf(f, " %9s", "x");
			else
				fprintf(f, " %9.*f", v < 10 ? 3 : v < 1000 ? 1 : 0, v);
		}
		fputc('\n', f);
	}
}

/* min / median / max of the measured off-diagonal cells */
static void print_spread(FILE *f, int nep, const float *m, const char *title)
{
	size_t n = (size_t)nep, k = 0;
	double *v = malloc(sizeof *v * n * n);
	struct stats st;

	if (!v)
		return;
	for (size_t i = 0; i < n * n; i++)
		if (i / n != i % n && !isnan(m[i]))
			v[k++] = m[i];
	if (k) {
		stats_compute(v, (int)k, &st);
		fprintf(f, "%s: min %.3f  median %.3f  max %.3f  (%zu pairs)\n", title, st.min, st.p50,
			st.max, k);
	}
	free(v);
}

static void size_text(char *out, size_t len, uint64_t b)
{
	if (b >= (1 << 20) && b % (1 << 20) == 0)
		snprintf(out, len, "%llu MiB", (unsigned long long)(b >> 20));
	else if (b >= 1024 && b % 1024 == 0)
		snprintf(out, len, "%llu KiB", (unsigned long long)(b >> 10));
	else
		snprintf(out, len, "%llu B", (unsigned long long)b);
}

void p2p_summary_print(FILE *f, const struct p2p_matrices *m, const struct p2p_opts *o,
		       const char *const *labels, const int *order)
{
	char title[128], sz[32];
	int first_lat, last_bw;

	matrix_sizes(o, &first_lat, &last_bw);
	fprintf(f, "\npath %s: %d endpoints, %d directions ok, %d failed\n", m->path, m->n, m->ok, m->failed);
	if (first_lat >= 0) {
		size_text(sz, sizeof sz, o->sizes[first_lat].bytes);
		snprintf(title, sizeof title, "latency p50 (us, half round trip), %s, row = src", sz);
		if (m->n <= 16)
			print_matrix(f, m->n, labels, order, m->lat_p50, title);
		else
			print_spread(f, m->n, m->lat_p50, title);
	}
	if (last_bw >= 0) {
		size_text(sz, sizeof sz, o->sizes[last_bw].bytes);
		snprintf(title, sizeof title, "bandwidth (GB/s), %s messages, row = src", sz);
		if (m->n <= 16)
			print_matrix(f, m->n, labels, order, m->bw, title);
		else
			print_spread(f, m->n, m->bw, title);
	}
}

/* rank 0: the path's line rate (its slowest usable port; NAN when one is unknown) and kind */
void p2p_path_rate(struct p2p_matrices *m, const struct tr_port *ports, int n)
{
	m->line_rate_Gbps = NAN;
	m->kind[0] = 0;
	for (int e = 0, first = 1; e < n; e++) {
		if (!ports[e].usable)
			continue;
		if (first)
			snprintf(m->kind, sizeof m->kind, "%s", ports[e].kind);
		if (isnan(ports[e].rate_gbps) || (!first && isnan(m->line_rate_Gbps)))
			m->line_rate_Gbps = NAN, first = 0;
		else if (first || ports[e].rate_gbps < m->line_rate_Gbps)
			m->line_rate_Gbps = ports[e].rate_gbps, first = 0;
	}
}

void p2p_engine_report(struct p2p_run *run, int nsteps)
{
	run->out->engine.endpoints = run->w->nep;
	run->out->engine.steps += nsteps;
	run->out->engine.sync_s += run->sync_s;
	run->out->engine.write_s += run->write_s;
	printf("  engine: %.2f ms a step agreeing and gathering to rank 0, %.2f ms writing its rows (%d steps)\n",
	       1e3 * run->sync_s / nsteps, 1e3 * run->write_s / nsteps, nsteps);
}

/* Rank 0, once a run: the traffic class, service level and flow label a verbs path's queue
 * pairs take (the options, else NCCL's variables as rank 0 sees them; each row's carried_by
 * says what its pair took), into meta.json. */
void p2p_meta_qos(struct p2p_run *run, const char (*paths)[P2P_PATH_MAX], int npaths)
{
	static int said;
	struct jw *j = &run->out->meta_extra;
	struct tr_qos q;
	char warn[128];
	int verbs = 0;

	for (int i = 0; i < npaths; i++)
		verbs |= !strncmp(paths[i], "verbs:", 6);
	if (said || !verbs || run->w->rank != 0 || !j->f)
		return;
	said = 1;
	verbs_qos_resolve(&run->o->qos, getenv("NCCL_IB_TC"), getenv("NCCL_IB_SL"), &q, warn, sizeof warn);
	jw_kobject(j, "verbs_qos", 1);
	jw_kint(j, "tclass", q.tclass);
	jw_kint(j, "sl", q.sl);
	jw_kint(j, "flow_label", q.flow_label);
	jw_kstr(j, "tclass_from", run->o->qos.tclass >= 0 ? "--tclass" : getenv("NCCL_IB_TC") ? "NCCL_IB_TC" : "default");
	jw_kstr(j, "sl_from", run->o->qos.sl >= 0 ? "--sl" : getenv("NCCL_IB_SL") ? "NCCL_IB_SL" : "default");
	if (warn[0])
		jw_kstr(j, "warning", warn);
	jw_end(j);
}
