/* The verdict as data (fabric/judge/verdict.h): FAIL exactly when a clause fails, the one line
 * the clauses in order, the judges' clauses joined apart, a copy that keeps every clause. */
#include <stdlib.h>

#include "check.h"
#include "fabric/judge/verdict.h"

static void test_clauses(void)
{
	struct verdict v = { 0 }, judged = { 0 }, all = { 0 };
	char out[64], small[12];
	char *line;

	CHECK_EQ(verdict_add(&v, VERDICT_NODES, 0, "nodes %s", "alike"), 0);
	CHECK_EQ(verdict_add(&v, VERDICT_MAP, 0, "map incomplete"), 0);
	CHECK_EQ(verdict_fails(&v), 0);
	line = verdict_line(&v, NULL);
	CHECK_STR(line, "verdict: PASS (nodes alike; map incomplete)");
	free(line);
	CHECK_EQ(verdict_add(&judged, VERDICT_ACCEPTANCE, 1, "acceptance: %d of %d rules failed", 1, 3), 0);
	CHECK_EQ(verdict_add(&judged, VERDICT_DECLARED, 0, "declared: 0 mismatches"), 0);
	CHECK_EQ(verdict_append(&all, &v), 0);
	CHECK_EQ(verdict_append(&all, &judged), 0);
	CHECK_EQ(all.n, 4);
	CHECK_EQ(verdict_fails(&all), 1);
	line = verdict_line(&all, NULL);
	CHECK_STR(line, "verdict: FAIL (nodes alike; map incomplete; acceptance: 1 of 3 rules failed; declared: 0 mismatches)");
	free(line);
	line = verdict_line(&all, "ERROR"); /* the caller's word, for a run that could not judge */
	CHECK(line && !strncmp(line, "verdict: ERROR (", 16));
	free(line);
	CHECK_STR(verdict_join(&all, VERDICT_JUDGED, VERDICT_DECLARED, out, sizeof out),
		  "acceptance: 1 of 3 rules failed; declared: 0 mismatches");
	CHECK_STR(verdict_join(&all, VERDICT_JUDGED, VERDICT_DECLARED, small, sizeof small), "acceptan...");
	CHECK_STR(verdict_about_name(VERDICT_BASELINE), "baseline");
	CHECK_STR(verdict_about_name(VERDICT_NABOUT), "?");
	/* a lost clause is never a PASS */
	all.oom = 1;
	all.c[2].fails = 0;
	CHECK_EQ(verdict_fails(&all), 1);
	verdict_free(&v);
	verdict_free(&judged);
	verdict_free(&all);
	CHECK_EQ(all.n, 0);
}

/* many clauses: the array grows, every one kept in order */
static void test_many(void)
{
	struct verdict v = { 0 };

	for (int i = 0; i < 100; i++)
		CHECK_EQ(verdict_add(&v, VERDICT_LINKS, i == 99, "c%d", i), 0);
	CHECK_EQ(v.n, 100);
	CHECK_STR(v.c[57].text, "c57");
	CHECK_EQ(verdict_fails(&v), 1);
	verdict_free(&v);
}

int main(void)
{
	RUN(test_clauses);
	RUN(test_many);
	CHECK_EXIT();
}
