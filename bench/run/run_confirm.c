/* run_confirm.c — the confirmation pass (run_map.h): the map's candidates, the pairs the judges
 * suspect, their controls and the pairs each tier boundary rests on, measured again alone in
 * one plan within a time budget; the maps drawn again from the confirmed figures; what held. */
#include "run_map.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/log.h"
#include "core/mpi_util.h"
#include "core/run.h"
#include "core/world.h"

#define STEP_OVERHEAD_S 0.05 /* a step's barrier, gather and write, for the estimate */
#define CONTROLS_PER_TIER 2  /* control pairs per tier that holds a jittery-link candidate */
#define CONFIRM_ROUNDS 3     /* measurements of a pair behind a link candidate (rounds apart) */

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


/* ---------------------------------------------------------------- the plan */

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
		double lat = run_matrix_median(p->m->lat_min, n), GBps = run_matrix_median(p->m->bw, n);
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
		struct susp_matrices jm = run_susp_matrices(p->m);

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
		if (!rc && (susp_candidates(run_path_map_of(p), &jm, &jo, &p->after) ||
			    susp_decide(&p->first, &p->after, p->retested, p->m->n, run_path_map_of(p), &jm, &jo, &p->held,
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

