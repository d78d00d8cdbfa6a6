/* mpi_util.h — MPI error checking and waiting helpers shared by the MPI-facing code. */
#ifndef FP_MPI_UTIL_H
#define FP_MPI_UTIL_H

#include <mpi.h>

#include "log.h"

/* Log `host rank file:line call: reason` and return FP_ERUNTIME from the caller. The
 * communicators must use MPI_ERRORS_RETURN (set in main). */
#define CHECK_MPI(call)                                                        \
	do {                                                                   \
		int rc_ = (call);                                              \
		if (rc_ != MPI_SUCCESS) {                                      \
			char s_[MPI_MAX_ERROR_STRING];                         \
			int l_ = 0;                                            \
			MPI_Error_string(rc_, s_, &l_);                        \
			LOG_ERROR("%s: %s", #call, s_);                        \
			return FP_ERUNTIME;                                    \
		}                                                              \
	} while (0)

/* Wait for a request without spinning: MPI_Test, then a short sleep, until it completes or
 * the deadline (clock_now() seconds; <= 0 for none) passes. For ranks that are idle while
 * others measure. Returns 0, FP_ETIMEDOUT or FP_ERUNTIME. */
int mpi_wait_sleepy(MPI_Request *req, double deadline);

/* Wait for n requests by polling (the measuring path: no sleep), checking the deadline every
 * few hundred polls. On timeout every pending request is cancelled and freed. */
int mpi_wait_deadline(MPI_Request *reqs, int n, double deadline);
/* The same, keeping the requests' statuses (st: n of them), e.g. to read a received count. */
int mpi_wait_deadline_status(MPI_Request *reqs, int n, double deadline, MPI_Status *st);


#endif
