/* results.h — the results directory of one run, and safe file writing into it.
 *
 * Every run writes into a new directory; an existing one is never written into unless it is
 * empty. Streamed files (CSV rows) are appended and flushed as they are measured; derived
 * files are written to "<name>.tmp" and renamed into place, so a reader never sees half. */
#ifndef FP_RESULTS_H
#define FP_RESULTS_H

#include <stdio.h>
#include <time.h>

#define RESULTS_PATH_MAX 4096

/* Create the run directory. With `dir` set, use exactly it (created if missing, refused if it
 * exists and is not empty). Otherwise create "<root>/<UTC %Y%m%dT%H%M%SZ>[-<name>]" under
 * `root` (created if missing), adding ".2", ".3"… if another run took that name in the same
 * second. Writes the path to out; returns 0, or FP_EUSAGE / FP_ERUNTIME with err filled. */
int results_dir_create(const char *root, const char *name, const char *dir, time_t now,
		       char *out, size_t outlen, char *err, size_t errlen);

/* Open "<dir>/<file>" for writing: for a streamed file use results_open; for a derived file
 * write to the stream from results_tmp_open and publish it with results_tmp_commit (which
 * checks every write error). Both return NULL / FP_ERUNTIME after logging. */
FILE *results_open(const char *dir, const char *file);
FILE *results_tmp_open(const char *dir, const char *file);
int results_tmp_commit(FILE *f, const char *dir, const char *file);
/* Close a streamed file, checking that every write reached the kernel. */
int results_close(FILE *f, const char *dir, const char *file);

/* Write s as a JSON string literal (quoted, escaped). */
void results_json_string(FILE *f, const char *s);

#endif
