/* emit.h — the files schedulers and launchers consume, from the host list, the tier tree and
 * the node order. Pure: each emitter writes one file's text to a FILE * and returns 0, or
 * FP_EUSAGE with a reason in err when a name cannot be written in that format (never a
 * corrupt file). The registry emit_registry[] lists them all, so that callers loop over data. */
#ifndef FP_EMIT_H
#define FP_EMIT_H

#include <stdio.h>

#include "fabric/infer/infer.h"

struct susp_list;

#define EMIT_ERR_MAX 256
#define EMIT_NAME_MAX 32

struct emit_topo {
	int n;
	const char *const *hosts;  /* n node names */
	const struct infer_result *tree;
	int slots;                 /* ranks per node in hostfiles */
	const char *label_prefix;  /* Kubernetes label prefix, e.g. "fabprobe" */
	const char *how;           /* one line for comment headers: what run, when */
	/* the latency map's own files (topo_csv.h): the suspects that count (NULL: the map's
	 * own, unconfirmed), those re-tested that do not (NULL: no retested.csv), and the suffix
	 * of the file names ("" or "_tcp_eth0" for topology_tcp_eth0.csv) */
	const struct susp_list *suspects, *rest;
	const char *suffix;
	int topograph;             /* --topograph: the opt-in files (emit_file.opt_in) too */
	/* n: each node's NVLink domain ("<cluster UUID>.<clique id>", the inventory's
	 * nvlink_domain), NULL or "" for a node in none; NULL: no domains known */
	const char *const *domain;
};

struct emit_file {
	const char *name;     /* file name in the results directory */
	const char *absent;   /* NULL, or why this build lacks it (core/registry.h) */
	const char *summary;
	const char *install;  /* how the file is put to use, one line (docs/schedulers.md, report.html) */
	const char *opt_in;   /* NULL: always written; else the option that asks for it (emit_topo's topograph) */
	int (*write)(FILE *f, const struct emit_topo *t, char *err);
};

/* The registry (emit.c): every emitted file, NULL-terminated. */
extern const struct emit_file *const emit_registry[];

/* ---- the name policy: one function decides, per format, whether a name can be written.
 * A name a format cannot hold is refused with the reason (the file is not written), never
 * escaped into a different name. */
enum emit_format {
	EMIT_FMT_HOSTFILE,  /* launchers' host lists: node-order.txt, Open MPI, MPICH, SLURM_HOSTFILE */
	EMIT_FMT_SLURM,     /* topology.conf, topology-block.conf, topology.yaml: hostlist expressions */
	EMIT_FMT_K8S,       /* Kubernetes node names: lower-case RFC 1123 subdomains */
};
/* 0 when name can be written in format fmt as itself; else FP_EUSAGE with the reason in why
 * (EMIT_ERR_MAX), the name shown under the terminal rule (core/escape.h). Host files and Slurm
 * take letters, digits, '.', '-', '_' and '/' ('/' for the host/r<rank> endpoints of one
 * node): never white space, control characters, non-ASCII bytes, quotes, backslashes, '#'
 * (a comment), ',' '[' ']' (hostlist syntax), ':' (MPICH's host:N) or '=' (key=value). */
int emit_name_check(enum emit_format fmt, const char *name, char *why);
/* Every host of t in format fmt (emit_name_check), and no host twice (two nodes of one name
 * make the files disagree: an input error). 0, or FP_EUSAGE / FP_ERUNTIME with err. */
int emit_hosts_check(const struct emit_topo *t, enum emit_format fmt, char *err);
/* "# text\n": a comment line in ASCII, text under the terminal rule (core/escape.h: control
 * and non-ASCII bytes as \xHH), so that text (an input path, a run id) can never start a
 * line of its own in a generated file: not with LF or CR, nor with U+2028, U+2029 or U+0085,
 * where YAML 1.1 loaders end a comment. */
void emit_comment(FILE *f, const char *text);
/* One YAML line: pre (fixed text: indent, a fixed key and ": " or "- "), then key as a
 * double-quoted scalar and ": " when key is not NULL, then value as one (core/escape.h's
 * YAML rule: no data is ever typed or read as YAML syntax), then LF. The names were checked
 * (ASCII) before: a value that is not UTF-8 cannot reach it. */
void emit_yaml_line(FILE *f, const char *pre, const char *key, const char *value);

