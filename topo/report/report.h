/* report.h — a results directory as one self-contained HTML page (report.html): the verdict,
 * the run's metadata, per path latency and bandwidth heat maps in the inferred tree order,
 * tiers, groups, suspects, scheduler files, size sweeps, collectives, inventory and (when
 * compare.csv is there) the change against a baseline. Inline CSS and SVG, a small inline
 * script of its own, nothing fetched. Pure: reads files of dir, writes to a FILE *; no MPI.
 * A missing or malformed file leaves its section out and is named in the page and in notes. */
#ifndef FP_REPORT_H
#define FP_REPORT_H

#include <stdio.h>

struct report_notes {
	int n;
	char **msg;   /* "suspects.csv: missing: no suspects table" */
};

/* 0 (the page is written; notes says what it could not show), FP_EUSAGE when dir holds none
 * of fabprobe's files (err says so, nothing written), FP_ERUNTIME out of memory. Write errors
 * on out are the caller's to check. */
int report_write(FILE *out, const char *dir, struct report_notes *notes, char *err, size_t errlen);
void report_notes_free(struct report_notes *notes);

#endif
