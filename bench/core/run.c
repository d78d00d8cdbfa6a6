/* run.c — see run.h. */
#include "run.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"
#include "interrupt.h"
#include "log.h"
#include "mpi_util.h"

/* meta.json in three parts: the head (up to started_utc) and the tail (pid onwards) never
 * change during a run and are rendered once; the status lines between them are written
 * each time. The interrupt handler writes the same head and tail (core/interrupt.h). */
static void meta_render(struct run_out *ro, const struct world *w)
{
	char lib[MPI_MAX_LIBRARY_VERSION_STRING], when[32], boot[64];
	int len = 0, ver, sub;
	size_t n;
	FILE *f = open_memstream(&ro->meta_head, &n);

	if (!f)
		return;
	MPI_Get_library_version(lib, &len);
	lib[strcspn(lib, "\n")] = 0;
	MPI_Get_version(&ver, &sub);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&ro->started));
	fprintf(f, "{\n  \"tool\": \"fabprobe\",\n  \"version\": \"%s\",\n  \"build\": \"%s\",\n",
		FP_VERSION, FP_FEATURES);
	fputs("  \"run_id\": ", f);
	results_json_string(f, ro->run_id);
	fprintf(f, ",\n  \"command\": \"%s\",\n  \"argv\": [\"fabprobe\"", ro->command);
	for (int i = 0; i < ro->argc; i++) {
		fputs(", ", f);
		results_json_string(f, ro->argv[i]);
	}
	fprintf(f, "],\n  \"started_utc\": \"%s\",\n", when);
	fclose(f);
	if (!(f = open_memstream(&ro->meta_tail, &n)))
		return;
	fprintf(f, "  \"pid\": %ld,\n  \"pid_host\": ", (long)getpid());
	results_json_string(f, w->host);
	results_boot_id(boot, sizeof boot);
	fputs(",\n  \"boot_id\": ", f);
	results_json_string(f, boot);
	fprintf(f, ",\n  \"ranks\": %d,\n  \"nodes\": %d,\n  \"endpoints\": %d,\n",
		w->size, w->nnodes, w->nep);
	fputs("  \"mpi_library\": ", f);
	results_json_string(f, lib);
	fprintf(f, ",\n  \"mpi_standard\": \"%d.%d\",\n  \"hosts\": [", ver, sub);
	for (int e = 0; e < w->nep; e++) {
		fputs(e ? ", " : "", f);
		results_json_string(f, w->ep_label[e]);
	}
	fputs("]\n}\n", f);
	fclose(f);
}

static const char *json_ns(double ns, char *buf)
{
	if (isnan(ns))
		return "null";
	snprintf(buf, 32, "%.0f", ns);
	return buf;
}

/* status: running, ok, failed, error, interrupted (then sig is the signal) */
static void meta_write(const struct run_out *ro, const char *status, int exit_code, int sig)
{
	char end[32], nb[32], na[32];
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
	if (ro->meta_extra[0] || ro->probe.taken || ro->engine.steps) { /* the tail ends "]\n}\n": the extra members go before its brace */
		fwrite(ro->meta_tail, 1, strlen(ro->meta_tail) - 3, f);
		if (ro->meta_extra[0])
			fprintf(f, ",\n  %s", ro->meta_extra);
		if (ro->probe.taken)
			fprintf(f, ",\n  \"cross_core_probe\": {\"cpus\": [%d, %d], \"round_trip_ns_before\": %s, "
				"\"round_trip_ns_after\": %s}", ro->probe.cpu[0], ro->probe.cpu[1],
				json_ns(ro->probe.before_ns, nb), json_ns(ro->probe.after_ns, na));
		if (ro->engine.steps)
			fprintf(f, ",\n  \"p2p_engine\": {\"endpoints\": %d, \"steps\": %ld, \"sync_ms_per_step\": %.4f, "
				"\"write_ms_per_step\": %.4f}", ro->engine.endpoints, ro->engine.steps,
				1e3 * ro->engine.sync_s / (double)ro->engine.steps,
				1e3 * ro->engine.write_s / (double)ro->engine.steps);
		fputs("\n}\n", f);
	} else {
		fputs(ro->meta_tail, f);
	}
	results_tmp_commit(&out);
}

static void meta_free(struct run_out *ro)
{
	free(ro->meta_head);
	free(ro->meta_tail);
	ro->meta_head = ro->meta_tail = NULL;
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
