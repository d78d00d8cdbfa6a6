/* sched.h — the all-pairs schedule (circle method, docs/measurement.md).
 *
 * n endpoints are paired in rounds of disjoint pairs: endpoint 0 stays fixed, the others
 * rotate; round r pairs position i with position M-1-i, M = n rounded up to even. That is
 * M-1 rounds, every unordered pair exactly once, no endpoint twice in a round; with n odd
 * one endpoint sits out (a bye) each round. A round is split into steps of at most
 * `concurrency` pairs, so that at most that many pairs are in flight at once. */
#ifndef FP_SCHED_H
#define FP_SCHED_H

struct sched_pair {
	int a, b; /* endpoint indices, a < b (a directed plan's: a sends to b, either way round) */
};

struct sched {
	int n;                   /* endpoints */
	int nsteps;
	int npairs;              /* n(n-1)/2 */
	struct sched_pair *pair; /* all pairs, grouped by step */
	int *step_first;         /* step s holds pair[step_first[s] .. step_first[s+1]-1] */
};

/* Build the schedule; concurrency <= 0 means a whole round per step. Returns 0 or
 * FP_ERUNTIME (out of memory). */
int sched_create(int n, int concurrency, struct sched *s);
/* A schedule of the given pairs (a < b, n of them), one per step: each measured alone. 0 or
 * FP_ERUNTIME. */
int sched_from_pairs(const struct sched_pair *pairs, int n, struct sched *s);
/* A schedule of the given steps: step k holds pairs[first[k] .. first[k + 1] - 1] (disjoint:
 * measured at once), nsteps of them. 0 or FP_ERUNTIME. */
int sched_from_steps(const struct sched_pair *pairs, const int *first, int nsteps, struct sched *s);
/* One more step at the end of s: the n pairs given (disjoint). 0 or FP_ERUNTIME (s unchanged). */
int sched_append(struct sched *s, const struct sched_pair *pairs, int n);
void sched_destroy(struct sched *s);
/* The pairs of round r (0 <= r < rounds) into out (n/2 entries at most); returns the count. */
int sched_round(int n, int r, struct sched_pair *out);
int sched_rounds(int n);

#endif
