/* compare.c — pairs, collectives and inventory of two runs, matched and classed (compare.h). */
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "fabric/io/coll_csv.h"
#include "fabric/io/inv_csv.h"

const char *cmp_class_name(int cls)
{
	static const char *const names[] = { "same", "better", "worse", "new", "gone", "changed" };

	return cls >= 0 && cls < CMP_NCLASS ? names[cls] : "?";
}

const char *cmp_kind_name(int kind)
{
	static const char *const names[] = { "p2p", "coll", "inventory" };

	return kind >= 0 && kind < CMP_NKIND ? names[kind] : "?";
}

int cmp_classify(double before, double after, int higher_better, double tol, double *change_pct)
{
	double d;

	*change_pct = NAN;
	if (isnan(before) && isnan(after))
		return CMP_SAME;
	if (isnan(before))
		return CMP_BETTER; /* it failed before and works now */
	if (isnan(after))
		return CMP_WORSE;
	if (before > 0)
		*change_pct = (after / before - 1) * 100;
	if (before <= 0 || after <= 0)
		d = after > before ? INFINITY : after < before ? -INFINITY : 0;
	else
		d = log(after / before);
	if (!higher_better)
		d = -d;
	return d < -tol ? CMP_WORSE : d > tol ? CMP_BETTER : CMP_SAME;
}

/* the after figure that counts: a retest confirms a regression only when it is one too */
static double best_of(double after, double retest, int higher_better)
{
	if (isnan(retest))
		return after;
	if (isnan(after))
		return retest;
	return higher_better ? fmax(after, retest) : fmin(after, retest);
}

static double tol_of(const struct cmp_opts *o, double sa, double sb)
{
	double t;

	if (o->tolerance_pct > 0)
		return log1p(o->tolerance_pct / 100);
	t = (o->k > 0 ? o->k : CMP_K) * sqrt(sa * sa + sb * sb);
	return t > log1p(CMP_MIN_PCT / 100) ? t : log1p(CMP_MIN_PCT / 100);
}

/* The tolerance in % on the side of the change: a ratio beyond e^tol up is +(e^tol - 1), down
 * is -(1 - e^-tol); given as a positive number. */
static double tol_pct(double tol, double change_pct)
{
	return (change_pct < 0 ? -expm1(-tol) : expm1(tol)) * 100;
}

/* ---------------------------------------------------------------- p2p */

/* an item present in one run only: gone (only in BASE) or new (only in NEW) */
void cmp_one_side(struct cmp_item *it, int in_base)
{
	it->cls = in_base ? CMP_GONE : CMP_NEW;
	snprintf(it->note, sizeof it->note, "only in %s", in_base ? "BASE" : "NEW");
}

static int cmp_rows(const struct rundir *a, const struct rd_p2p *x, const struct rundir *b, const struct rd_p2p *y)
{
	int c = strcmp(a->tab.str[x->path], b->tab.str[y->path]);

	if (!c)
		c = strcmp(a->tab.str[x->src], b->tab.str[y->src]);
	if (!c)
		c = strcmp(a->tab.str[x->dst], b->tab.str[y->dst]);
	if (!c)
		c = x->size < y->size ? -1 : x->size > y->size;
	return c;
}

struct path_sizes {
	const char *path;
	long long size;
	int in_base, in_new;
	int has[RD_NMETRIC];  /* a metric some row of either run has at this size */
};

/* The (path, size) combinations of both runs and which run has each. */
static struct path_sizes *path_sizes(const struct rundir *a, const struct rundir *b, int *count)
{
	struct path_sizes *ps = NULL;
	int n = 0;

	for (int side = 0; side < 2; side++) {
		const struct rundir *rd = side ? b : a;

		for (size_t i = 0; i < rd->np2p; i++) {
			const struct rd_p2p *p = &rd->p2p[i];
			int k = 0;

			while (k < n && !(ps[k].size == p->size && !strcmp(ps[k].path, rd->tab.str[p->path])))
				k++;
			if (k == n) {
				struct path_sizes *q = realloc(ps, sizeof *q * (size_t)(n + 1));

				if (!q) {
					free(ps);
					return NULL;
				}
				ps = q;
				ps[n++] = (struct path_sizes){ rd->tab.str[p->path], p->size, 0, 0, { 0 } };
			}
			if (side)
				ps[k].in_new = 1;
			else
				ps[k].in_base = 1;
			for (int m = 0; m < RD_NMETRIC; m++)
				ps[k].has[m] |= !isnan(p->v[m]);
		}
	}
	*count = n;
	return ps ? ps : calloc(1, sizeof *ps);
}

