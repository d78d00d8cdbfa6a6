/* expect.h — what a cluster is expected to deliver (`--expect FILE`, `--accept`), and the
 * parser of that file. Pure apart from reading the file.
 *
 * The file: one `key = value` a line; `#` starts a comment; blank lines are ignored. A key is
 * [SCOPE.]NAME[.TIER]:
 *
 *   min_pct_line_rate = PCT        bandwidth (largest size) as % of the negotiated line rate
 *   min_bw_GBps = X                bandwidth (largest size), GB/s
 *   max_lat_us = X                 p50 latency (smallest size), µs
 *     SCOPE: infiniband, roce, ethernet, ipoib (the p2p row's kind) or mpi (the mpi path);
 *     none = every path. TIER: leaf, spine, core, tierN (where the pair meets); none = every
 *     tier. The most specific rule judges a row: scope and tier, scope, tier, neither.
 *   min_allreduce_busbw_GBps = X [at SIZE]   out-of-place all-reduce busbw at SIZE (K/M/G;
 *                                  default: the largest size measured); SCOPE: mpi, nccl
 *   nodes = N                      nodes in the run
 *   gpus_per_node = N
 *   KIND.nics_per_node = N         up NICs of that kind on each node (KIND required)
 *   KIND.nic_rate_Gbps = X         negotiated rate of each up NIC of that kind, at least
 *
 * A value may carry a warn band, `X warn Y` (before `at SIZE`): a figure past X fails, one
 * between X and Y passes and is said as a warning (Y on the passing side of X; not for counts).
 * `preset = NAME` (any number of lines) takes a preset's rules (exp_presets); a rule of the file
 * itself overrides the preset's rule of the same key. `--expect preset:NAME[,NAME…]` is a file
 * holding only those lines.
 *
 * Defaults (`--accept`, and for any kind a file leaves without a min_pct_line_rate rule):
 * infiniband and roce 90 (RDMA), ethernet 80 (TCP). ipoib has none: single-stream TCP over
 * IPoIB is bound by the host, not the link; give one if you want it judged. */
#ifndef FP_EXPECT_H
#define FP_EXPECT_H

#include <stdio.h>

#define EXPECT_ERR_MAX 600
#define EXPECT_BYTES_MAX (1 << 20) /* an expectations file is a few lines: more is not one */

enum exp_what {
	EXP_MIN_PCT_LINE_RATE,
	EXP_MIN_BW,
	EXP_MAX_LAT,
	EXP_MIN_ALLREDUCE,
	EXP_NODES,
	EXP_GPUS,
	EXP_NICS,
	EXP_NIC_RATE,
	EXP_NWHAT
};

struct exp_rule {
	int what;
	char scope[16];  /* "" = every kind (or backend) */
	char tier[16];   /* "" = every tier */
	double value;
	double warn;     /* the warn band's edge (value ... warn: passes, said); NAN: none */
	long long size;  /* all-reduce: bytes; 0 = the largest measured */
	char key[96];    /* as written */
	char from[320];  /* "FILE:LINE", or "default" */
};

struct exp_set {
	struct exp_rule *r;
	int n;
};

/* Parse the file (name for messages): at most EXPECT_BYTES_MAX bytes, no NUL byte; lines end
 * at LF, CRLF or CR; a UTF-8 byte order mark is skipped. Returns 0, or FP_EUSAGE with
 * "NAME:LINE: key 'K': why" (or "NAME[:LINE]: why") in err, FP_ERUNTIME out of memory.
 * exp_parse_file takes a regular file or a pipe (read once), never blocking on a FIFO. */
int exp_parse(FILE *f, const char *name, struct exp_set *s, char *err);
int exp_parse_file(const char *file, struct exp_set *s, char *err);
/* Add the default line-rate rules for the kinds s has no min_pct_line_rate rule of. */
int exp_defaults(struct exp_set *s);
void exp_free(struct exp_set *s);
const char *exp_what_name(int what);
/* The rule's comparison of a measured value with the expected one: ">=", "<=" or "==". */
const char *exp_op(int what);
/* Does value meet the rule? */
int exp_meets(const struct exp_rule *r, double value);
/* Does value meet the rule but sit in its warn band? */
int exp_warns(const struct exp_rule *r, double value);

/* The presets (expect.c's table, docs/judging.md's sources): NULL-terminated. */
struct exp_preset {
	const char *name, *summary, *rules;
};
extern const struct exp_preset exp_presets[];

#endif