/* "leaf03", "spine00", "core01", "tier3-02": the switch of group g at tier t. */
void emit_group_name(const struct emit_topo *t, int tier, int g, char *out);
/* "leaf", "spine", "core", "tier3", …: the kind of switch at tier t (EMIT_NAME_MAX bytes). */
void emit_tier_kind(int tier, char *out);
/* A name Kubernetes accepts as a node name (RFC 1123 subdomain, lower case)? */
int emit_k8s_name_ok(const char *s);
/* A label prefix (RFC 1123 subdomain) Kubernetes accepts? */
int emit_label_prefix_ok(const char *s);

/* ---- NVLink domains as Slurm blocks (emit_blocks.c) */
struct emit_blocks {
	const char **dom;      /* the distinct domains (t->domain's strings), in block order */
	int ndom;
	int *dom_of_block;     /* nblocks: the domain of each block, -1 for an empty placeholder */
	int nblocks, placeholders;
	int base, levels;      /* BlockSizes: base << 0 … base << levels */
	int unplaced;          /* nodes in no domain (in no block) */
};
/* The blocks of t's domains (none when t->domain is NULL or names none: ndom 0), as the file
 * says. 0, or FP_ERUNTIME out of memory. */
int emit_blocks_from_domains(const struct emit_topo *t, struct emit_blocks *b);
/* Block i's nodes as a hostlist in *out (malloc'd; NULL for a placeholder). 0 or an error. */
int emit_block_nodes(const struct emit_topo *t, const struct emit_blocks *b, int block, char **out, char *err);
void emit_blocks_free(struct emit_blocks *b);

/* the individual emitters (emit_hostfiles.c, emit_slurm.c, emit_k8s.c) */
int emit_node_order(FILE *f, const struct emit_topo *t, char *err);
int emit_ompi_hostfile(FILE *f, const struct emit_topo *t, char *err);
int emit_ompi_rankfile(FILE *f, const struct emit_topo *t, char *err);
int emit_mpich_machinefile(FILE *f, const struct emit_topo *t, char *err);
int emit_slurm_hostfile(FILE *f, const struct emit_topo *t, char *err);
int emit_slurm_tree(FILE *f, const struct emit_topo *t, char *err);
int emit_slurm_block(FILE *f, const struct emit_topo *t, char *err);
int emit_slurm_yaml(FILE *f, const struct emit_topo *t, char *err);
int emit_k8s_label_cmds(FILE *f, const struct emit_topo *t, char *err);
int emit_k8s_nodes(FILE *f, const struct emit_topo *t, char *err);
int emit_kueue(FILE *f, const struct emit_topo *t, char *err);
int emit_volcano(FILE *f, const struct emit_topo *t, char *err);
int emit_topograph_graph(FILE *f, const struct emit_topo *t, char *err);
int emit_topograph_model(FILE *f, const struct emit_topo *t, char *err);

/* ---- the actions a run suggests (emit_actions.c): files a person applies, never fabprobe */
#define EMIT_REASON_MAX 256
struct emit_health {
	int n;
	const char *const *hosts;  /* n node names */
	const char *const *why;    /* n: a node's findings in one line, NULL when it passed */
	const char *run_tag;       /* "fabprobe <run id>": every reason starts with it */
	const char *how;           /* one line for the comment header */
	const char *label_prefix;  /* Kubernetes: <prefix>/health, <prefix>/finding */
	int taint;                 /* Kubernetes: a NoSchedule taint on each failed node */
};
/* drain-slurm.sh: `node NAME 'fabprobe <run>: <why>'` per failed node, draining (or with
 * --undrain resuming, while the reason is still the run's); a name the Slurm policy refuses is
 * a comment, not a command. Never fails. */
int emit_drain_slurm(FILE *f, const struct emit_health *h, char *err);
/* k8s-health-labels.yaml: a Node object per node, label <prefix>/health pass|fail, the finding
 * in an annotation, a taint with h->taint. FP_EUSAGE (nothing written) when a name is not a
 * Kubernetes node name. */
int emit_k8s_health(FILE *f, const struct emit_health *h, char *err);
/* r as a reason may be written: printable ASCII ('?' for any other byte), cut to
 * EMIT_REASON_MAX - 1 bytes, into out (EMIT_REASON_MAX). */
void emit_reason_clean(const char *r, char *out);

#endif
