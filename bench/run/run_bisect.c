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
#include "run_bisect_int.h"
#include "run_stage.h"

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
	bisect_feed(&c->b, bp->nv >= x * bp->reps ? bis_quantile(bp->v, bp->nv, 0.5) : NAN);
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
