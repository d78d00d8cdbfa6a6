/* fill_check.cu — see fill_check.h. Grid-stride loops; one template per datatype. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "fill_check.h"

/* the values are integers of magnitude <= 2^24 (coll_math.h): every conversion here is exact */
template <typename T> __device__ T to_t(int64_t v) { return (T)v; }
template <> __device__ __half to_t<__half>(int64_t v) { return __float2half_rn((float)v); }
template <> __device__ __nv_bfloat16 to_t<__nv_bfloat16>(int64_t v) { return __float2bfloat16_rn((float)v); }
template <typename T> __device__ double from_t(T x) { return (double)x; }
template <> __device__ double from_t<__half>(__half x) { return (double)__half2float(x); }
template <> __device__ double from_t<__nv_bfloat16>(__nv_bfloat16 x) { return (double)__bfloat162float(x); }

#define GRID_STRIDE(i, n) \
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < (n); \
	     i += (uint64_t)gridDim.x * blockDim.x)

template <typename T>
__global__ void fill_k(T *buf, uint64_t n, struct coll_gen g, int rank, int poison, int64_t value)
{
	GRID_STRIDE(i, n)
		buf[i] = to_t<T>(poison ? value : coll_value(&g, rank, i));
}

template <typename T>
__global__ void check_k(const T *buf, uint64_t n, struct coll_expect_args a, unsigned long long *out)
{
	unsigned long long wrong = 0, first = ~0ULL;

	GRID_STRIDE(j, n)
		if (from_t<T>(buf[j]) != (double)coll_expect(&a, j)) {
			wrong++;
			if (j < first)
				first = j;
		}
	if (wrong) {
		atomicAdd(&out[0], wrong);
		atomicMin(&out[1], first);
	}
}

static unsigned blocks_for(uint64_t n)
{
	uint64_t b = (n + 255) / 256;

	return b == 0 ? 1 : b > 4096 ? 4096 : (unsigned)b;
}

template <typename T>
static cudaError_t fill_t(void *buf, uint64_t n, const struct coll_gen *g, int rank, int poison,
			  int64_t value, cudaStream_t s)
{
	struct coll_gen none = {};

	if (n == 0)
		return cudaSuccess;
	fill_k<T><<<blocks_for(n), 256, 0, s>>>((T *)buf, n, g ? *g : none, rank, poison, value);
	return cudaGetLastError();
}

template <typename T>
static cudaError_t check_t(const void *buf, uint64_t n, const struct coll_expect_args *a,
			   unsigned long long *out, cudaStream_t s)
{
	if (n == 0)
		return cudaSuccess;
	check_k<T><<<blocks_for(n), 256, 0, s>>>((const T *)buf, n, *a, out);
	return cudaGetLastError();
}

static cudaError_t fill_any(void *buf, uint64_t n, int dtype, const struct coll_gen *g, int rank,
			    int poison, int64_t value, cudaStream_t s)
{
	switch (dtype) {
	case COLL_FLOAT: return fill_t<float>(buf, n, g, rank, poison, value, s);
	case COLL_DOUBLE: return fill_t<double>(buf, n, g, rank, poison, value, s);
	case COLL_INT32: return fill_t<int32_t>(buf, n, g, rank, poison, value, s);
	case COLL_HALF: return fill_t<__half>(buf, n, g, rank, poison, value, s);
	case COLL_BF16: return fill_t<__nv_bfloat16>(buf, n, g, rank, poison, value, s);
	default: return cudaErrorInvalidValue;
	}
}

extern "C" cudaError_t fp_cuda_fill(void *buf, uint64_t n, int dtype, const struct coll_gen *g,
				    int rank, cudaStream_t stream)
{
	return fill_any(buf, n, dtype, g, rank, 0, 0, stream);
}

extern "C" cudaError_t fp_cuda_poison(void *buf, uint64_t n, int dtype, int64_t value,
				      cudaStream_t stream)
{
	return fill_any(buf, n, dtype, NULL, 0, 1, value, stream);
}

extern "C" cudaError_t fp_cuda_check(const void *buf, uint64_t n, int dtype,
				     const struct coll_expect_args *a, unsigned long long *out,
				     cudaStream_t stream)
{
	switch (dtype) {
	case COLL_FLOAT: return check_t<float>(buf, n, a, out, stream);
	case COLL_DOUBLE: return check_t<double>(buf, n, a, out, stream);
	case COLL_INT32: return check_t<int32_t>(buf, n, a, out, stream);
	case COLL_HALF: return check_t<__half>(buf, n, a, out, stream);
	case COLL_BF16: return check_t<__nv_bfloat16>(buf, n, a, out, stream);
	default: return cudaErrorInvalidValue;
	}
}
