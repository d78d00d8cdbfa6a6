/* run_loaded.c — the loaded pass (run_stage.h, after the order with --loaded): every node in a
 * pair at once in mpiGraph's shift over the map's tree order, each tier's loaded median against
 * the isolated one, the groups that fell under load bisected (run_bisect.c). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/mpi_util.h"
#include "core/results.h"
#include "run_stage.h"

/* ---------------------------------------------------------------- the loaded pass */

/* The loaded pass's rounds, mpiGraph's shift within blocks of the map's tree order: round s
 * cuts the order into blocks of n / 2^s endpoints and pairs each position of a block's first
 * half with the same position of its second half, every pair of the round at once. Round 0
 * sends half the nodes across the top of the tree at once; round 1 each half across its
 * middle; and so on: every uplink of the cut carries as many streams as the block's half has
 * nodes behind it. A round is two steps, each direction apart: the first halves send, then the
 * second halves, every stream of a step starting together (a directed plan), so that an
 * uplink carries them all at once instead of pairs drifting apart. */
#define LOADED_ROUNDS 3

/* round s's pairs into pairs (sender, receiver), the first halves sending (rev: the second) */
static int loaded_round(int nep, int s, const int *order, int rev, int *pairs)
{
	int B = nep >> s, k = 0;

	if (B < 2)
		return 0;
	for (int start = 0; start < nep; start += B)
		for (int i = start; i < start + B / 2 && i + B / 2 < nep && i + B / 2 < start + B; i++) {
			pairs[2 * k + rev] = order[i];
			pairs[2 * k + !rev] = order[i + B / 2];
			k++;
		}
	return k;
}

static int loaded_pack(const struct run_state *st, int nep, int **out, int *len)
{
	int np = st->mp.npaths, k = 1;
	int *buf = malloc(sizeof *buf * ((size_t)np * (3 + 2 * LOADED_ROUNDS + 2 * (size_t)LOADED_ROUNDS * nep) + 2));
	int *ord = malloc(sizeof *ord * ((size_t)nep + 1)), *pairs = malloc(sizeof *pairs * ((size_t)nep + 2));

	if (!buf || !ord || !pairs) {
		free(buf);
		free(ord);
		free(pairs);
		return FP_ERUNTIME;
	}
	buf[0] = np;
	for (int i = 0; i < np; i++) {
		const struct infer_result *r = run_maps_map(&st->mp, i);
		int at = k, total = 0;

		for (int e = 0; e < nep; e++)
			ord[e] = r && r->order ? r->order[e] : e;
		k += 2; /* pairs, rounds: once counted */
		int first = k, rounds = 0;

		for (int s = 0; s < LOADED_ROUNDS; s++)
			rounds += 2 * (loaded_round(nep, s, ord, 0, pairs) > 0);
		k += rounds + 1;
		for (int s = 0, x = 0; s < 2 * LOADED_ROUNDS; s++) {
			int c = loaded_round(nep, s / 2, ord, s % 2, pairs);

			if (c <= 0)
				continue;
			buf[first + x++] = total;
			for (int q = 0; q < 2 * c; q++)
				buf[k++] = pairs[q];
			total += c;
		}
		buf[first + rounds] = total;
		buf[at] = total;
		buf[at + 1] = rounds;
	}
	free(ord);
	free(pairs);
	*out = buf;
	*len = k;
	return 0;
}

