/* p2p_report.c — what the point-to-point benchmark writes: p2p.csv rows, per-path matrices,
 * the terminal summary. Pure over plain structs (only FILE * output), so it is unit-tested
 * without MPI. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/csv.h"
#include "core/stats.h"
#include "p2p.h"

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

struct p2p_row {
	const char *run_id, *path, *kind, *src_host, *dst_host, *src_dev, *dst_dev;
	double line_rate_Gbps;
	int64_t size_B, lat_iters;
	double lat_us_min, lat_us_avg, lat_us_p50, lat_us_p99;
	int64_t bw_windows, window;
	double bw_GBps, bw_Gbps, pct_line_rate;
	const char *status, *note;
};

#define COL(n, t, f, p) CSV_COL(n, t, struct p2p_row, f, p)
static const struct csv_col p2p_cols[] = {
	COL("run_id", CSV_STR, run_id, 0),
	COL("path", CSV_STR, path, 0),
	COL("kind", CSV_STR, kind, 0),
	COL("src_host", CSV_STR, src_host, 0),
	COL("dst_host", CSV_STR, dst_host, 0),
	COL("src_dev", CSV_STR, src_dev, 0),
	COL("dst_dev", CSV_STR, dst_dev, 0),
	COL("line_rate_Gbps", CSV_F64, line_rate_Gbps, 1),
	COL("size_B", CSV_I64, size_B, 0),
	COL("lat_iters", CSV_I64, lat_iters, 0),
	COL("lat_us_min", CSV_F64, lat_us_min, 3),
	COL("lat_us_avg", CSV_F64, lat_us_avg, 3),
	COL("lat_us_p50", CSV_F64, lat_us_p50, 3),
	COL("lat_us_p99", CSV_F64, lat_us_p99, 3),
	COL("bw_windows", CSV_I64, bw_windows, 0),
	COL("window", CSV_I64, window, 0),
	COL("bw_GBps", CSV_F64, bw_GBps, 4),
	COL("bw_Gbps", CSV_F64, bw_Gbps, 3),
	COL("pct_line_rate", CSV_F64, pct_line_rate, 1),
	COL("status", CSV_STR, status, 0),
	COL("note", CSV_STR, note, 0),
};
#define NCOLS ((int)(sizeof p2p_cols / sizeof p2p_cols[0]))

void p2p_csv_header(FILE *f)
{
	csv_header(f, p2p_cols, NCOLS);
}

/* The link between two ports: same kind or unknown; rate of the slower side. */
static void link_of(const struct tr_port *a, const struct tr_port *b, const char **kind, double *rate)
{
	*kind = !strcmp(a->kind, b->kind) ? a->kind : "";
	*rate = isnan(a->rate_gbps) || isnan(b->rate_gbps) ? NAN : fmin(a->rate_gbps, b->rate_gbps);
}

void p2p_csv_row(FILE *f, struct p2p_path_out *po, const struct p2p_rec *r)
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
		.lat_us_min = NAN, .lat_us_avg = NAN, .lat_us_p50 = NAN, .lat_us_p99 = NAN,
		.bw_windows = ok && z->bw ? r->bw_iters : -1,
		.window = ok && z->bw ? po->opts->window : -1,
		.bw_GBps = NAN, .bw_Gbps = NAN, .pct_line_rate = NAN,
		.status = p2p_status_name(r->status), .note = r->why,
	};

	link_of(sp, dp, &row.kind, &row.line_rate_Gbps);
	if (ok && z->lat) {
		row.lat_us_min = r->lat_min;
		row.lat_us_avg = r->lat_avg;
		row.lat_us_p50 = r->lat_p50;
		row.lat_us_p99 = r->lat_p99;
	}
	if (ok && z->bw) {
		row.bw_GBps = r->bw_GBps;
		row.bw_Gbps = r->bw_GBps * 8;
		if (!isnan(row.line_rate_Gbps) && row.line_rate_Gbps > 0)
			row.pct_line_rate = 100 * row.bw_Gbps / row.line_rate_Gbps;
	}
	csv_row(f, p2p_cols, NCOLS, &row);

	/* remember the matrix cells: p50 at the smallest latency size, the largest bandwidth size */
	size_t cell = (size_t)r->src * (size_t)po->nep + (size_t)r->dst;
	int first_lat, last_bw;
	matrix_sizes(po->opts, &first_lat, &last_bw);
	if (ok && r->size_idx == first_lat) {
		po->lat[cell] = r->lat_p50;
		if (po->lat_min)
			po->lat_min[cell] = r->lat_min;
	}
	if (ok && r->size_idx == last_bw)
		po->bw[cell] = r->bw_GBps;
	if (r->size_idx == po->opts->nsizes - 1)
		ok ? po->ok++ : po->failed++;
}

