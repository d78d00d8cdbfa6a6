/* verdict.h — a verdict as data: the clauses that the stages and the judges add, each with
 * what it is about (its name), whether it fails the run, and one line of text for a person;
 * built once, then rendered by one function per output (the terminal's line, summary.json's
 * verdict, junit's cases, the Prometheus gauges). The result is FAIL when any clause fails:
 * nothing else makes a verdict, so the exit code and every file agree by construction. */
#ifndef FP_VERDICT_H
#define FP_VERDICT_H

#include <stdio.h>

/* What a clause is about. The judges' are VERDICT_JUDGED and above. */
enum verdict_about {
	VERDICT_UNJUDGED, VERDICT_NODES, VERDICT_PAIRS, VERDICT_COLLECTIVES, VERDICT_SUSPECTS, VERDICT_LINKS,
	VERDICT_BASELINE, VERDICT_ACCEPTANCE, VERDICT_DECLARED, VERDICT_RAILS, VERDICT_MAP, VERDICT_NABOUT
};
/* the judges' clauses: VERDICT_JUDGED .. VERDICT_JUDGES_LAST */
#define VERDICT_JUDGED VERDICT_BASELINE
#define VERDICT_JUDGES_LAST VERDICT_RAILS

struct verdict_clause {
	enum verdict_about about;
	int fails;             /* it fails the run */
	char *text;            /* "pairs: all measured" (owned) */
};

struct verdict {
	struct verdict_clause *c;
	int n, cap;
	int oom;               /* a clause could not be kept: the verdict fails (never a PASS from less) */
};

/* Add a clause (fmt's expansion). 0, or FP_ERUNTIME out of memory (then oom is set). */
int verdict_add(struct verdict *v, enum verdict_about about, int fails, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Each clause of from, added to v. 0 or FP_ERUNTIME. */
int verdict_append(struct verdict *v, const struct verdict *from);
/* 1 when any clause fails (or a clause was lost), else 0. */
int verdict_fails(const struct verdict *v);
/* about's name, as summary.json and the gauges name it: "nodes", "baseline", … */
const char *verdict_about_name(enum verdict_about about);
/* The texts of the clauses from lo to hi (enum verdict_about, both included), "; " between
 * them, into out (len bytes; "..." where cut). Returns out. */
char *verdict_join(const struct verdict *v, enum verdict_about lo, enum verdict_about hi, char *out, size_t len);
/* The one verdict line: "verdict: PASS (a; b; c)" (word: "PASS"/"FAIL" from the clauses,
 * or the caller's, "ERROR"), as it is printed and as summary.json's line holds it; every byte
 * of it the caller's to escape for its output. malloc'd, NULL out of memory. */
char *verdict_line(const struct verdict *v, const char *word);
void verdict_free(struct verdict *v);

#endif
