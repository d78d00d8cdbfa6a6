/* mpi_util.c — see mpi_util.h. */
#include "mpi_util.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"

/* A wait longer than this yields every 16 polls. */
#define WAIT_YIELD_AFTER_S 5e-6

/* Idle ranks poll with a growing interval, 50 µs up to 2 ms: a short wait ends promptly, and
 * a long one costs almost no CPU. (At a fixed 100 µs, eleven idle ranks on a 2-core machine
 * took enough CPU to halve a measured pair's bandwidth.) */
#define SLEEPY_POLL_MIN_US 50
#define SLEEPY_POLL_MAX_US 2000

int mpi_wait_sleepy(MPI_Request *req, double deadline)
{
	for (long us = SLEEPY_POLL_MIN_US;; us = us * 2 > SLEEPY_POLL_MAX_US ? SLEEPY_POLL_MAX_US : us * 2) {
		int done = 0;

		CHECK_MPI(MPI_Test(req, &done, MPI_STATUS_IGNORE));
		if (done)
			return 0;
		if (deadline > 0 && clock_now() > deadline)
			return FP_ETIMEDOUT;
		clock_sleep_us(us);
	}
}

int mpi_allreduce_sleepy(int *v, MPI_Op op, MPI_Comm comm)
{
	MPI_Request req;

	CHECK_MPI(MPI_Iallreduce(MPI_IN_PLACE, v, 1, MPI_INT, op, comm, &req));
	return mpi_wait_sleepy(&req, 0);
}

int mpi_barrier_sleepy(MPI_Comm comm)
{
	MPI_Request req;

	CHECK_MPI(MPI_Ibarrier(comm, &req));
	return mpi_wait_sleepy(&req, 0);
}

int mpi_bcast_sleepy(void *buf, int bytes, int root, MPI_Comm comm)
{
	MPI_Request req;

	CHECK_MPI(MPI_Ibcast(buf, bytes, MPI_BYTE, root, comm, &req));
	return mpi_wait_sleepy(&req, 0);
}

static int wait_polling(MPI_Request *reqs, int n, double deadline, MPI_Status *st, int yield);

int mpi_wait_deadline(MPI_Request *reqs, int n, double deadline)
{
	return wait_polling(reqs, n, deadline, MPI_STATUSES_IGNORE, 0);
}

int mpi_wait_polling(MPI_Request *reqs, int n, double deadline, int yield)
{
	return wait_polling(reqs, n, deadline, MPI_STATUSES_IGNORE, yield);
}

int mpi_wait_deadline_status(MPI_Request *reqs, int n, double deadline, MPI_Status *st)
{
	return wait_polling(reqs, n, deadline, st, 0);
}

static int wait_polling(MPI_Request *reqs, int n, double deadline, MPI_Status *st, int yield)
{
	double first = 0;

	for (unsigned spin = 1;; spin++) {
		int done = 0;

		CHECK_MPI(MPI_Testall(n, reqs, &done, st));
		if (done)
			return 0;
		/* a clock read costs tens of ns: look at it every 16 polls only (a short wait, such
		 * as a shared-memory ping-pong, never reads it) */
		if ((spin & 15) == 0) {
			double now = clock_now();

			if (now > deadline)
				break;
			/* a wait that lasts hands the core over: when the peer shares this core (more
			 * ranks than cores, or other load on the others) it answers at once, instead of
			 * at the next scheduler tick; alone on its core, the call returns at once */
			if (!first)
				first = now;
			else if (yield && now - first > WAIT_YIELD_AFTER_S)
				sched_yield();
		}
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

int mpi_machine_oversubscribed(MPI_Comm comm)
{
	char id[40] = "", *all = NULL;
	int n = 0, size = 0, same = 0;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

	if (f) {
		if (!fgets(id, sizeof id, f))
			id[0] = 0;
		fclose(f);
	}
	MPI_Comm_size(comm, &size);
	if (!(all = calloc((size_t)size, sizeof id)))
		return 0;
	if (MPI_Allgather(id, sizeof id, MPI_CHAR, all, sizeof id, MPI_CHAR, comm) == MPI_SUCCESS)
		for (n = 0; n < size; n++)
			same += id[0] && !strncmp(all + (size_t)n * sizeof id, id, sizeof id);
	free(all);
	return cpus > 0 && same > cpus;
}

int mpi_rc(int rc, const char *call, const char *file, int line)
{
	char s[MPI_MAX_ERROR_STRING];
	int len = 0;

	if (rc == MPI_SUCCESS)
		return 0;
	MPI_Error_string(rc, s, &len);
	log_msg("error", file, line, "%s: %s", call, s);
	return FP_ERUNTIME;
}
