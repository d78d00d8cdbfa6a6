/* results.h — the results directory of one run, and safe file writing into it.
 *
 * Every run writes into a new directory; an existing one is never written into unless it is
 * empty. Every file fabprobe writes into a directory is written here (but for the interrupt
 * handler's meta.json, core/interrupt.c), by its name inside the directory (opened once, never
 * through a symbolic link): streamed files (CSV rows) are created new (an existing entry of
 * that name is refused) and appended and flushed as they are measured; derived files are
 * written to a new temporary of a name no one can have planted and renamed over the target,
 * so that a reader never sees half and a planted link, FIFO or directory is never opened or
 * followed. */
#ifndef FP_RESULTS_H
#define FP_RESULTS_H

#include <stdio.h>
#include <time.h>

#include "opts.h"

#define RESULTS_PATH_MAX 4096

/* Where a run's results go, as the user said: --output DIR (exactly DIR), or a new
 * "<root>/<UTC time>[-<name>]" (--results-root, --name); and by which name they call each node
 * (--node-names: enum nodename_mode, core/nodename.h). Every measuring command takes these
 * options the same way. */
struct results_where {
	const char *output, *name, *root;
	int node_names;
};
#define RESULTS_HELP_NAME_ROOT                                                      \
	"      --name NAME         add -NAME to the default directory name\n"          \
	"      --results-root DIR  where default directories go (default results)\n"   \
	"      --node-names MODE   how outputs name the nodes: hostname (MPI's processor\n" \
	"                          name), short (it up to the first dot) or slurm (Slurm's\n" \
	"                          node name). Default: Slurm's in a task Slurm started,\n" \
	"                          else hostname\n"
#define RESULTS_HELP "  -o, --output DIR        write into DIR (new or empty)\n" RESULTS_HELP_NAME_ROOT
/* for a command whose -o means something else (coll: the operation) */
#define RESULTS_HELP_LONG "      --output DIR        write into DIR (new or empty)\n" RESULTS_HELP_NAME_ROOT
/* --output, --name, --results-root, --node-names (and -o for --output when with_o) as a group
 * of a command's parser (core/opts.h) over w; the command's finish calls results_where_check. */
struct opts_group results_where_group(struct results_where *w, int with_o);
/* After parsing: --output excludes the other two; no empty names; root defaults to "results". */
int results_where_check(struct results_where *w, char *err);

/* Create the run directory. With `dir` set, use exactly it (created if missing, refused if it
 * exists and is not empty). Otherwise create "<root>/<UTC %Y%m%dT%H%M%SZ>[-<name>]" under
 * `root` (created if missing), adding ".2", ".3"… if another run took that name in the same
 * second. Writes the path to out; returns 0, or FP_EUSAGE / FP_ERUNTIME with err filled. */
int results_dir_create(const char *root, const char *name, const char *dir, time_t now,
		       char *out, size_t outlen, char *err, size_t errlen);

/* A derived file being written: write to f, then results_tmp_commit (publish) or
 * results_tmp_abort (drop). The fields are the helpers' own. */
struct results_file {
	FILE *f;
	int dirfd;
	char dir[RESULTS_PATH_MAX], name[256], tmp[256];
};
/* Begin dir/file (file: one name, no '/'): a new temporary ".<file>.<pid>.<random>.tmp" in dir,
 * created exclusively (O_EXCL|O_NOFOLLOW). 0, or FP_ERUNTIME after logging (w->f NULL; abort
 * and commit are still safe to call). */
int results_tmp_open(struct results_file *w, const char *dir, const char *file);
/* Publish w: every write checked (flush, error flag, close), then the temporary renamed over
 * dir/file (a link there is replaced, never followed); on any failure the temporary is removed.
 * 0, or FP_ERUNTIME after logging (also when w was never opened). */
int results_tmp_commit(struct results_file *w);
/* Drop w: the temporary closed and removed, dir/file untouched. Safe after a failed open. */
void results_tmp_abort(struct results_file *w);