static int float_cmp(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

/* rank 0: per tier, the loaded median against the isolated one; the loaded matrix written */
static void loaded_say(const struct run_state *st, struct run_out *ro, const struct p2p_result *got,
		       const char *const *labels)
{
	struct jw *j = &ro->meta_extra;
	int first = 1;

	for (int k = 0; k < got->npaths; k++) {
		const struct p2p_matrices *m = &got->path[k];
		const struct infer_result *r = NULL;
		char name[P2P_PATH_MAX + 32];
		FILE *f;

		for (int i = 0; i < st->mp.npaths; i++)
			if (!strcmp(st->mp.p[i].m->path, m->path))
				r = run_maps_map(&st->mp, i);
		p2p_matrix_name(name, sizeof name, "loaded_bandwidth", m->path);
		if ((f = results_open(ro->dir, name))) {
			p2p_matrix_write(f, m->n, labels, r ? r->order : NULL, m->bw, 4);
			if (results_close(f, ro->dir, name))
				LOG_WARN("%s could not be written", name);
		}
		if (!r)
			continue;
		printf("loaded pass on %s (every node in a pair at once; p2p_loaded.csv, %s), the median per tier, and "
		       "its median ratio to the same direction measured alone:", m->path, name);
		snprintf(name, sizeof name, "loaded_%s", m->path);
		jw_karray(j, name, 1);
		/* each loaded direction against the same direction measured alone (the isolated
		 * matrices), or where that pair was not measured alone, its tier's upper quartile */
		const float *iso_bw = NULL;

		for (int i = 0; i < st->res.npaths; i++)
			if (!strcmp(st->res.path[i].path, m->path) && st->res.path[i].n == m->n)
				iso_bw = st->res.path[i].bw;
		for (int t = 0; t < r->ntiers; t++) {
			size_t cells = (size_t)m->n * (size_t)m->n + 1;
			float *v = malloc(sizeof *v * cells), *q = malloc(sizeof *q * cells), *w = malloc(sizeof *w * cells);
			size_t nv = 0;

			for (int a = 0; v && q && w && a < m->n; a++)
				for (int b = 0; b < m->n; b++) {
					size_t c = (size_t)a * m->n + b;
					double ref = iso_bw && !isnan(iso_bw[c]) ? iso_bw[c] : r->bw_p75_GBps[t];

					if (a == b || isnan(m->bw[c]) || infer_pair_tier(r->group, r->ntiers, r->n, a, b) != t ||
					    !(ref > 0))
						continue;
					v[nv] = m->bw[c];
					w[nv] = (float)ref;
					q[nv++] = m->bw[c] / (float)ref;
				}
			if (nv) {
				qsort(v, nv, sizeof *v, float_cmp);
				qsort(w, nv, sizeof *w, float_cmp);
				qsort(q, nv, sizeof *q, float_cmp);
			}
			double med = nv ? v[(nv - 1) / 2] : NAN, iso = nv ? w[(nv - 1) / 2] : NAN, x = nv ? q[(nv - 1) / 2] : NAN;
			free(v);
			free(q);
			free(w);
			if (!nv)
				continue;
			printf("%s tier %d %.3f GB/s (alone %.3f: x%.2f)", first ? "" : ",", t, med, iso, x);
			first = 0;
			jw_object(j, 1);
			jw_kint(j, "tier", t);
			jw_kint(j, "directions", (long long)nv);
			jw_knum(j, "loaded_GBps", med, 4);
			jw_knum(j, "isolated_GBps", iso, 4);
			jw_knum(j, "ratio", x, 4);
			jw_end(j);
		}
		jw_end(j);
		printf("\n");
		first = 1;
	}
	fflush(stdout);
}

/* Every rank: the loaded pass over every path measured, its own file and matrices, never merged
 * into the isolated figures nor judged. A failed pair is said in p2p_loaded.csv, not a finding. */
static int run_loaded_step(struct world *w, struct run_out *ro, struct run_state *st)
{
	struct p2p_plan pl = { .directed = 1 };
	struct p2p_result got = { 0 };
	int *buf = NULL, len = FP_ERUNTIME, rc, prc;

	if (w->single_node || w->nep < 4)
		return 0;
	if (w->rank == 0 && loaded_pack(st, w->nep, &buf, &len))
		LOG_ERROR("out of memory for the loaded pass");
	if ((rc = run_plan_measure(w, ro, st->c, &buf, &len, NULL, "p2p_loaded.csv", "loaded pass:", &pl, &got, &prc)) ==
	    FP_ETIMEDOUT)
		goto out;
	if (rc == 0 && prc >= 0 && w->rank == 0)
		loaded_say(st, ro, &got, (const char *const *)w->labels);
	rc = rc ? rc : prc < 0 ? prc : 0;
	if (mpi_allreduce_sleepy(&rc, MPI_MIN, MPI_COMM_WORLD))
		rc = FP_ERUNTIME;
	/* the groups that failed under load, bisected (rank 0 decides from the loaded figures) */
	if (rc == 0 && (rc = run_bisect(w, ro, st, &got)) != FP_ETIMEDOUT && mpi_allreduce_sleepy(&rc, MPI_MIN, MPI_COMM_WORLD))
		rc = FP_ERUNTIME;
out:
	free(buf);
	p2p_plan_free(&pl);
	p2p_result_free(&got);
	return rc < 0 ? rc : 0;
}

static int run_loaded_on(const struct run_opts *c)
{
	return c->loaded;
}

const struct run_stage run_stage_loaded = { .name = "loaded", .on = run_loaded_on, .step = run_loaded_step };
