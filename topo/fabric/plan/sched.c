/* sched.c — see sched.h. */
#include "sched.h"

#include <stdlib.h>

#include "core/log.h"

int sched_rounds(int n)
{
	return n < 2 ? 0 : (n % 2 ? n : n - 1);
}

int sched_round(int n, int r, struct sched_pair *out)
{
	int m = n + (n % 2); /* position m-1 is the bye when n is odd */
	int k = 0;

	for (int i = 0; i < m / 2; i++) {
		/* position 0 is fixed; position p>0 holds endpoint 1 + (p-1+r) mod (m-1) */
		int j = m - 1 - i;
		int x = i == 0 ? 0 : 1 + (i - 1 + r) % (m - 1);
		int y = 1 + (j - 1 + r) % (m - 1);

		if (x >= n || y >= n)
			continue; /* the bye */
		out[k].a = x < y ? x : y;
		out[k].b = x < y ? y : x;
		k++;
	}
	return k;
}

int sched_create(int n, int concurrency, struct sched *s)
{
	int rounds = sched_rounds(n), per_round = n / 2, maxsteps;

	s->n = n;
	s->npairs = n * (n - 1) / 2;
	s->nsteps = 0;
	if (concurrency <= 0 || concurrency > per_round)
		concurrency = per_round > 0 ? per_round : 1;
	maxsteps = rounds * ((per_round + concurrency - 1) / concurrency);
	s->pair = malloc(sizeof *s->pair * (size_t)(s->npairs + 1));
	s->step_first = malloc(sizeof *s->step_first * (size_t)(maxsteps + 1));
	if (!s->pair || !s->step_first) {
		sched_destroy(s);
		return FP_ERUNTIME;
	}
	int k = 0;
	for (int r = 0; r < rounds; r++) {
		int got = sched_round(n, r, s->pair + k);

		for (int i = 0; i < got; i += concurrency)
			s->step_first[s->nsteps++] = k + i;
		k += got;
	}
	s->step_first[s->nsteps] = k;
	return 0;
}

int sched_from_pairs(const struct sched_pair *pairs, int n, struct sched *s)
{
	s->n = 0;
	s->npairs = s->nsteps = n;
	s->pair = malloc(sizeof *s->pair * (size_t)(n + 1));
	s->step_first = malloc(sizeof *s->step_first * (size_t)(n + 1));
	if (!s->pair || !s->step_first) {
		sched_destroy(s);
		return FP_ERUNTIME;
	}
	for (int k = 0; k < n; k++) {
		s->pair[k] = pairs[k];
		s->step_first[k] = k;
		if (pairs[k].b >= s->n)
			s->n = pairs[k].b + 1;
		if (pairs[k].a >= s->n)
			s->n = pairs[k].a + 1;
	}
	s->step_first[n] = n;
	return 0;
}

int sched_from_steps(const struct sched_pair *pairs, const int *first, int nsteps, struct sched *s)
{
	int rc = nsteps < 0 || (nsteps > 0 && (first[0] != 0 || first[nsteps] < nsteps)) ? FP_ERUNTIME
					   : sched_from_pairs(pairs, nsteps > 0 ? first[nsteps] : 0, s);

	if (rc)
		return rc;
	s->nsteps = nsteps;
	for (int k = 0; k <= nsteps; k++)
		s->step_first[k] = first[k];
	return 0;
}

int sched_append(struct sched *s, const struct sched_pair *pairs, int n)
{
	struct sched_pair *p = realloc(s->pair, sizeof *p * ((size_t)s->npairs + (size_t)n + 1));
	int *f;

	if (!p)
		return FP_ERUNTIME;
	s->pair = p;
	if (!(f = realloc(s->step_first, sizeof *f * ((size_t)s->nsteps + 2))))
		return FP_ERUNTIME;
	s->step_first = f;
	for (int k = 0; k < n; k++) {
		p[s->npairs + k] = pairs[k];
		if (pairs[k].a >= s->n)
			s->n = pairs[k].a + 1;
		if (pairs[k].b >= s->n)
			s->n = pairs[k].b + 1;
	}
	s->npairs += n;
	f[++s->nsteps] = s->npairs;
	return 0;
}

void sched_destroy(struct sched *s)
{
	free(s->pair);
	free(s->step_first);
	s->pair = NULL;
	s->step_first = NULL;
}
