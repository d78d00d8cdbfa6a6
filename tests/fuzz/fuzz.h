/* fuzz.h — what the fuzz targets share: a scratch directory, the input as a file, and the
 * map's pipeline (inference, every emitter and CSV writer) with oracles that abort on what
 * must never happen: an injected line, a control character or a name a format refused in a
 * file that was written anyway. Test code, included by one target each: the targets are
 * libFuzzer entry points (LLVMFuzzerTestOneInput), built with clang for `make fuzz` and with
 * tests/fuzz/replay.c for `make check`. */
#ifndef FP_FUZZ_H
#define FP_FUZZ_H

#include <ftw.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "fabric/emit/emit.h"
#include "fabric/infer/infer.h"
#include "fabric/io/matrix.h"
#include "fabric/plan/plan.h"
#include "fabric/emit/topo_csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_ASSERT(cond, ...)                                                        \
	do {                                                                          \
		if (!(cond)) {                                                        \
			fprintf(stderr, "fuzz oracle failed: %s: ", #cond);           \
			fprintf(stderr, __VA_ARGS__);                                 \
			fputc('\n', stderr);                                          \
			abort();                                                      \
		}                                                                     \
	} while (0)

static inline int fuzz_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path) && 0;
}

/* Remove a tree without following its links. */
static inline void fuzz_rm_tree(const char *dir)
{
	nftw(dir, fuzz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static char fuzz_dir_path[64];

static inline void fuzz_dir_remove(void)
{
	fuzz_rm_tree(fuzz_dir_path);
}

/* A scratch directory of this process (in memory when /dev/shm exists: thousands of files
 * are made per second), made once, removed at exit. */
static inline const char *fuzz_dir(void)
{
	if (!fuzz_dir_path[0]) {
		snprintf(fuzz_dir_path, sizeof fuzz_dir_path, "%s/fabprobe-fuzz-%d",
			 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (int)getpid());
		if (mkdir(fuzz_dir_path, 0700))
			abort();
		atexit(fuzz_dir_remove);
	}
	return fuzz_dir_path;
}

/* The input as the file <scratch>/<name>; its path in a static buffer. */
static inline const char *fuzz_file(const char *name, const uint8_t *data, size_t size)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", fuzz_dir(), name);
	if (!(f = fopen(path, "w")) || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	return path;
}

/* The same input as a reader must read it alike: with a UTF-8 byte order mark before it, and
 * with every LF line end made CRLF. fuzz_variants_free releases both. */
struct fuzz_variants {
	char *bom, *crlf;
	size_t nbom, ncrlf;
};

static inline void fuzz_variants(const uint8_t *data, size_t size, struct fuzz_variants *v)
{
	if (!(v->bom = malloc(size + 3)) || !(v->crlf = malloc(2 * size + 1)))
		abort();
	memcpy(v->bom, "\xef\xbb\xbf", 3);
	memcpy(v->bom + 3, data, size);
	v->nbom = size + 3;
	v->ncrlf = 0;
	for (size_t i = 0; i < size; i++) {
		if (data[i] == '\n' && !(i && data[i - 1] == '\r'))
			v->crlf[v->ncrlf++] = '\r';
		v->crlf[v->ncrlf++] = (char)data[i];
	}
}

static inline void fuzz_variants_free(struct fuzz_variants *v)
{
	free(v->bom);
	free(v->crlf);
}

/* What a written scheduler file may hold: printable ASCII, tabs and LFs only; and no line
 * that the header's text started (every comment line starts "# "). */
static inline void fuzz_check_text(const char *file, const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		FUZZ_ASSERT(c == '\n' || (c >= 0x20 && c < 0x7f), "%s: byte 0x%02x at %zu", file, c, i);
	}
	FUZZ_ASSERT(!strstr(text, "\nSwitchName=evil"), "%s: an injected line", file);
}

/* Inference on the matrix, then every emitter and the map's CSVs and summary, each into
 * memory; names each format refused must not appear in a file it wrote. */
static inline void fuzz_map(const struct p2p_matrices *m)
{
	struct infer_opts io;
	struct infer_result r;
	FILE *devnull;

	if (m->n > 512) /* the reader was tested; inference on thousands is for benchmarks */
		return;
	devnull = fopen("/dev/null", "w");
	infer_opts_default(&io);
	io.lat_again = m->lat_hi; /* the repeat noise, from a file's lat_us_min_hi */
	if (!devnull || infer_tiers(m->lat_min, m->bw, m->n, (const char *const *)m->names, &io, &r))
		abort();
	struct emit_topo t = { .n = m->n, .hosts = (const char *const *)m->names, .tree = &r, .slots = 2,
			       .label_prefix = "fabprobe", .how = "fuzz\nSwitchName=evil Nodes=x" };
	for (int i = 0; emit_registry[i]; i++) {
		char err[EMIT_ERR_MAX] = "", *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		int rc;

		if (!f)
			abort();
		rc = emit_registry[i]->write(f, &t, err);
		fclose(f);
		FUZZ_ASSERT(rc == 0 || rc == FP_EUSAGE, "%s: rc %d", emit_registry[i]->name, rc);
		FUZZ_ASSERT(rc == 0 || (err[0] && !strchr(err, '\n')), "%s: refused without a one-line reason",
			    emit_registry[i]->name);
		if (rc == 0)
			fuzz_check_text(emit_registry[i]->name, text, len);
		free(text);
	}
	/* the bandwidth plan of whatever map came out keeps every promise */
	struct plan_opts po;
	struct plan pl;
	char why[256] = "";

	plan_opts_default(&po);
	po.peers = 1 + m->n % 3;
	po.uplink_streams = 1 + m->n % 2;
	FUZZ_ASSERT(plan_bandwidth(r.group, r.ntiers, r.n, &po, &pl) == 0, "plan_bandwidth failed on %d nodes", r.n);
	FUZZ_ASSERT(plan_check(&pl, r.group, r.ntiers, r.n, &po, why, sizeof why) == 0, "plan: %s", why);
	plan_free(&pl);
	topo_csv_topology(devnull, &t);
	topo_csv_tiers(devnull, &t);
	topo_csv_suspects(devnull, &t);
	topo_summary_print(devnull, &t);
	fclose(devnull);
	infer_result_free(&r);
}

#endif
