/* run_bisect.c — the loaded pass's groups that fail under load, bisected to the node or the
 * uplink that explains it (fabric/plan/bisect.h; docs/measurement.md, "The loaded pass").
 *
 * Rank 0 finds them in the loaded figures: at each tier below the top, a group's streams
 * across its uplink (its directions at the tier above it, out of it and into it), their median
 * against the upper quartile of its tier's groups' medians; under BISECT_FRAC of it, a
 * candidate (the highest tier first, then the slowest). Each is measured again in bursts: its
 * members streaming at once to nodes known good under load (of groups that passed, its
 * siblings first, no suspect of the isolated pass), out then in, a directed adaptive plan whose
 * next step rank 0 decides from the last. Rows in p2p_bisect.csv; the bursts and verdicts in
 * loaded_bisect.csv, on the terminal and in meta.json (`bisect_<path>`). Reported, never judged:
 * the isolated pass's suspects stand as they were decided. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/csv.h"
#include "core/escape.h"
#include "core/log.h"
#include "core/mpi_util.h"
#include "core/results.h"
#include "fabric/io/check_csv.h"
#include "fabric/emit/emit.h"
#include "fabric/plan/bisect.h"
#include "run_stage.h"

#define BISECT_GROUPS_MAX 8 /* per path: the highest tier's, the slowest first */
#define BISECT_FRAC 0.7

struct bis_group {
	int level, g, k;        /* the group: level's group g, k members */
	int *member, *partner;  /* k each, tree order; partner NULL: too few known good */
	int good;               /* known-good nodes found (below k: not bisected) */
	int said;               /* bursts said so far */
	double med, ref;        /* its streams' median in the loaded pass; the tier's reference */
	char name[EMIT_NAME_MAX];
	struct bisect b;
};

struct bis_path {
	const char *path;
	const struct infer_result *r;
	int n;
	struct bis_group grp[BISECT_GROUPS_MAX];
	int ngrp, cur;
	int dir, rep, reps, lo, hi; /* the burst under way: its step's direction, its repetition */
	float *v;                   /* its directions so far */
	int nv;
};

struct bis_ctx {
	struct bis_path p[P2P_PATHS_MAX];
	const char *const *labels;
	struct run_out *ro;
	FILE *csv;                  /* loaded_bisect.csv */
};

static int fcmp(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

/* the q quantile of v (sorted in place), interpolated; NAN when empty */
static double quantile(float *v, int n, double q)
{
	double at = q * (n - 1);
	int i = (int)at;

	if (n <= 0)
		return NAN;
	qsort(v, (size_t)n, sizeof *v, fcmp);
	return i + 1 < n ? v[i] + (at - i) * (v[i + 1] - v[i]) : v[n - 1];
}

/* ---------------------------------------------------------------- the candidates */

struct bis_dir {
	int g, node;
	float bw;
};

static int dir_cmp(const void *a, const void *b)
{
	const struct bis_dir *x = a, *y = b;

	return x->g != y->g ? (x->g > y->g) - (x->g < y->g) : (x->node > y->node) - (x->node < y->node);
}

/* Level L's groups in the loaded matrix lm: each one's median stream across its uplink (med,
 * NAN with fewer than 2 directions) and the streams that crossed at once (its members with
 * such a direction). 0 or FP_ERUNTIME. */
static int level_stats(const struct infer_result *r, const float *lm, int L, double *med, int *streams)
{
	int n = r->n, G = r->ngroups[L], nd = 0;
	/* the loaded pass measures 3 rounds of both directions: 3n cells, two entries each */
	size_t cap = 8 * (size_t)n + 8;
	struct bis_dir *d = malloc(sizeof *d * cap);
	float *v = malloc(sizeof *v * cap);

	if (!d || !v) {
		free(d);
		free(v);
		return FP_ERUNTIME;
	}
	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++) {
			float x = lm[(size_t)a * n + b];

			if (a == b || isnan(x) || infer_pair_tier(r->group, r->ntiers, n, a, b) != L + 1)
				continue;
			if ((size_t)nd + 2 > cap)
				break;
			d[nd++] = (struct bis_dir){ r->group[(size_t)L * n + a], a, x };
			d[nd++] = (struct bis_dir){ r->group[(size_t)L * n + b], b, x };
		}
	qsort(d, (size_t)nd, sizeof *d, dir_cmp);
	for (int g = 0; g < G; g++)
		med[g] = NAN, streams[g] = 0;
	for (int i = 0, j; i < nd; i = j) {
		int m = 0, s = 0;

		for (j = i; j < nd && d[j].g == d[i].g; j++) {
			v[m++] = d[j].bw;
			s += j == i || d[j].node != d[j - 1].node;
		}
		if (d[i].g >= 0 && d[i].g < G && m >= 2) {
			med[d[i].g] = quantile(v, m, 0.5);
			streams[d[i].g] = s;
		}
	}
	free(d);
	free(v);
	return 0;
}

