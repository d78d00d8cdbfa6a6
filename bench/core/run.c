/* run.c — see run.h. */
#include "run.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"
#include "jw.h"
#include "interrupt.h"
#include "log.h"
#include "mpi_util.h"

/* meta.json in three parts: the head (up to started_utc) and the tail (pid onwards) never
 * change during a run and are rendered once, each a members fragment of the one JSON writer;
 * the status lines between them are written each time. The interrupt handler writes the same
 * head and tail (core/interrupt.h). */
static char *meta_part(struct jw *j, const char *before, const char *after)
{
	const char *text = jw_done(j) ? NULL : jw_text(j);
	char *out = NULL;

	if (text && asprintf(&out, "%s%s%s", before, text, after) < 0)
		out = NULL;
	jw_free(j);
	return out;
}

static void meta_render(struct run_out *ro, const struct world *w)
{
	char lib[MPI_MAX_LIBRARY_VERSION_STRING], when[32], boot[64], std[16];
	int len = 0, ver, sub;
	struct jw j;

	MPI_Get_library_version(lib, &len);
	lib[strcspn(lib, "\n")] = 0;
	MPI_Get_version(&ver, &sub);
	snprintf(std, sizeof std, "%d.%d", ver, sub);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&ro->started));
	if (jw_init_members(&j))
		return;
	jw_kstr(&j, "tool", "fabprobe");
	jw_kstr(&j, "version", FP_VERSION);
	jw_kstr(&j, "build", FP_FEATURES);
	jw_kstr(&j, "run_id", ro->run_id);
	jw_kstr(&j, "command", ro->command);
	jw_karray(&j, "argv", 1);
	jw_str(&j, "fabprobe");
	for (int i = 0; i < ro->argc; i++)
		jw_str(&j, ro->argv[i]);
	jw_end(&j);
	jw_kstr(&j, "started_utc", when);
	ro->meta_head = meta_part(&j, "{\n", ",\n");
	if (jw_init_members(&j))
		return;
	jw_kint(&j, "pid", (long long)getpid());
	jw_kstr(&j, "pid_host", w->host);
	results_boot_id(boot, sizeof boot);
	jw_kstr(&j, "boot_id", boot);
	jw_kint(&j, "ranks", w->size);
	jw_kint(&j, "nodes", w->nnodes);
	jw_kint(&j, "endpoints", w->nep);
	jw_kstr(&j, "mpi_library", lib);
	jw_kstr(&j, "mpi_standard", std);
	jw_karray(&j, "hosts", 1);
	for (int e = 0; e < w->nep; e++)
		jw_str(&j, w->ep_label[e]);
	jw_end(&j);
	ro->meta_tail = meta_part(&j, "", "\n}\n");
}

/* the members after the tail's: the stages' (meta_extra), p2p's probe and engine */
static void meta_more(FILE *f, const struct run_out *ro)
{
	struct jw *x = (struct jw *)&ro->meta_extra;
	const char *extra = x->f && !x->misuse && x->depth == x->base && !x->key ? jw_text(x) : "";
	struct jw j;

	if (extra && extra[0])
		fprintf(f, ",\n%s", extra);
	if ((!ro->probe.taken && !ro->engine.steps) || jw_init_members(&j))
		return;
	if (ro->probe.taken) {
		jw_kobject(&j, "cross_core_probe", 1);
		jw_karray(&j, "cpus", 1);
		jw_int(&j, ro->probe.cpu[0]);
		jw_int(&j, ro->probe.cpu[1]);
		jw_end(&j);
		jw_knum(&j, "round_trip_ns_before", ro->probe.before_ns, 0);
		jw_knum(&j, "round_trip_ns_after", ro->probe.after_ns, 0);
		jw_end(&j);
	}
	if (ro->engine.steps) {
		jw_kobject(&j, "p2p_engine", 1);
		jw_kint(&j, "endpoints", ro->engine.endpoints);
		jw_kint(&j, "steps", ro->engine.steps);
		jw_knum(&j, "sync_ms_per_step", 1e3 * ro->engine.sync_s / (double)ro->engine.steps, 4);
		jw_knum(&j, "write_ms_per_step", 1e3 * ro->engine.write_s / (double)ro->engine.steps, 4);
		jw_end(&j);
	}
	if (jw_done(&j) == 0 && jw_text(&j))
		fprintf(f, ",\n%s", jw_text(&j));
	jw_free(&j);
}

