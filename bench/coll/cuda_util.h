/* cuda_util.h — error checking of CUDA calls (only for files built with CUDA). */
#ifndef FP_CUDA_UTIL_H
#define FP_CUDA_UTIL_H

#include <cuda_runtime.h>
#include <nccl.h>

#include "core/log.h"

/* Log `host rank file:line call: reason` and return FP_ERUNTIME from the caller. */
#define CHECK_CUDA(call)                                                       \
	do {                                                                   \
		cudaError_t e_ = (call);                                       \
		if (e_ != cudaSuccess) {                                       \
			LOG_ERROR("%s: %s", #call, cudaGetErrorString(e_));     \
			return FP_ERUNTIME;                                    \
		}                                                              \
	} while (0)

/* NCCL's results go through coll_nccl.c's nccl_done: a failure there must abort the communicator
 * and close the group, which a plain return cannot. */

#endif