/* the nodes no partner may be: the isolated pass's held suspects (an uplink's: its group) */
static void mark_suspects(const struct run_path_map *pm, const struct infer_result *r, unsigned char *bad)
{
	for (int i = 0; i < pm->held.n; i++) {
		const struct suspect *s = &pm->held.s[i];

		if (s->kind == SUSPECT_LOW_BW_UPLINK && s->rule >= 0 && s->rule < r->ntiers && s->a >= 0 && s->a < r->n) {
			for (int e = 0; e < r->n; e++)
				if (r->group[(size_t)s->rule * r->n + e] == r->group[(size_t)s->rule * r->n + s->a])
					bad[e] = 1;
			continue;
		}
		if (s->a >= 0 && s->a < r->n)
			bad[s->a] = 1;
		if (s->b >= 0 && s->b < r->n)
			bad[s->b] = 1;
	}
}

/* candidate c's members and its known-good partners (siblings first), its thresholds */
static int group_setup(struct bis_group *c, const struct infer_result *r, const unsigned char *bad,
		       const unsigned char *failing, double agg)
{
	int n = r->n, L = c->level, up = L + 1 < r->ntiers ? L + 1 : -1, ptier = L + 1;

	c->k = 0;
	if (!(c->member = malloc(sizeof *c->member * ((size_t)n + 1))) ||
	    !(c->partner = malloc(sizeof *c->partner * ((size_t)n + 1))))
		return FP_ERUNTIME;
	for (int i = 0; i < n; i++) {
		int e = r->order ? r->order[i] : i;

		if (r->group[(size_t)L * n + e] == c->g)
			c->member[c->k++] = e;
	}
	c->good = 0;
	for (int pass = 0; pass < 2 && c->k > 0; pass++)
		for (int i = 0; i < n && c->good < c->k; i++) {
			int e = r->order ? r->order[i] : i, ge = r->group[(size_t)L * n + e];
			int sib = up >= 0 && r->group[(size_t)up * n + e] == r->group[(size_t)up * n + c->member[0]];

			if (ge == c->g || bad[e] || failing[ge] || sib != !pass)
				continue;
			c->partner[c->good++] = e;
			int t = infer_pair_tier(r->group, r->ntiers, n, c->member[0], e);

			ptier = t > ptier ? t : ptier;
		}
	bisect_init(&c->b, c->k, ptier < r->ntiers ? r->bw_p75_GBps[ptier] : NAN, agg, BISECT_FRAC);
	if (c->good < c->k) {
		free(c->partner);
		c->partner = NULL;
	}
	return 0;
}