/* status: running, ok, failed, error, interrupted (then sig is the signal) */
static void meta_write(const struct run_out *ro, const char *status, int exit_code, int sig)
{
	char end[32];
	time_t now = time(NULL);
	struct results_file out;
	FILE *f;

	if (!ro->meta_head || !ro->meta_tail || results_tmp_open(&out, ro->dir, "meta.json"))
		return;
	f = out.f;
	strftime(end, sizeof end, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	fputs(ro->meta_head, f);
	if (strcmp(status, "running"))
		fprintf(f, "  \"finished_utc\": \"%s\",\n  \"exit_code\": %d,\n", end, exit_code);
	if (sig)
		fprintf(f, "  \"signal\": \"%s\",\n", interrupt_name(sig));
	fprintf(f, "  \"status\": \"%s\",\n", status);
	fwrite(ro->meta_tail, 1, strlen(ro->meta_tail) - 3, f); /* less its "\n}\n": more members follow */
	meta_more(f, ro);
	fputs("\n}\n", f);
	results_tmp_commit(&out);
}

static void meta_free(struct run_out *ro)
{
	free(ro->meta_head);
	free(ro->meta_tail);
	ro->meta_head = ro->meta_tail = NULL;
	jw_free(&ro->meta_extra);
}

int run_begin(struct run_out *ro, const struct world *w, const struct results_where *where,
	      const char *command, int argc, char **argv, int progress)
{
	char err[512] = "";
	int rc = 0;

	memset(ro, 0, sizeof *ro);
	ro->command = command;
	ro->argc = argc;
	ro->argv = argv;
	ro->started = time(NULL);
	ro->progress = progress < 0 ? isatty(STDERR_FILENO) : progress;
	if (w->rank == 0) {
		rc = results_dir_create(where->root, where->name, where->output, ro->started, ro->dir,
					sizeof ro->dir, err, sizeof err);
		if (rc)
			escape_term_line(stderr, "fabprobe %s: %s", command, err);
		else {
			ro->run_id = strrchr(ro->dir, '/') ? strrchr(ro->dir, '/') + 1 : ro->dir;
			if (jw_init_members(&ro->meta_extra))
				LOG_ERROR("out of memory for meta.json");
			meta_render(ro, w);
			meta_write(ro, "running", 0, 0);
		}
	}
	MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
	return rc;
}

int run_end(struct run_out *ro, const struct world *w, int exit_code)
{
	int code = exit_code, sig = interrupt_pending();

	/* an interruption anywhere ends the run as interrupted, with 128 + the signal */
	MPI_Allreduce(MPI_IN_PLACE, &sig, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (sig)
		code = 128 + sig;
	if (w->rank == 0) {
		meta_write(ro, sig ? "interrupted" : code == FP_EXIT_OK ? "ok" : code == FP_EXIT_CHECK ? "failed" : "error",
			   code, sig);
		printf("results: %s\n", ro->dir);
		if (ro->after)
			ro->after(ro->dir);
		fflush(stdout);
	}
	interrupt_uninstall();
	meta_free(ro);
	MPI_Allreduce(MPI_IN_PLACE, &code, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	return code;
}

void run_meta_abort(struct run_out *ro, const struct world *w, int exit_code)
{
	int sig = interrupt_pending();

	(void)w;
	meta_write(ro, sig ? "interrupted" : "error", sig ? 128 + sig : exit_code, sig);
	interrupt_uninstall();
	meta_free(ro);
}

void run_interrupts(struct run_out *ro, const struct world *w)
{
	if (w->rank == 0 && ro->meta_head && ro->meta_tail)
		interrupt_install(ro->dir, ro->meta_head, ro->meta_tail);
	else
		interrupt_install(NULL, NULL, NULL);
}
