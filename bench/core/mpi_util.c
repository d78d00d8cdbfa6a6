/* mpi_util.c — see mpi_util.h. */
#include "mpi_util.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "results.h"

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

static int wait_yield; /* mpi_wait_yield */

void mpi_wait_yield(int on)
{
	wait_yield = on;
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
		if (wait_yield)
			sched_yield();
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

int mpi_machine_ranks(MPI_Comm comm, int *over)
{
	char id[40] = "", *all;
	int size = 0, same = 1;
	cpu_set_t cpus;

	*over = 0;
	results_boot_id(id, sizeof id);
	MPI_Comm_size(comm, &size);
	if (!(all = calloc((size_t)size, sizeof id)))
		return 1;
	if (MPI_Allgather(id, sizeof id, MPI_CHAR, all, sizeof id, MPI_CHAR, comm) == MPI_SUCCESS && id[0]) {
		same = 0;
		for (int e = 0; e < size; e++)
			same += !strncmp(all + (size_t)e * sizeof id, id, sizeof id);
	}
	free(all);
	if (sched_getaffinity(0, sizeof cpus, &cpus) == 0)
		*over = same > CPU_COUNT(&cpus);
	return same;
}

/* The control variable at index i, as text (strings and integers), into out: 0, or -1. */
static int cvar_read(int i, MPI_Datatype dt, char *out, size_t len)
{
	MPI_T_cvar_handle h;
	int count = 0, rc = -1;

	if (MPI_T_cvar_handle_alloc(i, NULL, &h, &count) != MPI_SUCCESS)
		return -1;
	if (dt == MPI_CHAR && count > 0) {
		char *buf = calloc((size_t)count + 1, 1);

		if (buf && MPI_T_cvar_read(h, buf) == MPI_SUCCESS) {
			snprintf(out, len, "%s", buf);
			rc = 0;
		}
		free(buf);
	} else if (dt == MPI_INT && count == 1) {
		int v;

		if (MPI_T_cvar_read(h, &v) == MPI_SUCCESS) {
			snprintf(out, len, "%d", v);
			rc = 0;
		}
	}
	MPI_T_cvar_handle_free(&h);
	return rc;
}

void mpi_cvars_read(const char *const *names, int n, char *out, size_t stride, int *known)
{
	int provided, nvars = 0;

	for (int k = 0; k < n; k++)
		known[k] = 0;
	if (!n || MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
		return;
	if (MPI_T_cvar_get_num(&nvars) != MPI_SUCCESS)
		nvars = 0;
	for (int i = 0; i < nvars; i++) {
		char name[256], desc[8];
		int nlen = sizeof name, dlen = sizeof desc, verb, bind, scope;
		MPI_Datatype dt;
		MPI_T_enum en;

		if (MPI_T_cvar_get_info(i, name, &nlen, &verb, &dt, &en, desc, &dlen, &bind, &scope) != MPI_SUCCESS)
			continue;
		for (int k = 0; k < n; k++)
			if (!known[k] && !strcmp(names[k], name) && cvar_read(i, dt, out + (size_t)k * stride, stride) == 0)
				known[k] = 1;
	}
	MPI_T_finalize();
}
