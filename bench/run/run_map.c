/* run_map.c — see run_map.h. */
#include "run_map.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/log.h"
#include "core/mpi_util.h"
#include "core/run.h"
#include "core/world.h"
#include "fabric/emit/emit.h"
#include "fabric/emit/topo_csv.h"

const struct infer_result *run_maps_map(const struct run_maps *mp, int i)
{
	return run_path_map_of(&mp->p[i]);
}


static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

/* the median of a matrix's measured cells (O(N² log N)) */
double run_matrix_median(const float *m, int n)
{
	size_t k = 0, cells = (size_t)n * (size_t)n;
	float *v = malloc(sizeof *v * (cells + 1));
	double med = NAN;

	if (!v)
		return NAN;
	for (size_t i = 0; i < cells; i++)
		if (!isnan(m[i]))
			v[k++] = m[i];
	qsort(v, k, sizeof *v, cmp_float);
	if (k)
		med = v[(k - 1) / 2];
	free(v);
	return med;
}


/* ---------------------------------------------------------------- the first maps */

/* --test-split-leaves: the map drawn again with the pairs across the two halves of each leaf
 * (its members in index order) half a tier step slower, as though the latency pass had split
 * every leaf; the figures themselves are left as measured. 0 or FP_ERUNTIME. */
static int split_leaves(struct run_path_map *p, const char *const *labels, const struct infer_opts *io)
{
	int n = p->m->n, *seen, *size;
	struct infer_result *r = &p->r1;
	float *lat;

	if (r->ntiers < 2)
		return 0;
	lat = malloc(sizeof *lat * ((size_t)n * (size_t)n + 1));
	seen = calloc(2 * (size_t)n + 1, sizeof *seen);
	if (!lat || !seen) {
		free(lat);
		free(seen);
		return FP_ERUNTIME;
	}
	size = seen + n;
	double step = r->lat_p50_us[1] - r->lat_p50_us[0];

	memcpy(lat, p->m->lat_min, sizeof *lat * (size_t)n * (size_t)n);
	for (int i = 0; i < n; i++) /* a node's place in its leaf, and each leaf's size */
		seen[i] = size[r->group[i]]++;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			int g = r->group[i], half = size[g] / 2;

			if (i != j && g == r->group[j] && size[g] >= 4 && (seen[i] < half) != (seen[j] < half))
				lat[(size_t)i * n + j] += (float)(step / 2);
		}
	infer_result_free(r);
	int rc = infer_tiers(lat, p->m->bw, n, labels, io, r) ? FP_ERUNTIME : 0;

	free(lat);
	free(seen);
	return rc;
}

int run_maps_first(struct run_maps *mp, struct p2p_result *res, const char *const *labels, const double *noise_us,
		   int test_split)
{
	struct infer_opts io;
	struct susp_opts jo;

	infer_opts_default(&io);
	susp_opts_default(&jo);
	memset(mp, 0, sizeof *mp);
	for (int i = 0; i < res->npaths; i++) {
		struct run_path_map *p = &mp->p[mp->npaths++];
		struct susp_matrices jm = run_susp_matrices(&res->path[i]);

		p->m = &res->path[i];
		io.noise_us = noise_us ? noise_us[i] : 0;
		io.lat_again = p->m->lat_hi;
		if (infer_tiers(p->m->lat_min, p->m->bw, p->m->n, labels, &io, &p->r1) ||
		    (test_split && split_leaves(p, labels, &io)))
			return FP_ERUNTIME;
		p->have_r1 = 1;
		p->retested = calloc((size_t)p->m->n * (size_t)p->m->n + 1, 1);
		p->control = calloc((size_t)p->m->n * (size_t)p->m->n + 1, 1);
		if (!p->retested || !p->control || susp_candidates(&p->r1, &jm, &jo, &p->first))
			return FP_ERUNTIME;
	}
	return 0;
}

/* ---------------------------------------------------------------- the compute path */

void run_maps_compute(struct run_maps *mp)
{
	double best = -1;

	mp->compute = 0;
	snprintf(mp->compute_why, sizeof mp->compute_why, "the only path measured");
	for (int i = 0; i < mp->npaths; i++)
		if (!strncmp(mp->p[i].m->path, "verbs:", 6) && mp->p[i].m->ok > 0) {
			mp->compute = i;
			snprintf(mp->compute_why, sizeof mp->compute_why, "RDMA");
			return;
		}
	/* the fastest; a path only a few percent faster than an earlier one is the same network
	 * read twice (mpi over the TCP of eth0), and the earlier one keeps it */
	for (int i = 0; mp->npaths > 1 && i < mp->npaths; i++) {
		double bw = run_matrix_median(mp->p[i].m->bw, mp->p[i].m->n);

		if (bw > 1.05 * best) {
			best = bw;
			mp->compute = i;
			snprintf(mp->compute_why, sizeof mp->compute_why,
				 "the fastest by median bandwidth, %.3f GB/s (a later path must be 5%% faster)", bw);
		}
	}
}

/* ---------------------------------------------------------------- writing */

