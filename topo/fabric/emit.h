/* emit.h — the files schedulers and launchers consume, from the host list, the tier tree and
 * the node order. Pure: each emitter writes one file's text to a FILE * and returns 0, or
 * FP_EUSAGE with a reason in err when a name cannot be written in that format (never a
 * corrupt file). The registry emit_registry[] lists them all, so that callers loop over data. */
#ifndef FP_EMIT_H
#define FP_EMIT_H

#include <stdio.h>

#include "infer.h"

#define EMIT_ERR_MAX 256
#define EMIT_NAME_MAX 32

struct emit_topo {
	int n;
	const char *const *hosts;  /* n node names */
	const struct infer_result *tree;
	int slots;                 /* ranks per node in hostfiles */
	const char *label_prefix;  /* Kubernetes label prefix, e.g. "fabprobe" */
	const char *how;           /* one line for comment headers: what run, when */
};

struct emit_file {
	const char *name;     /* file name in the results directory */
	const char *absent;   /* NULL, or why this build lacks it (core/registry.h) */
	const char *summary;
	const char *install;  /* how the file is put to use, one line (README, report.html) */
	int (*write)(FILE *f, const struct emit_topo *t, char *err);
};

/* The registry (emit.c): every emitted file, NULL-terminated. */
extern const struct emit_file *const emit_registry[];

/* "leaf03", "spine00", "core01", "tier3-02": the switch of group g at tier t. */
void emit_group_name(const struct emit_topo *t, int tier, int g, char *out);
/* A name Kubernetes accepts as a node name (RFC 1123 subdomain, lower case)? */
int emit_k8s_name_ok(const char *s);
/* A label prefix (RFC 1123 subdomain) Kubernetes accepts? */
int emit_label_prefix_ok(const char *s);

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

#endif
