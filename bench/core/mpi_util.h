/* mpi_util.h — MPI error checking and waiting helpers shared by the MPI-facing code. */
#ifndef FP_MPI_UTIL_H
#define FP_MPI_UTIL_H

#include <mpi.h>

#include "log.h"

/* The result of an MPI call as 0, or FP_ERUNTIME after logging `host rank file:line call:
 * reason` (the communicators use MPI_ERRORS_RETURN, set by the command layer). For code that
 * must release what it holds: `if ((rc = MPI_RC(MPI_Foo(...)))) goto out;`. */
#define MPI_RC(call) mpi_rc((call), #call, __FILE__, __LINE__)
int mpi_rc(int rc, const char *call, const char *file, int line);

/* The same, returning FP_ERUNTIME from the caller: only where nothing is held. */
#define CHECK_MPI(call)                                                        \
	do {                                                                   \
		if (MPI_RC(call))                                              \
			return FP_ERUNTIME;                                    \
	} while (0)

/* The MPI library's current values of its control variables names[0..n-1] (MPI_T; strings
 * and integers, as text), into out + i * stride (stride bytes each); known[i] is 1 where the
 * library has that variable and it was read, else 0 (out left alone). Any time after
 * MPI_Init. */
void mpi_cvars_read(const char *const *names, int n, char *out, size_t stride, int *known);

/* Wait for a request without spinning: MPI_Test, then a short sleep, until it completes or
 * the deadline (clock_now() seconds; <= 0 for none) passes. For ranks that are idle while
 * others measure. Returns 0, FP_ETIMEDOUT or FP_ERUNTIME. */
int mpi_wait_sleepy(MPI_Request *req, double deadline);

/* Collectives for ranks that may wait long (while others measure or write): the request is
 * waited for asleep (mpi_wait_sleepy), never spinning as the blocking calls do. An int
 * all-reduced in place; a barrier. 0 or FP_ERUNTIME. */
int mpi_allreduce_sleepy(int *v, MPI_Op op, MPI_Comm comm);
int mpi_barrier_sleepy(MPI_Comm comm);
int mpi_bcast_sleepy(void *buf, int bytes, int root, MPI_Comm comm);

/* Wait for n requests by polling (the measuring path: no sleep), checking the deadline every
 * few hundred polls. On timeout every pending request is cancelled and freed. */
/* From now on (on = 1) the polls below yield the core between tries: this process shares its
 * core with the peer it measures against (p2p on a machine with more endpoints than cores),
 * and a spin would hold the core the peer needs to answer. */
void mpi_wait_yield(int on);
int mpi_wait_deadline(MPI_Request *reqs, int n, double deadline);
/* The same, keeping the requests' statuses (st: n of them), e.g. to read a received count. */
int mpi_wait_deadline_status(MPI_Request *reqs, int n, double deadline, MPI_Status *st);

/* Collective over comm: how many of its ranks run on this machine (the same kernel boot id:
 * every node of the emulated cluster counts), and whether they outnumber this process's
 * cores (*over; then a rank that waits must sleep or yield, never spin). 1 and 0 when the
 * boot id cannot be read. */
int mpi_machine_ranks(MPI_Comm comm, int *over);


#endif