/* "_tcp_eth0" for tcp:eth0 */
static void path_suffix(const char *path, char *out, size_t len)
{
	size_t k = 0;

	out[k++] = '_';
	for (const char *s = path; *s && k + 1 < len; s++)
		out[k++] = *s == ':' || *s == '/' ? '_' : *s;
	out[k] = 0;
}

/* nodes whose leaf mates differ between two maps (tier 0), O(n): a node agrees when, in both
 * directions, its group in one map is the group of its group's first node */
static int leaves_differ(const struct infer_result *a, const struct infer_result *b, int n, int *example)
{
	int *first_a = malloc(sizeof *first_a * (size_t)n), *first_b = malloc(sizeof *first_b * (size_t)n), count = 0;

	*example = -1;
	if (!first_a || !first_b) {
		free(first_a);
		free(first_b);
		return 0;
	}
	for (int g = 0; g < n; g++)
		first_a[g] = first_b[g] = -1;
	for (int x = 0; x < n; x++) {
		if (first_a[a->group[x]] < 0)
			first_a[a->group[x]] = x;
		if (first_b[b->group[x]] < 0)
			first_b[b->group[x]] = x;
	}
	for (int x = 0; x < n; x++)
		if (b->group[first_a[a->group[x]]] != b->group[x] || a->group[first_b[b->group[x]]] != a->group[x]) {
			if (*example < 0)
				*example = x;
			count++;
		}
	free(first_a);
	free(first_b);
	return count;
}

/* two maps whose leaf groups each stand this many standard errors from their nearest (three
 * times the bar a tier must pass, infer_opts.sep_z) are both sure: where they differ, the
 * paths are different networks (two maps that sure of one network would draw the same
 * groups). Standard errors, not noise sigmas: the evidence grows with the pairs behind it,
 * while a noisy host's sigma (the emulated cluster's leaf pairs: 6-18% some runs) leaves a
 * leaf at twice the spine's latency only 5-9 sigmas above it. */
#define MAPS_SURE_Z 15.0

static void maps_compare(const struct run_maps *mp, const char *const *labels)
{
	const struct run_path_map *c = &mp->p[mp->compute];

	for (int i = 0; i < mp->npaths; i++) {
		const struct run_path_map *p = &mp->p[i];
		int ex, d;

		if (i == mp->compute)
			continue;
		d = leaves_differ(run_path_map_of(c), run_path_map_of(p), c->m->n, &ex);
		const struct infer_result *x = run_path_map_of(p), *y = run_path_map_of(c);
		if (!d && run_path_map_of(c)->ntiers == run_path_map_of(p)->ntiers)
			printf("maps: %s and %s agree (same leaf groups, %d tier%s)\n", p->m->path, c->m->path,
			       run_path_map_of(p)->ntiers, run_path_map_of(p)->ntiers == 1 ? "" : "s");
		else if (x->ntiers > 1 && y->ntiers > 1 && x->sep_z[0] >= MAPS_SURE_Z && y->sep_z[0] >= MAPS_SURE_Z)
			/* both beyond doubt: not one network seen twice, badly */
			printf("maps: %s and %s are different networks: %d and %d leaf groups, each map's standing "
			       "z >= %.0f and %.0f apart; %d node%s grouped otherwise (%s first)\n",
			       p->m->path, c->m->path, x->ngroups[0], y->ngroups[0], x->sep_z[0], y->sep_z[0], d,
			       d == 1 ? "" : "s", ex >= 0 ? labels[ex] : "none");
		else
			printf("maps DISAGREE: %s has %d tier%s and %d leaf group%s, %s %d and %d; %d node%s in "
			       "other leaf groups (%s first): different networks, or one map is unsure\n",
			       p->m->path, run_path_map_of(p)->ntiers, run_path_map_of(p)->ntiers == 1 ? "" : "s", run_path_map_of(p)->ngroups[0],
			       run_path_map_of(p)->ngroups[0] == 1 ? "" : "s", c->m->path, run_path_map_of(c)->ntiers,
			       run_path_map_of(c)->ngroups[0], d, d == 1 ? "" : "s", ex >= 0 ? labels[ex] : "none");
	}
}

/* whether the map of the confirmed figures kept the first one's tiers and groups */
static void map_again_say(const struct run_path_map *p)
{
	const struct infer_result *a = &p->r1, *b = &p->r2;
	int ex, d = leaves_differ(a, b, p->m->n, &ex), same = a->ntiers == b->ntiers && d == 0;

	for (int t = 0; same && t < a->ntiers; t++)
		same = a->ngroups[t] == b->ngroups[t];
	printf("  the map again from the confirmed figures (%d pair%s re-measured, %d at tier boundaries): ",
	       p->nretest, p->nretest == 1 ? "" : "s", p->nboundary);
	if (same)
		printf("the same tiers and groups\n");
	else
		printf("CHANGED from %d tier%s and %d leaf group%s (the first figures) to %d and %d, %d node%s in "
		       "other leaf groups: the files hold the confirmed map\n", a->ntiers, a->ntiers == 1 ? "" : "s",
		       a->ngroups[0], a->ngroups[0] == 1 ? "" : "s", b->ntiers, b->ngroups[0], d, d == 1 ? "" : "s");
}