/* Path bp's candidates from its loaded matrix lm. 0 or FP_ERUNTIME. */
static int bis_find(struct bis_path *bp, const struct run_path_map *pm, const float *lm, const char *const *labels)
{
	const struct infer_result *r = bp->r;
	int n = r->n, rc = 0;
	unsigned char *bad = calloc((size_t)n + 1, 1), *failing = calloc((size_t)n + 1, 1);
	double *med = malloc(sizeof *med * ((size_t)n + 1));
	int *streams = malloc(sizeof *streams * ((size_t)n + 1));
	float *v = malloc(sizeof *v * ((size_t)n + 1)), *a = malloc(sizeof *a * ((size_t)n + 1));
	struct emit_topo et = { .n = n, .hosts = labels, .tree = r };

	if (!bad || !failing || !med || !streams || !v || !a)
		rc = FP_ERUNTIME;
	if (rc == 0)
		mark_suspects(pm, r, bad);
	for (int L = r->ntiers - 2; L >= 0 && rc == 0; L--) {
		int G = r->ngroups[L], nv = 0, first = bp->ngrp;
		double ref, agg;

		if ((rc = level_stats(r, lm, L, med, streams)))
			break;
		for (int g = 0; g < G; g++)
			if (!isnan(med[g])) {
				v[nv] = (float)med[g];
				a[nv++] = (float)(med[g] * streams[g]);
			}
		if (nv < 2)
			continue;
		ref = quantile(v, nv, 0.75);
		agg = quantile(a, nv, 0.75);
		memset(failing, 0, (size_t)n + 1);
		for (int g = 0; g < G; g++)
			failing[g] = !isnan(med[g]) && med[g] < BISECT_FRAC * ref;
		for (int g = 0; g < G && rc == 0; g++) {
			if (!failing[g] || bp->ngrp >= BISECT_GROUPS_MAX)
				continue;
			/* the slowest of this tier first */
			int at = bp->ngrp++;

			while (at > first && bp->grp[at - 1].med > med[g]) {
				bp->grp[at] = bp->grp[at - 1];
				at--;
			}
			bp->grp[at] = (struct bis_group){ .level = L, .g = g, .med = med[g], .ref = ref };
			emit_group_name(&et, L, g, bp->grp[at].name);
		}
		for (int i = first; i < bp->ngrp && rc == 0; i++)
			rc = group_setup(&bp->grp[i], r, bad, failing, agg);
	}
	if (rc == 0 && bp->ngrp && !(bp->v = malloc(sizeof *bp->v * (2 * (size_t)n + 4 * BISECT_DIRS_MIN))))
		rc = FP_ERUNTIME;
	free(bad);
	free(failing);
	free(med);
	free(streams);
	free(v);
	free(a);
	return rc;
}

/* ---------------------------------------------------------------- what it says */

/* members [lo, hi) of c as names, space-separated, into out (len bytes; cut with "...") */
static void names(const struct bis_ctx *cx, const struct bis_group *c, int lo, int hi, char *out, size_t len)
{
	size_t at = 0;

	out[0] = 0;
	for (int i = lo; i < hi && at + 4 < len; i++) {
		int w = snprintf(out + at, len - at, "%s%s", i > lo ? " " : "", cx->labels[c->member[i]]);

		at = w < 0 || (size_t)w >= len - at ? len : at + (size_t)w;
	}
	if (at >= len && len > 4)
		memcpy(out + len - 4, "...", 4);
}

static void bis_csv_row(struct bis_ctx *cx, const struct bis_path *bp, const struct bis_group *c, const char *burst,
		    int lo, int hi, int streams, double GBps, double against, const char *result)
{
	char buf[2048];

	if (!cx->csv)
		return;
	names(cx, c, lo, hi, buf, sizeof buf);
	csv_row(cx->csv, bisect_csv_cols, BISECT_NCOLS, &(struct bisect_csv_row){
		.path = bp->path, .group = c->name, .tier = c->level, .burst = burst, .nodes = buf,
		.streams = streams > 0 ? streams : -1, .GBps = GBps, .against_GBps = against, .result = result });
}