/* ---------------------------------------------------------------- matrices */

void p2p_matrix_name(char *out, size_t len, const char *what, const char *path)
{
	int n = snprintf(out, len, "%s_", what);

	for (const char *p = path; *p && n + 5 < (int)len; p++)
		out[n++] = (*p == ':' || *p == '/') ? '_' : *p;
	snprintf(out + n, len - (size_t)n, ".csv");
}

void p2p_matrix_write(FILE *f, const struct p2p_path_out *po, const double *m, int precision)
{
	int n = po->nep;

	fputs("host", f);
	for (int j = 0; j < n; j++) {
		fputc(',', f);
		csv_field(f, po->labels[po->order[j]]);
	}
	fputc('\n', f);
	for (int i = 0; i < n; i++) {
		int s = po->order[i];

		csv_field(f, po->labels[s]);
		for (int j = 0; j < n; j++) {
			double v = m[(size_t)s * (size_t)n + (size_t)po->order[j]];

			fputc(',', f);
			if (s != po->order[j] && !isnan(v))
				fprintf(f, "%.*f", precision, v);
		}
		fputc('\n', f);
	}
}

/* ---------------------------------------------------------------- terminal summary */

static void print_matrix(FILE *f, const struct p2p_path_out *po, const double *m, const char *title)
{
	int n = po->nep, w = 6;

	for (int i = 0; i < n; i++)
		if ((int)strlen(po->labels[i]) > w)
			w = (int)strlen(po->labels[i]);
	fprintf(f, "%s\n%*s", title, w, "");
	for (int j = 0; j < n; j++)
		fprintf(f, " %9.9s", po->labels[po->order[j]]);
	fputc('\n', f);
	for (int i = 0; i < n; i++) {
		int s = po->order[i];

		fprintf(f, "%*s", w, po->labels[s]);
		for (int j = 0; j < n; j++) {
			double v = m[(size_t)s * (size_t)n + (size_t)po->order[j]];

			if (s == po->order[j])
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
static void print_spread(FILE *f, const struct p2p_path_out *po, const double *m, const char *title)
{
	size_t n = (size_t)po->nep, k = 0;
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

void p2p_summary_print(FILE *f, const struct p2p_path_out *po)
{
	char title[128], sz[32];
	int first_lat, last_bw;

	matrix_sizes(po->opts, &first_lat, &last_bw);
	fprintf(f, "\npath %s: %d endpoints, %d directions ok, %d failed\n", po->path, po->nep, po->ok,
		po->failed);
	if (first_lat >= 0) {
		size_text(sz, sizeof sz, po->opts->sizes[first_lat].bytes);
		snprintf(title, sizeof title, "latency p50 (us, half round trip), %s, row = src", sz);
		po->nep <= 16 ? print_matrix(f, po, po->lat, title) : print_spread(f, po, po->lat, title);
	}
	if (last_bw >= 0) {
		size_text(sz, sizeof sz, po->opts->sizes[last_bw].bytes);
		snprintf(title, sizeof title, "bandwidth (GB/s), %s messages, row = src", sz);
		po->nep <= 16 ? print_matrix(f, po, po->bw, title) : print_spread(f, po, po->bw, title);
	}
}