/* A streamed file, dir/file, created new (an existing entry of that name, planted or left by a
 * bug, is an error naming it). NULL after logging.
 * Its rows reach the disk whole or not at all: a row (ended by an LF outside quotes) is
 * written only once it is complete, and a failed write (a full disk) cuts the file back to
 * its last whole row, so that a reader never meets a torn row. */
FILE *results_open(const char *dir, const char *file);
/* The same stream over dir/file that an earlier pass of this run wrote (a later pass of the
 * same rows), written from its end; created when no pass did, *fresh then set (the caller
 * writes its header). NULL after logging. */
FILE *results_append(const char *dir, const char *file, int *fresh);
/* The one way to open an input: without blocking (a FIFO with no writer would wait for ever),
 * then checked before a byte is read: a regular file, or with RESULTS_IN_PIPE also a pipe (read
 * once). With RESULTS_IN_NOLINK a symbolic link is refused, never followed: every file found in
 * a results directory (fabprobe writes none there; one that is there was planted, and could
 * carry any file of the machine into a report); a file the user names may be a link.
 * Returns the descriptor, back in blocking mode, its stat in *st; or FP_EUSAGE with the reason
 * (not naming the file) in err, and *absent (when not NULL) set if nothing of that name is there. */
#define RESULTS_IN_PIPE 1u
#define RESULTS_IN_NOLINK 2u
struct stat;
int results_input_open(const char *file, unsigned flags, struct stat *st, int *absent, char *err, size_t errlen);
/* The one way to read a line of an input: as getline (the line with its LF, NUL-terminated, its
 * length returned; NUL bytes in it are counted), -1 at the end, but bounded: a line of more than
 * RESULTS_LINE_MAX bytes returns -2 (a file of no line breaks is not read into memory whole),
 * -3 out of memory. */
#define RESULTS_LINE_MAX (64u << 20)
long results_getline(char **buf, size_t *cap, FILE *f);
/* A whole input into memory, opened as results_input_open does (flags; a pipe read once,
 * never rewound), at most max bytes: *buf (malloc'd, NUL-terminated; it may hold NUL bytes:
 * *len says how many bytes) and *len. FP_EUSAGE with the reason in err (not naming the file;
 * past max: "more than N bytes"), FP_ERUNTIME out of memory or on a read error (err too). */
int results_input_read(const char *file, unsigned flags, size_t max, char **buf, size_t *len, char *err, size_t errlen);
/* Close a streamed file, checking that every write reached the kernel. */
int results_close(FILE *f, const char *dir, const char *file);


/* A tee of a results file: what its writer writes there (a header and rows, or the whole file)
 * handed as text to fn too, as file's; text NULL: that text was lost (out of memory). `run`
 * sets one so that its own model is made from the same text (fabric/io/rundir.h). A writer
 * asks results_tee_open for a memory stream to write the same text into (NULL: no tee, or out
 * of memory, then results_tee_done says it was lost), and results_tee_done hands it over and
 * frees it. tee may be NULL. */
struct results_tee {
	void (*fn)(void *ctx, const char *file, const char *text, size_t len);
	void *ctx;
};
struct results_teebuf {
	FILE *f;
	char *text;
	size_t len;
};
FILE *results_tee_open(const struct results_tee *tee, struct results_teebuf *b);
void results_tee_done(const struct results_tee *tee, struct results_teebuf *b, const char *file);

/* How the run in dir ended, from its meta.json (for topo, report, compare): "ok", "failed",
 * "error", "interrupted" (a signal; the rows written before it are whole), "running" (its
 * process is alive, or it ran on another host, where this one cannot look), "incomplete"
 * (meta.json says running, but the process that wrote it is gone: killed, or its disk
 * filled), or "unknown" (no readable meta.json). why (len bytes) gets one line for a person. */
const char *results_run_state(const char *dir, char *why, size_t len);
/* This machine's boot id ("" when unknown), recorded in meta.json beside the pid so that a
 * pid from before a reboot is never taken for a live one. */
void results_boot_id(char *out, size_t len);

#endif