static int write_one(const struct run_maps *mp, int i, const char *suffix, int schedulers, const char *dir,
		     const struct emit_topo *base, int print, const struct results_tee *tee)
{
	const struct run_path_map *p = &mp->p[i];
	struct emit_topo t = *base;
	struct results_teebuf tb;
	FILE *f;
	int rc;

	t.tree = run_path_map_of(p);
	t.suspects = &p->held;
	t.rest = p->first.n || p->rest.n ? &p->rest : NULL;
	t.suffix = suffix;
	rc = topo_outputs_write(dir, &t, schedulers);
	if ((f = results_tee_open(tee, &tb))) /* topology.csv's text for the run's own model */
		topo_csv_topology(f, &t);
	if (tee)
		results_tee_done(tee, &tb, "topology.csv");
	if (print) {
		printf("\npath %s%s:", p->m->path, i == mp->compute ? " (the compute fabric: the scheduler files)" : "");
		topo_summary_print(stdout, &t);
		if (p->first.n || p->rest.n) {
			int held = 0;

			for (int k = 0; k < p->held.n; k++)
				held += p->held.s[k].state == SUSP_HELD;
			printf("  re-tested %d candidate%s (%d pair%s alone in all, %d of them controls): %d held; the "
			       "others are in retested%s.csv\n", p->first.n, p->first.n == 1 ? "" : "s", p->nretest,
			       p->nretest == 1 ? "" : "s", p->ncontrol, held, suffix);
		}
		if (p->have_r2)
			map_again_say(p);
	}
	return rc;
}

int run_maps_write(struct run_maps *mp, const struct world *w, const struct run_out *ro, const struct emit_topo *base)
{
	int rc = 0, wrc;
	const int *order = run_path_map_of(&mp->p[mp->compute])->order;

	for (int i = 0; i < mp->npaths; i++) {
		char suffix[P2P_PATH_MAX + 2];

		path_suffix(mp->p[i].m->path, suffix, sizeof suffix);
		if ((wrc = write_one(mp, i, suffix, 0, ro->dir, base, 1, NULL)) && rc != FP_ERUNTIME)
			rc = wrc;
	}
	/* the compute path's map again, un-suffixed, with the scheduler files */
	if ((wrc = write_one(mp, mp->compute, "", !w->single_node, ro->dir, base, 0, &ro->tee)) && rc != FP_ERUNTIME)
		rc = wrc;
	/* every path's matrices, once, in the compute map's tree order (docs/formats.md) */
	for (int i = 0; i < mp->npaths; i++)
		if (p2p_matrices_write(ro->dir, mp->p[i].m, w->labels, order))
			rc = FP_ERUNTIME;
	if (mp->npaths > 1) {
		printf("\nscheduler files from %s (%s)\n", mp->p[mp->compute].m->path, mp->compute_why);
		maps_compare(mp, w->labels);
	}
	fflush(stdout);
	return rc;
}

/* ---------------------------------------------------------------- the verdict */

int run_maps_verdict(const struct run_maps *mp, const char *const *labels, char *out, size_t len)
{
	int total = 0;
	size_t k = 0;

	out[0] = 0;
	for (int kind = 0; kind < SUSPECT_NKINDS; kind++) {
		int count = 0;
		char who[512] = "";
		size_t wk = 0;

		for (int i = 0; i < mp->npaths; i++)
			for (int s = 0; s < mp->p[i].held.n; s++) {
				const struct suspect *x = &mp->p[i].held.s[s];
				char name[600];

				if (x->kind != kind)
					continue;
				count++;
				snprintf(name, sizeof name, x->b >= 0 ? "%s-%s" : "%s", labels[x->a], x->b >= 0 ? labels[x->b] : "");
				if (x->kind == SUSPECT_LOW_BW_UPLINK && run_maps_map(mp, i)) {
					struct emit_topo t = { .n = mp->p[i].m->n, .hosts = labels, .tree = run_maps_map(mp, i) };

					topo_finding_where(&t, x, name, sizeof name);
				}
				if (!strstr(who, name) && wk + strlen(name) + 8 < sizeof who)
					wk += (size_t)snprintf(who + wk, sizeof who - wk, "%s%s", wk ? " " : "", name);
			}
		if (!count)
			continue;
		total += count;
		if (k < len)
			k += (size_t)snprintf(out + k, len - k, "%s%s %d (%s)", k ? ", " : "", susp_kind_name(kind), count, who);
	}
	return total;
}

void run_maps_free(struct run_maps *mp)
{
	for (int i = 0; i < mp->npaths; i++) {
		struct run_path_map *p = &mp->p[i];

		if (p->have_r1)
			infer_result_free(&p->r1);
		if (p->have_r2)
			infer_result_free(&p->r2);
		susp_list_free(&p->first);
		susp_list_free(&p->after);
		susp_list_free(&p->held);
		susp_list_free(&p->rest);
		free(p->retested);
		free(p->control);
		free(p->boundary);
	}
	memset(mp, 0, sizeof *mp);
}