static const struct path_sizes *ps_find(const struct path_sizes *ps, int n, const char *path, long long size)
{
	for (int k = 0; k < n; k++)
		if (ps[k].size == size && !strcmp(ps[k].path, path))
			return &ps[k];
	return NULL;
}

struct p2p_ctx {
	const struct rundir *a, *b;
	const struct cmp_opts *o;
	struct cmp_noise na, nb;
	cmp_sink sink;
	void *ctx;
};

static void tier_text(const struct p2p_ctx *c, const struct rd_p2p *x, const struct rd_p2p *y, char *out,
		      size_t len, int *ta, int *tb)
{
	*ta = x ? rundir_tier(c->a, x->src, x->dst) : -1;
	*tb = y ? rundir_tier(c->b, y->src, y->dst) : -1;
	const char *na = rundir_tier_name(c->a, *ta), *nb = rundir_tier_name(c->b, *tb);

	if (!x || !y || !strcmp(na, nb))
		snprintf(out, len, "%s", x ? na : nb);
	else
		snprintf(out, len, "%s>%s", na, nb);
}

/* Items of one row matched (x, y), or present on one side only (x or y NULL); ps says which
 * metrics are measured at its size. */
static void p2p_items(const struct p2p_ctx *c, const struct rd_p2p *x, const struct rd_p2p *y,
		      const struct path_sizes *ps)
{
	const struct rd_p2p *r = x ? x : y;
	const struct rundir *rr = x ? c->a : c->b;
	struct cmp_item it = { .kind = CMP_P2P, .path = rr->tab.str[r->path], .src = rr->tab.str[r->src],
			       .dst = rr->tab.str[r->dst], .size = r->size };
	int ta, tb;

	tier_text(c, x, y, it.tier, sizeof it.tier, &ta, &tb);
	for (int m = 0; m < RD_NMETRIC; m++) {
		int hb = m == RD_BW;

		if (!ps->has[m]) /* not measured at this size (bandwidth at a latency size) */
			continue;
		it.metric = rundir_metric_name(m);
		it.before = x ? x->v[m] : NAN;
		it.after = y ? y->v[m] : NAN;
		it.retest = y ? y->retest[m] : NAN;
		it.tol_pct = it.change_pct = NAN;
		it.note[0] = 0;
		if (!x || !y) {
			cmp_one_side(&it, x != NULL);
		} else {
			double sa = cmp_noise_get(&c->na, x->path, x->size, m, ta);
			double sb = cmp_noise_get(&c->nb, y->path, y->size, m, tb);
			double tol = tol_of(c->o, sa, sb), now = best_of(it.after, it.retest, hb), pct, level = NAN;

			it.cls = cmp_classify(it.before, now, hb, tol, &it.change_pct);
			it.tol_pct = tol_pct(tol, it.change_pct);
			/* better than its tier's median before, and no worse than that median now: back
			 * among its peers (a spell of the host that made it fast in BASE), not worse */
			if (it.cls == CMP_WORSE && ta == tb)
				level = cmp_noise_level(&c->na, x->path, x->size, m, ta);
			int back = isfinite(level) && x->ok && y->ok &&
				   cmp_classify(level, it.before, hb, 0, &pct) == CMP_BETTER &&
				   cmp_classify(level, now, hb, tol, &pct) != CMP_WORSE;
			if (back)
				it.cls = CMP_SAME;
			if (!x->ok || !y->ok)
				snprintf(it.note, sizeof it.note, "status %s -> %s", c->a->tab.str[x->status],
					 c->b->tab.str[y->status]);
			else if (ta != tb)
				snprintf(it.note, sizeof it.note, "the pair now meets at another tier (%s)", it.tier);
			else if (back)
				snprintf(it.note, sizeof it.note, "back at its tier's median in BASE (%.4g)", level);
			if (!isnan(it.retest) && !isnan(it.after))
				snprintf(it.note + strlen(it.note), sizeof it.note - strlen(it.note), "%sretested: %s",
					 it.note[0] ? "; " : "", it.cls == CMP_WORSE ? "confirmed" : "not confirmed");
		}
		c->sink(c->ctx, &it);
	}
}