static void say_start(struct bis_ctx *cx, const struct bis_path *bp, const struct bis_group *c)
{
	escape_term_line(stdout, "bisecting under load on %s: %s (tier %d, %d node%s) streamed %.4f GB/s across its uplink, "
			 "under %.1f x its tier's %.4f; against %d node%s known good (%s first)", bp->path, c->name, c->level,
			 c->k, c->k == 1 ? "" : "s", c->med, BISECT_FRAC, c->ref, c->good, c->good == 1 ? "" : "s",
			 c->good ? cx->labels[c->partner ? c->partner[0] : c->member[0]] : "none");
}

/* the bursts of c whose result is decided, not said yet: on the terminal and into the csv (a
 * half's waits for the other half, a middle member's for its single) */
static void say_steps(struct bis_ctx *cx, const struct bis_path *bp, struct bis_group *c)
{
	int upto = c->b.nsteps - (c->b.verdict == BISECT_RUNNING && (c->b.phase == 2 || c->b.phase == 4));

	for (; c->said < upto; c->said++) {
		const struct bisect_step *s = &c->b.step[c->said];
		char burst[16], first[EMIT_NAME_MAX + 80];
		int x = s->hi - s->lo;

		escape_term(cx->labels[c->member[s->lo]], first, sizeof first, 0);
		escape_term_line(stdout, "  burst %d: %s%s%s (%d at once): %.4f GB/s a stream against %.4f (%s): %s",
				 c->said + 1, first, x > 1 ? " .. " : "", x > 1 ? cx->labels[c->member[s->hi - 1]] : "", x,
				 s->GBps, s->thr, c->said == 0 ? "its threshold" : "half the other's", s->fail ? "slower" : "holds");
		snprintf(burst, sizeof burst, "%d", c->said + 1);
		bis_csv_row(cx, bp, c, burst, s->lo, s->hi, x, s->GBps, s->thr, s->fail ? "slower" : "holds");
	}
	fflush(stdout);
}

static void say_verdict(struct bis_ctx *cx, const struct bis_path *bp, const struct bis_group *c)
{
	const struct bisect *b = &c->b;
	const char *v = c->partner ? bisect_verdict_name(b->verdict) : "untested";
	char who[EMIT_NAME_MAX + 80];

	escape_term(cx->labels[c->member[b->lo < c->k ? b->lo : 0]], who, sizeof who, 0);
	if (!c->partner)
		printf("  -> not bisected: %d node%s known good under load, %d needed\n", c->good, c->good == 1 ? "" : "s",
		       c->k);
	else if (b->verdict == BISECT_CLEARED)
		printf("  -> cleared: against nodes known good it streams at %.4f GB/s (its loaded round's partners were "
		       "the slow side)\n", b->step[0].GBps);
	else if (b->verdict == BISECT_UPLINK)
		printf("  -> %s's uplink: %s (it carried %.4f GB/s at once; a healthy group's %.4f)\n", c->name,
		       b->nsteps > 1 ? "its halves ran alike, every member slowed" : "its one node's streams, alone",
		       b->step[0].GBps * c->k, b->agg);
	else if (b->verdict == BISECT_NODE)
		printf("  -> %s: the bursts holding it ran under half the others', down to it alone\n", who);
	else if (b->verdict == BISECT_NODES)
		printf("  -> %s and the %d next in the tree order together: neither half of them alone explains it\n", who,
		       b->hi - b->lo - 1);
	else
		printf("  -> undecided: a burst had no figure (p2p_bisect.csv says why)\n");
	bis_csv_row(cx, bp, c, "verdict", b->verdict == BISECT_CLEARED || !c->partner ? 0 : b->lo,
		b->verdict == BISECT_CLEARED || !c->partner ? 0 : b->hi, 0, c->med, c->ref, v);
	fflush(stdout);
}

/* ---------------------------------------------------------------- the adaptive plan */

