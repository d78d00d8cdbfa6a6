/* mpi_util.c — see mpi_util.h. */
#include "mpi_util.h"

#include <stdlib.h>

#include "clock.h"

/* Idle ranks poll every 100 µs: negligible CPU, and barrier exit a tenth of a millisecond
 * late at worst. */
#define SLEEPY_POLL_US 100

int mpi_wait_sleepy(MPI_Request *req, double deadline)
{
	for (;;) {
		int done = 0;

		CHECK_MPI(MPI_Test(req, &done, MPI_STATUS_IGNORE));
		if (done)
			return 0;
		if (deadline > 0 && clock_now() > deadline)
			return FP_ETIMEDOUT;
		clock_sleep_us(SLEEPY_POLL_US);
	}
}

int mpi_wait_deadline(MPI_Request *reqs, int n, double deadline)
{
	return mpi_wait_deadline_status(reqs, n, deadline, MPI_STATUSES_IGNORE);
}

int mpi_wait_deadline_status(MPI_Request *reqs, int n, double deadline, MPI_Status *st)
{
	for (unsigned spin = 1;; spin++) {
		int done = 0;

		CHECK_MPI(MPI_Testall(n, reqs, &done, st));
		if (done)
			return 0;
		/* a clock read costs tens of ns: look at it only every 256 polls */
		if ((spin & 255) == 0 && clock_now() > deadline)
			break;
	}
	for (int i = 0; i < n; i++) {
		if (reqs[i] == MPI_REQUEST_NULL)
			continue;
		/* a receive is cancelled; a send that cannot be is abandoned: its buffer stays
		 * allocated until the transport closes, and its tag is never reused */
		MPI_Cancel(&reqs[i]);
		MPI_Request_free(&reqs[i]);
	}
	return FP_ETIMEDOUT;
}

int mpi_launcher_rank0(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
					     "SLURM_PROCID" };

	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
		if (getenv(vars[i]))
			return atoi(getenv(vars[i])) == 0;
	return 1;
}
