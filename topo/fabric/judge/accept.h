/* accept.h — a run judged against expectations (expect.h): every judged row, pass or fail,
 * and per rule how many failed and which worst. Pure (FILE * only for the writers). */
#ifndef FP_ACCEPT_H
#define FP_ACCEPT_H

#include <stdio.h>

#include "expect.h"
#include "fabric/io/rundir.h"

#define ACC_WORST 5

/* One judged item. */
struct acc_row {
	const struct exp_rule *rule;
	const char *path, *src, *dst;  /* p2p: path, hosts; all-reduce: backend, op; nodes: "", host, NIC */
	long long size;                /* -1 none */
	const char *metric;
	double value;                  /* NAN: not measured (a failed pair, a missing NIC) */
	int pass;
	char note[160];
};

typedef void (*acc_sink)(void *ctx, const struct acc_row *row);

/* Judge rd by every rule of s. Rows go to sink; returns 0 or FP_ERUNTIME. */
int acc_evaluate(const struct rundir *rd, const struct exp_set *s, acc_sink sink, void *ctx);

/* ---------------------------------------------------------------- the report */

struct acc_rule_sum {
	long long judged, failed, warned; /* warned: passed, in the rule's warn band */
	struct acc_row worst[ACC_WORST];
	double margin[ACC_WORST];
	int nworst;
};

/* A failed p2p pair (names borrowed from the run), to be retested before it counts. */
struct acc_pair {
	const char *path, *a, *b;
};

struct acc_report {
	FILE *csv;                     /* acceptance.csv rows go here when not NULL */
	const struct exp_set *set;
	struct acc_rule_sum *sum;      /* per rule of set */
	struct acc_pair *failed_pairs; /* unique unordered pairs */
	int nfailed_pairs, cap;
	int oom;
};

int acc_report_init(struct acc_report *r, const struct exp_set *s, FILE *csv);
void acc_report_free(struct acc_report *r);
void acc_report_row(void *ctx, const struct acc_row *row); /* an acc_sink */
/* rules with a failure */
int acc_report_failed_rules(const struct acc_report *r);
/* rules without a failure with a figure in their warn band */
int acc_report_warned_rules(const struct acc_report *r);
/* rules of the file (not the defaults, which apply to the kinds present) that judged nothing */
int acc_report_unjudged_rules(const struct acc_report *r);
/* Every rule: judged, failed, and for a failed one its worst offenders. */
void acc_report_print(FILE *f, const struct acc_report *r);

#endif
