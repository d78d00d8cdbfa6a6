/* fill_check.h — the CUDA kernels of the NCCL backend, behind plain C functions: fill a device
 * buffer with coll_math.h's input values (or a poison value), and check a result buffer
 * against coll_expect. The values are computed by the same coll_math.h code as the host's.
 * Every function only enqueues on the stream and returns the launch error. */
#ifndef FP_FILL_CHECK_H
#define FP_FILL_CHECK_H

#include <cuda_runtime.h>
#include <stdint.h>

#include "coll/coll_math.h"

#ifdef __cplusplus
extern "C" {
#endif

/* buf[i] = coll_value(g, rank, i) for i < n, in dtype (enum coll_dtype_id) */
cudaError_t fp_cuda_fill(void *buf, uint64_t n, int dtype, const struct coll_gen *g, int rank,
			 cudaStream_t stream);
/* buf[i] = value for i < n (the value must be exact in dtype) */
cudaError_t fp_cuda_poison(void *buf, uint64_t n, int dtype, int64_t value, cudaStream_t stream);
/* For j < n: count buf[j] != coll_expect(a, j) into out[0] and the smallest such j into out[1].
 * out (device memory) must hold { 0, UINT64_MAX } before the call. */
cudaError_t fp_cuda_check(const void *buf, uint64_t n, int dtype, const struct coll_expect_args *a,
			  unsigned long long *out, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
