/* measure.c — the skeleton every measuring subcommand shares (cmd.h). */
#include "cmd.h"

#include "core/clock.h"
#include "core/launcher.h"
#include "core/log.h"
#include "core/mpi_util.h"
#include "core/run.h"
#include "core/world.h"

/* How long a rank whose stage failed waits for the others before it ends the job. */
#define FAILED_WAIT_S 60

static int exit_code_of(int rc)
{
	return rc == 0 ? FP_EXIT_OK : rc == 1 ? FP_EXIT_CHECK : rc == FP_EUSAGE ? FP_EXIT_USAGE : FP_EXIT_RUNTIME;
}

/* MPI up, the world; the stage's check; the results directory; the body on every rank; every
 * rank waits asleep for the others; meta.json finished and the exit code agreed. */
static int run_command(const struct cmd_stage *s, int argc, char **argv, const struct results_where *where,
		       int progress, void *opts)
{
	struct world w;
	struct run_out ro;
	MPI_Request req;
	int rc, code;

	if (s->prepare && (rc = s->prepare(opts))) {
		LOG_ERROR("%s: could not set up the process before MPI_Init", s->name);
		return exit_code_of(rc);
	}
	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	rc = world_create(&w, where->node_names);
	if (rc == FP_EUSAGE) { /* agreed on every rank */
		world_destroy(&w);
		MPI_Finalize();
		return FP_EXIT_USAGE;
	}
	if (rc) {
		MPI_Abort(MPI_COMM_WORLD, FP_EXIT_RUNTIME);
		return FP_EXIT_RUNTIME;
	}
	log_set_identity(w.host, w.rank);
	rc = s->check ? s->check(&w, opts) : 0;
	if (rc == 0)
		rc = run_begin(&ro, &w, where, s->name, argc, argv, progress);
	if (rc) {
		world_destroy(&w);
		MPI_Finalize();
		return exit_code_of(rc);
	}
	run_interrupts(&ro, &w);
	rc = s->body(&w, &ro, opts);
	/* ranks with nothing (left) to do wait here, asleep. A rank whose stage failed at run
	 * time may have left the others inside a collective: it waits a bounded time only. */
	MPI_Ibarrier(MPI_COMM_WORLD, &req);
	if (rc == FP_ETIMEDOUT || mpi_wait_sleepy(&req, rc < 0 && rc != FP_EUSAGE ? clock_now() + FAILED_WAIT_S : 0)) {
		/* the job cannot end together. The rows measured so far are on disk; meta.json
		 * says how it ended if rank 0 can. */
		LOG_ERROR("the ranks cannot finish together: ending the job");
		if (w.rank == 0)
			run_meta_abort(&ro, &w, FP_EXIT_RUNTIME);
		MPI_Abort(MPI_COMM_WORLD, FP_EXIT_RUNTIME);
		return FP_EXIT_RUNTIME;
	}
	code = run_end(&ro, &w, exit_code_of(rc));
	world_destroy(&w);
	MPI_Finalize();
	return code;
}

int cmd_measure(const struct cmd_stage *s, int argc, char **argv, int parse_rc, const char *err,
		const struct results_where *where, int progress, void *opts)
{
	if (parse_rc == 1) {
		s->usage(stdout);
		return FP_EXIT_OK;
	}
	if (parse_rc)
		return launcher_usage_error(s->name, err);
	return run_command(s, argc, argv, where, progress, opts);
}