void cmp_skip_note(struct cmp_skip *sk, const char *path, long long size, int base_only)
{
	char one[96];

	if (base_only)
		sk->rows_base_only++;
	else
		sk->rows_new_only++;
	snprintf(one, sizeof one, "%s %lld B only in %s", path, size, base_only ? "BASE" : "NEW");
	if (!strstr(sk->what, one) && strlen(sk->what) + strlen(one) + 3 < sizeof sk->what)
		snprintf(sk->what + strlen(sk->what), sizeof sk->what - strlen(sk->what), "%s%s",
			 sk->what[0] ? "; " : "", one);
}

int cmp_p2p(const struct rundir *base, const struct rundir *cur, const struct cmp_opts *o, cmp_sink sink,
	    void *ctx, struct cmp_skip *skip)
{
	struct p2p_ctx c = { .a = base, .b = cur, .o = o, .sink = sink, .ctx = ctx };
	int nps, rc = FP_ERUNTIME;
	struct path_sizes *ps = path_sizes(base, cur, &nps);
	size_t i = 0, j = 0;

	memset(skip, 0, sizeof *skip);
	if (!ps || cmp_noise_build(base, &c.na) || cmp_noise_build(cur, &c.nb))
		goto out;
	while (i < base->np2p || j < cur->np2p) {
		const struct rd_p2p *x = i < base->np2p ? &base->p2p[i] : NULL;
		const struct rd_p2p *y = j < cur->np2p ? &cur->p2p[j] : NULL;
		int d = !x ? 1 : !y ? -1 : cmp_rows(base, x, cur, y);
		const struct rd_p2p *r = d <= 0 ? x : y;
		const struct rundir *rr = d <= 0 ? base : cur;

		const struct path_sizes *z = ps_find(ps, nps, rr->tab.str[r->path], r->size);

		i += d <= 0;
		j += d >= 0;
		if (d && !(z->in_base && z->in_new)) {
			cmp_skip_note(skip, rr->tab.str[r->path], r->size, d < 0);
			continue;
		}
		p2p_items(&c, d <= 0 ? x : NULL, d >= 0 ? y : NULL, z);
	}
	rc = 0;
out:
	free(ps);
	cmp_noise_free(&c.na);
	cmp_noise_free(&c.nb);
	return rc;
}

/* ---------------------------------------------------------------- collectives */

/* Two rows of two runs in the order of their strings: backend, path, op, then (full) dtype,
 * redop, root and in_place, then size. full: the key a row is matched by; not full: (backend,
 * path, op, size), whether the other run measured that op at that size at all. */
static int coll_cmp(const struct rundir *a, const struct rd_coll *x, const struct rundir *b, const struct rd_coll *y,
		    int full)
{
	int c = strcmp(a->tab.str[x->backend], b->tab.str[y->backend]);

	if (!c)
		c = strcmp(a->tab.str[x->path], b->tab.str[y->path]);
	if (!c)
		c = strcmp(a->tab.str[x->op], b->tab.str[y->op]);
	if (!c && full)
		c = strcmp(a->tab.str[x->dtype], b->tab.str[y->dtype]);
	if (!c && full)
		c = strcmp(a->tab.str[x->redop], b->tab.str[y->redop]);
	if (!c && full)
		c = strcmp(a->tab.str[x->root], b->tab.str[y->root]);
	if (!c && full)
		c = x->in_place - y->in_place;
	if (!c)
		c = x->size < y->size ? -1 : x->size > y->size;
	return c;
}

/* One run's rows sorted both ways, to find a row of the other run in O(log rows). */
struct coll_index {
	const struct rundir *rd;
	int *by[2];            /* [1]: by the full key; [0]: by backend, op, size */
	struct cmp_coll_noise noise;
};

struct coll_sort {
	const struct rundir *rd;
	int full;
};

static int coll_sort_cmp(const void *p, const void *q, void *ctx)
{
	const struct coll_sort *s = ctx;

	return coll_cmp(s->rd, &s->rd->coll[*(const int *)p], s->rd, &s->rd->coll[*(const int *)q], s->full);
}

static void coll_index_free(struct coll_index *ix)
{
	free(ix->by[0]);
	free(ix->by[1]);
	cmp_coll_noise_free(&ix->noise);
}

