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

#define STEP_OVERHEAD_S 0.05 /* a step's barrier, gather and write, for the estimate */
#define CONTROLS_PER_TIER 2  /* control pairs per tier that holds a jittery-link candidate */
#define CONFIRM_ROUNDS 3     /* measurements of a pair behind a link candidate (rounds apart) */

static struct susp_matrices jm_of(const struct p2p_matrices *m)
{
	return (struct susp_matrices){ m->n, m->lat_min, m->lat_p50, m->lat_p99, m->bw, NULL, m->lat_iters_min };
}

static const struct infer_result *map_of(const struct run_path_map *p)
{
	return p->have_r2 ? &p->r2 : &p->r1;
}

const struct infer_result *run_maps_map(const struct run_maps *mp, int i)
{
	return map_of(&mp->p[i]);
}

void run_confirm_p2p_opts(const struct p2p_opts *o, long factor, struct p2p_opts *co)
{
	int lat = -1, bw = -1;

	*co = *o;
	for (int i = 0; i < o->nsizes; i++) {
		if (o->sizes[i].lat && lat < 0)
			lat = i;
		if (o->sizes[i].bw)
			bw = i;
	}
	co->nsizes = 0;
	for (int i = 0; i < o->nsizes; i++)
		if (i == lat || i == bw)
			co->sizes[co->nsizes++] = (struct p2p_size){ o->sizes[i].bytes, i == lat, i == bw };
	co->lat_iters = o->lat_iters * factor;
	co->bw_iters = o->bw_iters * factor;
	co->pair_timeout = o->pair_timeout > 0 ? o->pair_timeout * (double)factor : 0;
	co->concurrency = 1;
	co->test_stall_rank = -1;
	co->test_fault = TR_FAULT_NONE;
	co->test_fault_rank = -1;
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
		struct susp_matrices jm = jm_of(&res->path[i]);

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

/* ---------------------------------------------------------------- the plan */

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

/* the median of a matrix's measured cells (O(N² log N)) */
static double median_cells(const float *m, int n)
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

/* pairs a plan holds per path at most: every pair, up to P2P_PLAN_PAIRS_MAX (the time budget
 * cuts far earlier) */
static int plan_room(int n)
{
	long all = (long)n * (n - 1) / 2;

	return all < P2P_PLAN_PAIRS_MAX ? (int)all : P2P_PLAN_PAIRS_MAX;
}

/* The judges' pairs (cf->judged) of path index i not among the first `got` pairs at buf,
 * appended after them; returns their count. */
static int plan_judged(const struct run_confirm_opts *cf, const struct run_maps *mp, int i, int *buf, int got)
{
	int nj = 0;

	for (int j = 0; cf->judged_rounds > 0 && j < cf->njudged; j++) {
		const int *t = cf->judged + 3 * j;
		int dup = strcmp(cf->judged_paths[t[0]], mp->p[i].m->path) != 0;

		for (int c = 0; c < got + nj && !dup; c++)
			dup = buf[2 * c] == t[1] && buf[2 * c + 1] == t[2];
		if (!dup) {
			buf[2 * (got + nj)] = t[1];
			buf[2 * (got + nj) + 1] = t[2];
			nj++;
		}
	}
	return nj;
}

/* rank 0: the plan as ints (p2p.h's wire format, one pair a step): npaths, then per path
 * npairs, 0 steps, 0, and the pairs (a < b): the map's candidates, the pairs the judges
 * suspect, the controls, then the later rounds. Pairs whose estimate
 * would pass the budget are left out (their candidates are "not re-tested"). */
static int *plan_pack(const struct run_confirm_opts *cf, const struct p2p_opts *co, struct run_maps *mp, int *len,
		      double *est, int *left_out)
{
	int cap = 1, k = 0, rounds = cf->judged_rounds > CONFIRM_ROUNDS ? cf->judged_rounds : CONFIRM_ROUNDS;
	int *buf;

	*est = 0;
	*left_out = 0;
	for (int i = 0; i < mp->npaths; i++)
		cap += 3 + 2 * rounds * (plan_room(mp->p[i].m->n) + (CONTROLS_PER_TIER + 2 * INFER_BOUNDARY_PAIRS) *
							 INFER_TIERS_MAX + cf->njudged);
	if (!(buf = malloc(sizeof *buf * (size_t)cap)))
		return NULL;
	buf[k++] = mp->npaths;
	for (int i = 0; i < mp->npaths; i++) {
		struct run_path_map *p = &mp->p[i];
		int n = p->m->n, left = 0, at = k, got, nj = 0;
		double lat = median_cells(p->m->lat_min, n), GBps = median_cells(p->m->bw, n);
		double per = p2p_pair_estimate(co, isnan(lat) ? 20 : lat, isnan(GBps) || GBps <= 0 ? 1.25 : GBps) +
			     STEP_OVERHEAD_S;

		k += 3; /* npairs, nsteps 0 and step_first[0], once counted */

		got = cf->off ? 0 : susp_pairs(&p->first, &p->r1, n, buf + k, plan_room(n), &left);
		if (got < 0) {
			free(buf);
			return NULL;
		}
		if (!cf->off)
			nj = plan_judged(cf, mp, i, buf + k, got);
		/* control pairs for the jitter candidates, measured with them (after them) */
		int nc = got ? susp_controls(&p->first, &p->r1, n, CONTROLS_PER_TIER, buf + k + 2 * (got + nj),
					      CONTROLS_PER_TIER * INFER_TIERS_MAX) : 0;
		/* the pairs each tier boundary rests on: a tier is a finding too */
		int nb = cf->off ? 0 : infer_boundary_pairs(&p->r1, p->m->lat_min, n, buf + k, got + nj + nc,
							   2 * INFER_BOUNDARY_PAIRS * INFER_TIERS_MAX);
		/* within the budget, in the order of the candidates, the judges' pairs, the controls,
		 * the boundaries' pairs */
		int keep = 0;
		while (keep < got + nj + nc + nb && *est + per <= cf->max_s) {
			*est += per;
			keep++;
		}
		*left_out += left + (got + nj > keep ? got + nj - keep : 0);
		for (int c = got + nj; c < keep && c < got + nj + nc; c++) {
			int a = buf[k + 2 * c], b = buf[k + 2 * c + 1];

			p->control[(size_t)a * n + b] = p->control[(size_t)b * n + a] = 1;
			p->ncontrol++;
		}
		if (keep > got + nj + nc && !(p->boundary = calloc((size_t)(keep - got - nj - nc), sizeof *p->boundary))) {
			free(buf);
			return NULL;
		}
		for (int c = got + nj + nc; c < keep; c++) { /* their first figures, to keep the better */
			struct run_boundary *q = &p->boundary[p->nboundary++];

			q->a = buf[k + 2 * c];
			q->b = buf[k + 2 * c + 1];
			for (int d = 0; d < 2; d++) {
				size_t x = d ? (size_t)q->b * n + q->a : (size_t)q->a * n + q->b;

				q->first[d][0] = p->m->lat_min[x];
				q->first[d][1] = p->m->lat_p50[x];
				q->first[d][2] = p->m->lat_p99[x];
				q->first[d][3] = p->m->bw[x];
			}
		}
		/* a candidate that rests on one pair is one measurement against many: its pair (and
		 * the controls) again, in later rounds, so that an episode of the machine (a slow
		 * spell of seconds) cannot make it hold; each pair keeps its best figure. The judges'
		 * pairs: --retests rounds in all. */
		int all = keep;
		for (int round = 1; round < rounds; round++)
			for (int c = 0; c < keep; c++) {
				int a = buf[k + 2 * c], b = buf[k + 2 * c + 1];
				int again = c < got ? round < CONFIRM_ROUNDS && susp_link_pair(&p->first, a, b)
					  : c < got + nj ? round < cf->judged_rounds
					  : c < got + nj + nc && round < CONFIRM_ROUNDS;

				if (!again || *est + per > cf->max_s)
					continue;
				*est += per;
				buf[k + 2 * all] = a;
				buf[k + 2 * all + 1] = b;
				all++;
			}
		buf[at] = all;
		buf[at + 1] = buf[at + 2] = 0;
		for (int c = 0; c < all; c++) /* both directions are measured: a pair as a < b */
			if (buf[k + 2 * c] > buf[k + 2 * c + 1]) {
				int t = buf[k + 2 * c];

				buf[k + 2 * c] = buf[k + 2 * c + 1];
				buf[k + 2 * c + 1] = t;
			}
		p->est_s = per * all;
		k += 2 * all;
	}
	*len = k;
	return buf;
}

int run_ints_share(const struct world *w, int **buf, int *len)
{
	int rc = mpi_bcast_sleepy(len, sizeof *len, 0, MPI_COMM_WORLD);

	if (rc || *len < 0)
		return rc ? rc : *len;
	if (w->rank != 0 && !(*buf = malloc(sizeof **buf * (size_t)(*len + 1))))
		rc = FP_ERUNTIME;
	if (mpi_allreduce_sleepy(&rc, MPI_MIN, MPI_COMM_WORLD) || rc)
		return FP_ERUNTIME;
	return mpi_bcast_sleepy(*buf, *len * (int)sizeof **buf, 0, MPI_COMM_WORLD);
}

/* ---------------------------------------------------------------- the confirmed maps */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Whether the pair s-t is behind a latency candidate of l (a slow node's, a slow or fast link's):
 * its minimum is what that candidate is decided on. */
static int behind_latency(const struct susp_list *l, int s, int t)
{
	for (int i = 0; i < l->n; i++) {
		const struct suspect *x = &l->s[i];

		if ((x->kind == SUSPECT_SLOW_NODE && (x->a == s || x->a == t)) ||
		    ((x->kind == SUSPECT_SLOW_LINK || x->kind == SUSPECT_FAST_LINK) &&
		     ((x->a == s && x->b == t) || (x->a == t && x->b == s))))
			return 1;
	}
	return 0;
}

static void overlay(struct run_path_map *p, const struct p2p_matrices *c, const struct sched_pair *pairs, int np)
{
	int n = p->m->n, ns = 0;
	double *shift = malloc(sizeof *shift * (2 * (size_t)np + 1));

	for (int k = 0; k < np; k++) {
		p->nretest += !p->retested[(size_t)pairs[k].a * n + pairs[k].b]; /* rounds count once */
		for (int d = 0; d < 2; d++) {
			int s = d ? pairs[k].b : pairs[k].a, t = d ? pairs[k].a : pairs[k].b;
			size_t x = (size_t)s * n + t;

			/* A pair re-measured alone, longer, reads its minimum up to 0.1 us higher or lower
			 * than the first pass did on the emulated cluster, beyond a leaf's pair noise
			 * (0.03 us): taken wholesale, the few such pairs split their leaves in the map
			 * drawn again (2 runs of 3 on 16 nodes in 4 leaves). The lower of the two was no
			 * cure: a minimum of two draws against one is low by itself, and the 40 pairs a
			 * confirmation re-measures (a node's, an uplink's, the tier boundaries') stood
			 * apart from the rest as a tier (3 runs of 4 on 16 nodes, where the first figures
			 * drew every map exact). So the minimum changes only where a latency candidate is
			 * decided on it (the lower of the two: a slow spell cannot lower it) or where the
			 * first pass has none; elsewhere the map is drawn from the first pass's minima,
			 * measured alike. */
			if (shift && p->m->lat_min[x] > 0 && c->lat_min[x] > 0)
				shift[ns++] = fabs((double)c->lat_min[x] - p->m->lat_min[x]) / p->m->lat_min[x];
			if (isnan(p->m->lat_min[x]) || behind_latency(&p->first, s, t))
				p->m->lat_min[x] = fminf(p->m->lat_min[x], c->lat_min[x]);
			p->m->lat_p50[x] = c->lat_p50[x];
			p->m->lat_p99[x] = c->lat_p99[x];
			p->m->bw[x] = c->bw[x];
			p->retested[x] = 1;
		}
	}
	/* how far the two conditions (the first pass, and alone and longer) disagree on the same
	 * pairs: the median relative shift of their minima, a noise floor for the map drawn again */
	if (shift && ns) {
		qsort(shift, (size_t)ns, sizeof *shift, cmp_double);
		p->shift_rel = shift[(ns - 1) / 2];
	}
	free(shift);
	/* a boundary's pair keeps the better of its figures: a slow spell during either measurement
	 * cannot move a node, and a tier the first figures drew from such a spell goes */
	for (int k = 0; k < p->nboundary; k++)
		for (int d = 0; d < 2; d++) {
			const struct run_boundary *q = &p->boundary[k];
			size_t x = d ? (size_t)q->b * n + q->a : (size_t)q->a * n + q->b;

			p->m->lat_min[x] = fminf(p->m->lat_min[x], q->first[d][0]);
			p->m->lat_p50[x] = fminf(p->m->lat_p50[x], q->first[d][1]);
			p->m->lat_p99[x] = fminf(p->m->lat_p99[x], q->first[d][2]);
			p->m->bw[x] = fmaxf(p->m->bw[x], q->first[d][3]);
		}
}

/* rank 0: the map of the confirmed figures and the decision, per path */
static int decide(struct run_maps *mp, const struct run_confirm_opts *cf, const char *const *labels)
{
	struct infer_opts io;
	struct susp_opts jo;

	infer_opts_default(&io);
	susp_opts_default(&jo);
	for (int i = 0; i < mp->npaths; i++) {
		struct run_path_map *p = &mp->p[i];
		struct susp_matrices jm = jm_of(p->m);

		/* after the re-test, a tier's jitter is what its controls showed alongside */
		jm.ref = p->ncontrol ? p->control : NULL;
		if (cf->off) {
			if (susp_unconfirmed(&p->first, &p->held))
				return FP_ERUNTIME;
			continue;
		}
		/* a low-bandwidth node was re-measured against a few peers: it is decided on those */
		struct susp_hidden h;
		int rc = susp_hide(&p->first, &p->r1, p->m->n, p->retested, p->m->bw, &h);

		if (!rc && p->nretest) {
			/* most figures of the redraw are still the first pass's: its noise is no less than
			 * the first map found, however precise the few re-measured pairs read (a pair
			 * measured again, alone and longer, reads a lower minimum; without this floor a
			 * node whose pairs were not among them stood out against them) */
			struct infer_opts io2 = io;

			io2.lat_again = p->m->lat_hi;

			if (p->have_r1 && p->r1.noise_us > io2.noise_us)
				io2.noise_us = p->r1.noise_us;
			/* …nor less than the two measurements of the same pairs disagree: on 16 emulated
			 * nodes in leaves of 4 the re-measured minima moved by ~3% (0.1 us at a leaf's
			 * 3.5 us, 3 times its pair noise) and split the leaves in 1 run of 3 */
			if (p->have_r1 && p->r1.ntiers > 0 && p->shift_rel * p->r1.lat_p50_us[0] > io2.noise_us)
				io2.noise_us = p->shift_rel * p->r1.lat_p50_us[0];
			p->noise_us = io2.noise_us;
			rc = infer_tiers(p->m->lat_min, p->m->bw, p->m->n, labels, &io2, &p->r2) ? FP_ERUNTIME : 0;
			p->have_r2 = !rc;
		}
		if (!rc && p->have_r1 && p->have_r2)
			susp_uplinks_remap(&p->first, &p->r1, &p->r2);
		if (!rc && (susp_candidates(map_of(p), &jm, &jo, &p->after) ||
			    susp_decide(&p->first, &p->after, p->retested, p->m->n, map_of(p), &jm, &jo, &p->held,
					&p->rest)))
			rc = FP_ERUNTIME;
		susp_unhide(&h, p->m->bw);
		if (rc)
			return rc;
	}
	return 0;
}

static void confirm_say(const struct run_maps *mp, const struct run_confirm_opts *cf, double est, int left_out)
{
	int cand = 0, nb = 0, judged = cf->judged_rounds > 0 ? cf->njudged : 0;
	char also[96] = "";

	for (int i = 0; i < mp->npaths; i++) {
		cand += mp->p[i].first.n;
		nb += mp->p[i].nboundary;
	}
	if (cf->off) {
		printf("\nconfirmation pass: off (--no-confirm): %d candidate suspect%s count as found%s\n", cand,
		       cand == 1 ? "" : "s", cf->njudged ? ", the judges' findings on the first figures" : "");
		return;
	}
	const char *pass = cf->again ? "confirmation pass, again (from the map planned again)" : "confirmation pass";

	if (!cand && !judged && !nb) {
		printf("\n%s: no candidate suspects and no tier boundary, nothing to re-test\n", pass);
		return;
	}
	if (judged)
		snprintf(also, sizeof also, " and %d pair%s the judges suspect (%d round%s)", judged,
			 judged == 1 ? "" : "s", cf->judged_rounds, cf->judged_rounds == 1 ? "" : "s");
	printf("\n%s: %d candidate suspect%s%s; the pairs behind them and the %d pair%s nearest the "
	       "tier boundaries re-measured alone, longer, ~%.0f s (at most %.0f s, --confirm-time)\n", pass, cand,
	       cand == 1 ? "" : "s", also, nb, nb == 1 ? "" : "s", est, cf->max_s);
	if (left_out)
		printf("  %d pair%s left out (time budget): their candidates are not re-tested and do not count\n",
		       left_out, left_out == 1 ? "" : "s");
	fflush(stdout);
}

int run_confirm(const struct run_confirm_opts *cf, const struct p2p_opts *o, struct world *w,
		struct run_out *ro, struct run_maps *mp)
{
	struct p2p_opts co;
	struct p2p_plan plan = { 0 };
	struct p2p_result res2 = { 0 };
	int *buf = NULL, len = 0, rc = 0, prc = 0, left_out = 0;
	double est = 0;

	run_confirm_p2p_opts(o, cf->factor, &co);
	if (w->rank == 0) {
		if (!(buf = plan_pack(cf, &co, mp, &len, &est, &left_out)))
			len = FP_ERUNTIME;
		confirm_say(mp, cf, est, left_out);
	}
	if ((rc = run_ints_share(w, &buf, &len)))
		goto out;
	if ((rc = p2p_plan_unpack(buf, len, o, w->nep, &plan)))
		LOG_ERROR("the confirmation plan does not read (%d ints)", len);
	plan.csv = "p2p_confirm.csv";
	plan.what = "confirming:";
	plan.append = cf->again;
	for (int i = 0; w->rank == 0 && rc == 0 && i < plan.npaths && i < mp->npaths; i++)
		plan.est_s[i] = mp->p[i].est_s; /* the terminal's figures, from what the pairs measured */
	if (mpi_allreduce_sleepy(&rc, MPI_MIN, MPI_COMM_WORLD) || rc)
		goto out;
	int any = 0;
	for (int i = 0; i < plan.npaths; i++)
		any += plan.npairs[i];
	if (any && w->my_ep >= 0)
		prc = p2p_plan_main(&co, &plan, w, ro, w->rank == 0 ? &res2 : NULL);
	if (prc == FP_ETIMEDOUT) {
		rc = prc; /* an endpoint hung: the job cannot go on together */
		goto out;
	}
	rc = prc < 0 ? prc : 0;
	if (mpi_allreduce_sleepy(&rc, MPI_MIN, MPI_COMM_WORLD) && rc == 0)
		rc = FP_ERUNTIME;
	if (rc == 0 && w->rank == 0) {
		for (int i = 0, k = 0; i < plan.npaths; i++)
			if (plan.npairs[i] && k < res2.npaths)
				overlay(&mp->p[i], &res2.path[k++], plan.pair[i], plan.npairs[i]);
		rc = decide(mp, cf, w->labels);
	}
	if (rc == 0)
		rc = prc;
out:
	p2p_result_free(&res2);
	p2p_plan_free(&plan);
	free(buf);
	return rc;
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
		double bw = median_cells(mp->p[i].m->bw, mp->p[i].m->n);

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
		d = leaves_differ(map_of(c), map_of(p), c->m->n, &ex);
		const struct infer_result *x = map_of(p), *y = map_of(c);
		if (!d && map_of(c)->ntiers == map_of(p)->ntiers)
			printf("maps: %s and %s agree (same leaf groups, %d tier%s)\n", p->m->path, c->m->path,
			       map_of(p)->ntiers, map_of(p)->ntiers == 1 ? "" : "s");
		else if (x->ntiers > 1 && y->ntiers > 1 && x->sep_z[0] >= MAPS_SURE_Z && y->sep_z[0] >= MAPS_SURE_Z)
			/* both beyond doubt: not one network seen twice, badly */
			printf("maps: %s and %s are different networks: %d and %d leaf groups, each map's standing "
			       "z >= %.0f and %.0f apart; %d node%s grouped otherwise (%s first)\n",
			       p->m->path, c->m->path, x->ngroups[0], y->ngroups[0], x->sep_z[0], y->sep_z[0], d,
			       d == 1 ? "" : "s", ex >= 0 ? labels[ex] : "none");
		else
			printf("maps DISAGREE: %s has %d tier%s and %d leaf group%s, %s %d and %d; %d node%s in "
			       "other leaf groups (%s first): different networks, or one map is unsure\n",
			       p->m->path, map_of(p)->ntiers, map_of(p)->ntiers == 1 ? "" : "s", map_of(p)->ngroups[0],
			       map_of(p)->ngroups[0] == 1 ? "" : "s", c->m->path, map_of(c)->ntiers,
			       map_of(c)->ngroups[0], d, d == 1 ? "" : "s", ex >= 0 ? labels[ex] : "none");
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

	t.tree = map_of(p);
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
	const int *order = map_of(&mp->p[mp->compute])->order;

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