/* the step under way of bp's burst: members [lo, hi) to their partners (dir 0), or back */
static int bis_pairs(const struct bis_path *bp, struct sched_pair *next)
{
	const struct bis_group *c = &bp->grp[bp->cur];

	for (int i = 0; i < bp->hi - bp->lo; i++) {
		int m = c->member[bp->lo + i], p = c->partner[i];

		next[i] = bp->dir ? (struct sched_pair){ p, m } : (struct sched_pair){ m, p };
	}
	return bp->hi - bp->lo;
}

/* the next burst of bp: of the group under way, or of the next one (said); 0 when none */
static int bis_begin(struct bis_ctx *cx, struct bis_path *bp, struct sched_pair *next)
{
	for (; bp->cur < bp->ngrp; bp->cur++) {
		struct bis_group *c = &bp->grp[bp->cur];

		if (c->b.nsteps == 0)
			say_start(cx, bp, c);
		if (c->partner && bisect_next(&c->b, &bp->lo, &bp->hi)) {
			int x = bp->hi - bp->lo;

			bp->reps = (BISECT_DIRS_MIN + 2 * x - 1) / (2 * x);
			bp->rep = bp->dir = bp->nv = 0;
			return bis_pairs(bp, next);
		}
		say_verdict(cx, bp, c);
	}
	return 0;
}

static int bis_adapt(void *ctx, int path, const struct p2p_rec *rec, int nrec, struct sched_pair *next, int max)
{
	struct bis_ctx *cx = ctx;
	struct bis_path *bp = &cx->p[path];
	struct bis_group *c;
	int x;

	if (path < 0 || path >= P2P_PATHS_MAX || bp->cur >= bp->ngrp)
		return 0;
	c = &bp->grp[bp->cur];
	x = bp->hi - bp->lo;
	if (x > max)
		return FP_ERUNTIME;
	for (int i = 0; i < nrec && bp->nv < 2 * x * bp->reps; i++)
		if (rec[i].status == P2P_OK && !isnan(rec[i].bw_GBps))
			bp->v[bp->nv++] = (float)rec[i].bw_GBps;
	if (bp->dir == 0 || ++bp->rep < bp->reps) {
		bp->dir = !bp->dir;
		return bis_pairs(bp, next);
	}
	/* the burst is whole: half its directions at least, or no figure */
	bisect_feed(&c->b, bp->nv >= x * bp->reps ? quantile(bp->v, bp->nv, 0.5) : NAN);
	say_steps(cx, bp, c);
	if (c->b.verdict != BISECT_RUNNING) {
		say_verdict(cx, bp, c);
		bp->cur++;
	}
	return bis_begin(cx, bp, next);
}

/* ---------------------------------------------------------------- the stage's part */

static void bis_free(struct bis_ctx *cx)
{
	for (int i = 0; cx && i < P2P_PATHS_MAX; i++) {
		for (int g = 0; g < cx->p[i].ngrp; g++) {
			free(cx->p[i].grp[g].member);
			free(cx->p[i].grp[g].partner);
		}
		free(cx->p[i].v);
	}
	free(cx);
}

/* rank 0: the candidates of every path and the first step of each into a plan's ints (as
 * p2p_plan_unpack reads them), the context into *out. 0 or FP_ERUNTIME. */
