/* run.c — see run.h. */
#include "run.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "mpi_util.h"

static void meta_write(const struct run_out *ro, const struct world *w, const char *status, int exit_code)
{
	char lib[MPI_MAX_LIBRARY_VERSION_STRING], when[32], end[32];
	int len = 0, ver, sub;
	time_t now = time(NULL);
	FILE *f = results_tmp_open(ro->dir, "meta.json");

	if (!f)
		return;
	MPI_Get_library_version(lib, &len);
	lib[strcspn(lib, "\n")] = 0;
	MPI_Get_version(&ver, &sub);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&ro->started));
	strftime(end, sizeof end, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
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
	if (strcmp(status, "running"))
		fprintf(f, "  \"finished_utc\": \"%s\",\n  \"exit_code\": %d,\n", end, exit_code);
	fprintf(f, "  \"status\": \"%s\",\n  \"ranks\": %d,\n  \"nodes\": %d,\n  \"endpoints\": %d,\n",
		status, w->size, w->nnodes, w->nep);
	fputs("  \"mpi_library\": ", f);
	results_json_string(f, lib);
	fprintf(f, ",\n  \"mpi_standard\": \"%d.%d\",\n  \"hosts\": [", ver, sub);
	for (int e = 0; e < w->nep; e++) {
		fputs(e ? ", " : "", f);
		results_json_string(f, w->ep_label[e]);
	}
	fputs("]\n}\n", f);
	results_tmp_commit(f, ro->dir, "meta.json");
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
			fprintf(stderr, "fabprobe %s: %s\n", command, err);
		else {
			ro->run_id = strrchr(ro->dir, '/') ? strrchr(ro->dir, '/') + 1 : ro->dir;
			meta_write(ro, w, "running", 0);
		}
	}
	MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
	return rc;
}

int run_end(struct run_out *ro, const struct world *w, int exit_code)
{
	int code = exit_code;

	if (w->rank == 0) {
		meta_write(ro, w, code == FP_EXIT_OK ? "ok" : code == FP_EXIT_CHECK ? "failed" : "error", code);
		printf("results: %s\n", ro->dir);
		fflush(stdout);
	}
	MPI_Allreduce(MPI_IN_PLACE, &code, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	return code;
}

void run_meta_abort(const struct run_out *ro, const struct world *w, int exit_code)
{
	meta_write(ro, w, "error", exit_code);
}
