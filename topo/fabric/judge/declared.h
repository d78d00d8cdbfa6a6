/* declared.h — the topology a data-centre team declares (`--declared FILE`), and how the
 * measured one agrees with it. Two formats, told apart by their content:
 *
 *   Slurm topology.conf (topology/tree): `SwitchName=S Nodes=HOSTLIST` for leaves,
 *   `SwitchName=S Switches=LIST` above them; other keys (LinkSpeed) are ignored; `#` comments.
 *   CSV: `host,leaf[,spine[,core]]` per line, every line with the same number of fields; an
 *   optional header line whose first field is `host`; `#` comments.
 *
 * Group names differ between a declaration and a measurement, so groups are matched by
 * overlap (groups.h). Every node whose measured group disagrees with its declared one is
 * named, at the lowest tier where it does; so is every declared node the run did not measure,
 * and every measured node the declaration does not list. Pure apart from reading the file. */
#ifndef FP_DECLARED_H
#define FP_DECLARED_H

#include <stdio.h>

#include "fabric/io/rundir.h"

#define DECL_ERR_MAX 600

struct decl {
	int n, ntiers;
	char **host;   /* n */
	char **group;  /* [i * ntiers + k]: host i's switch at tier k (0 = leaf) */
	char format[16];
};

/* What a declared file may hold: bytes (a CSV of every host of a large fabric is a few MiB),
 * and names its hostlists expand to, over the whole file (node[1-99999999] on a few lines of
 * a 499-byte file took 2.6 GB): 262,144, ten times the nodes of the largest GPU clusters and
 * their switches, yet a 61-byte file expanding to 955,000 took 2.4 s to read (7.6 s under the
 * sanitizers alone, past the replay's 60 s in a loaded CI: called a hang). */
#define DECL_BYTES_MAX (64 << 20)
#define DECL_NAMES_MAX (1 << 18)

/* Read file (Slurm topology.conf or CSV): a regular file or a pipe, read once, at most
 * DECL_BYTES_MAX bytes. 0, or FP_EUSAGE with "FILE:LINE: why" in err, which may hold names
 * from the file raw: print it through core/escape.h's terminal rule (escape_term_line, as the
 * command layer does), once (it was escaped here too, and printed garbled: "\x5cx1b");
 * FP_ERUNTIME (a read error, out of memory). */
int decl_read(const char *file, struct decl *d, char *err);
/* Parse text[0..len) (modified; NUL-terminated at len) as the contents of file (for messages):
 * lines end at LF, CRLF or a lone CR; a UTF-8 byte order mark at the start is skipped; a NUL
 * byte is refused. As decl_read. */
int decl_parse(char *text, size_t len, const char *file, struct decl *d, char *err);
void decl_free(struct decl *d);

enum { DECL_WRONG_GROUP, DECL_MISSING, DECL_UNDECLARED };

struct decl_row {
	const char *host;
	int tier;                 /* -1 for missing / undeclared */
	const char *tier_name;
	int problem;
	const char *declared;     /* the declared switch */
	const char *measured;     /* the measured group */
	const char *matches;      /* the declared switch the measured group matched, "" none */
	const char *how;          /* "moved", "split", "merged" (groups.h) */
};
typedef void (*decl_sink)(void *ctx, const struct decl_row *row);

/* Compare the declaration with the run's topology.csv; every mismatch to sink. Returns the
 * number of mismatches, or FP_ERUNTIME. */
int decl_check(const struct decl *d, const struct rundir *rd, decl_sink sink, void *ctx);
const char *decl_problem_name(int problem);

#endif