static int coll_index_build(const struct rundir *rd, struct coll_index *ix)
{
	*ix = (struct coll_index){ .rd = rd };
	for (int full = 0; full < 2; full++) {
		struct coll_sort s = { rd, full };

		if (!(ix->by[full] = malloc(sizeof(int) * (size_t)(rd->ncoll + 1))))
			goto oom;
		for (int i = 0; i < rd->ncoll; i++)
			ix->by[full][i] = i;
		if (rd->ncoll)
			qsort_r(ix->by[full], (size_t)rd->ncoll, sizeof(int), coll_sort_cmp, &s);
	}
	if (cmp_coll_noise_build(rd, &ix->noise) == 0)
		return 0;
oom:
	coll_index_free(ix);
	return FP_ERUNTIME;
}

/* The row of ix's run that x (a row of run a) matches (full), or one at its op and size. */
static const struct rd_coll *coll_find(const struct rundir *a, const struct rd_coll *x, const struct coll_index *ix,
				       int full)
{
	int lo = 0, hi = ix->rd->ncoll;

	while (lo < hi) {
		int mid = (lo + hi) / 2;
		const struct rd_coll *y = &ix->rd->coll[ix->by[full][mid]];
		int c = coll_cmp(ix->rd, y, a, x, full);

		if (!c)
			return y;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void coll_item(const struct coll_index *ia, const struct rd_coll *x, const struct coll_index *ib,
		      const struct rd_coll *y, const struct cmp_opts *o, cmp_sink sink, void *ctx)
{
	const struct rundir *a = ia->rd, *b = ib->rd, *rr = x ? a : b;
	const struct rd_coll *r = x ? x : y;
	struct cmp_item it = { .kind = CMP_COLL, .path = rr->tab.str[r->backend], .src = rr->tab.str[r->op], .size = r->size,
			       .metric = coll_csv_cols[COLL_COL_BUSBW].name, .before = x ? x->busbw : NAN, .after = y ? y->busbw : NAN,
			       .retest = NAN, .change_pct = NAN, .tol_pct = NAN };

	snprintf(it.dstbuf, sizeof it.dstbuf, "%s %s%s", rr->tab.str[r->dtype], rr->tab.str[r->redop],
		 r->in_place ? " in-place" : "");
	it.dst = it.dstbuf;
	if (!x || !y) {
		cmp_one_side(&it, x != NULL);
	} else {
		double tol = tol_of(o, cmp_coll_noise_get(&ia->noise, x), cmp_coll_noise_get(&ib->noise, y));

		it.cls = cmp_classify(it.before, it.after, 1, tol, &it.change_pct);
		it.tol_pct = tol_pct(tol, it.change_pct);
		if (x->nranks != y->nranks)
			snprintf(it.note, sizeof it.note, "ranks %d -> %d", x->nranks, y->nranks);
		if ((x->wrong > 0) != (y->wrong > 0))
			snprintf(it.note + strlen(it.note), sizeof it.note - strlen(it.note), "%swrong elements %lld -> %lld",
				 it.note[0] ? "; " : "", x->wrong, y->wrong);
		if (y->wrong > 0 && !(x->wrong > 0))
			it.cls = CMP_WORSE; /* newly wrong results are worse, whatever their speed */
	}
	sink(ctx, &it);
}

int cmp_coll(const struct rundir *base, const struct rundir *cur, const struct cmp_opts *o, cmp_sink sink,
	     void *ctx, struct cmp_skip *skip)
{
	struct coll_index ix[2];

	if (coll_index_build(base, &ix[0]))
		return FP_ERUNTIME;
	if (coll_index_build(cur, &ix[1])) {
		coll_index_free(&ix[0]);
		return FP_ERUNTIME;
	}
	for (int side = 0; side < 2; side++) { /* BASE's rows in their order, then NEW's unmatched */
		const struct coll_index *ia = &ix[side], *ib = &ix[!side];
		const struct rundir *a = ia->rd;

		for (int i = 0; i < a->ncoll; i++) {
			const struct rd_coll *x = &a->coll[i], *y = coll_find(a, x, ib, 1);

			if (side && y)
				continue; /* matched: done from BASE's side */
			if (!y && !coll_find(a, x, ib, 0)) { /* the other run never measured this op at this size */
				cmp_skip_note(skip, a->tab.str[x->op], x->size, !side);
				continue;
			}
			if (side)
				coll_item(ib, NULL, ia, x, o, sink, ctx);
			else
				coll_item(ia, x, ib, y, o, sink, ctx);
		}
	}
	coll_index_free(&ix[0]);
	coll_index_free(&ix[1]);
	return 0;
}