static int bis_pack(struct run_state *st, struct run_out *ro, const struct p2p_result *loaded,
		    const char *const *labels, struct bis_ctx **out, int **buf, int *len)
{
	struct bis_ctx *cx = calloc(1, sizeof *cx);
	int np = st->mp.npaths, k = 1, total = 0, rc = 0;
	struct sched_pair *first = NULL;

	*out = cx;
	if (!cx || !(first = malloc(sizeof *first * ((size_t)np * ((size_t)st->mp.p[0].m->n + 1) + 1))) ||
	    !(*buf = malloc(sizeof **buf * (4 + (size_t)np * (4 + 2 * ((size_t)st->mp.p[0].m->n + 1))))))
		rc = FP_ERUNTIME;
	if (rc == 0) {
		cx->labels = labels;
		cx->ro = ro;
		(*buf)[0] = np;
	}
	for (int i = 0; i < np && rc == 0; i++) {
		struct bis_path *bp = &cx->p[i];
		const float *lm = NULL;
		int c = 0;

		bp->path = st->mp.p[i].m->path;
		bp->r = run_maps_map(&st->mp, i);
		for (int j = 0; j < loaded->npaths; j++)
			if (!strcmp(loaded->path[j].path, bp->path) && bp->r && loaded->path[j].n == bp->r->n)
				lm = loaded->path[j].bw;
		if (lm && bp->r->group && (rc = bis_find(bp, &st->mp.p[i], lm, labels)) == 0 && bp->ngrp) {
			if (!cx->csv && (cx->csv = results_open(ro->dir, "loaded_bisect.csv")))
				csv_header(cx->csv, bisect_csv_cols, BISECT_NCOLS);
			c = bis_begin(cx, bp, first);
		}
		(*buf)[k++] = c;
		(*buf)[k++] = c > 0;
		(*buf)[k++] = 0;
		if (c > 0)
			(*buf)[k++] = c;
		for (int q = 0; q < c; q++) {
			(*buf)[k++] = first[q].a;
			(*buf)[k++] = first[q].b;
		}
		total += c;
	}
	free(first);
	if (rc == 0 && total == 0)
		(*buf)[0] = 0, k = 1; /* nothing to bisect: nothing measured */
	*len = rc ? FP_ERUNTIME : k;
	return rc;
}

/* rank 0: meta.json's "bisect_<path>": each candidate's group, tier, verdict and bursts */
static void bis_meta(struct bis_ctx *cx)
{
	struct jw *j = &cx->ro->meta_extra;

	for (int i = 0; i < P2P_PATHS_MAX; i++) {
		const struct bis_path *bp = &cx->p[i];
		char key[P2P_PATH_MAX + 16];

		if (!bp->ngrp)
			continue;
		snprintf(key, sizeof key, "bisect_%s", bp->path);
		jw_karray(j, key, 1);
		for (int g = 0; g < bp->ngrp; g++) {
			const struct bis_group *c = &bp->grp[g];

			jw_object(j, 1);
			jw_kstr(j, "group", c->name);
			jw_kint(j, "tier", c->level);
			jw_kstr(j, "verdict", c->partner ? bisect_verdict_name(c->b.verdict) : "untested");
			jw_kint(j, "bursts", c->b.nsteps);
			jw_end(j);
		}
		jw_end(j);
	}
}

int run_bisect(struct world *w, struct run_out *ro, struct run_state *st, const struct p2p_result *loaded)
{
	struct bis_ctx *cx = NULL;
	struct p2p_plan pl = { .directed = 1, .adapt = bis_adapt };
	struct p2p_result got = { 0 };
	int *buf = NULL, len = FP_ERUNTIME, rc, prc;

	if (w->rank == 0 && bis_pack(st, ro, loaded, (const char *const *)w->labels, &cx, &buf, &len))
		LOG_ERROR("out of memory for the bisection under load");
	pl.adapt_ctx = cx;
	rc = run_plan_measure(w, ro, st->c, &buf, &len, NULL, "p2p_bisect.csv", "bisecting under load:", &pl, &got,
			      &prc);
	if (w->rank == 0 && cx) {
		bis_meta(cx);
		if (cx->csv && results_close(cx->csv, ro->dir, "loaded_bisect.csv"))
			LOG_WARN("loaded_bisect.csv could not be written");
	}
	free(buf);
	p2p_plan_free(&pl);
	p2p_result_free(&got);
	bis_free(cx);
	return rc ? rc : prc < 0 ? prc : 0;
}
