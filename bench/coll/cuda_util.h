/* cuda_util.h — error checking of CUDA and NCCL calls (only for files built with them). */
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

#define CHECK_NCCL(call)                                                       \
	do {                                                                   \
		ncclResult_t r_ = (call);                                      \
		if (r_ != ncclSuccess) {                                       \
			LOG_ERROR("%s: %s", #call, ncclGetErrorString(r_));     \
			return FP_ERUNTIME;                                    \
		}                                                              \
	} while (0)

#endif
