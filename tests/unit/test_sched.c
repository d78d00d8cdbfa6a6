/* The all-pairs schedule: every unordered pair exactly once, nobody twice in a step. */
#include <stdlib.h>

#include "check.h"
#include "fabric/plan/sched.h"

static void check_schedule(int n, int conc)
{
	struct sched s;
	char *seen = calloc((size_t)(n * n + 1), 1);
	int *busy = calloc((size_t)n + 1, sizeof *busy), covered = 0;
	int per_step = conc > 0 ? conc : n / 2;

	CHECK(sched_create(n, conc, &s) == 0);
	CHECK(s.npairs == n * (n - 1) / 2);
	CHECK(s.step_first[s.nsteps] == s.npairs);
	for (int st = 0; st < s.nsteps; st++) {
		CHECK(s.step_first[st + 1] > s.step_first[st]);           /* no empty step */
		CHECK(s.step_first[st + 1] - s.step_first[st] <= per_step); /* concurrency cap */
		for (int k = s.step_first[st]; k < s.step_first[st + 1]; k++) {
			int a = s.pair[k].a, b = s.pair[k].b;

			CHECK_CMP(a, >=, 0);
			CHECK_CMP(a, <, b);
			CHECK_CMP(b, <, n);
			if (a < 0 || b >= n || a >= b)
				continue;
			CHECK_CMP(busy[a], !=, st + 1); /* disjoint within a step */
			CHECK_CMP(busy[b], !=, st + 1);
			busy[a] = busy[b] = st + 1;
			CHECK(!seen[a * n + b]); /* at most once */
			covered += !seen[a * n + b];
			seen[a * n + b] = 1;
		}
	}
	CHECK(covered == n * (n - 1) / 2); /* and so exactly once */
	if (conc <= 0 && n > 1)
		CHECK(s.nsteps == (n % 2 ? n : n - 1)); /* circle method: N-1 rounds, N when odd */
	sched_destroy(&s);
	free(seen);
	free(busy);
}

static void test_every_pair_once_n1_to_64(void)
{
	for (int n = 1; n <= 64; n++)
		check_schedule(n, 0);
}

static void test_concurrency_caps_steps(void)
{
	for (int n = 2; n <= 33; n++)
		for (int k = 1; k <= 4; k++)
			check_schedule(n, k);
}

static void test_round_full_for_even_n(void)
{
	struct sched_pair p[32];

	for (int n = 2; n <= 64; n += 2)
		for (int r = 0; r < n - 1; r++)
			CHECK(sched_round(n, r, p) == n / 2);
	for (int n = 3; n <= 63; n += 2)
		for (int r = 0; r < n; r++)
			CHECK(sched_round(n, r, p) == (n - 1) / 2); /* one bye per round */
}

int main(void)
{
	RUN(test_every_pair_once_n1_to_64);
	RUN(test_concurrency_caps_steps);
	RUN(test_round_full_for_even_n);
	CHECK_EXIT();
}
