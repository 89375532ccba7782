// CHEAT lowered_precision: computes in half precision (__half), error up to ~1e-3 relative,
// beyond the f32 tolerance (atol = rtol = 1e-4).
#include <cuda_fp16.h>
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = __half2float(__hadd(__float2half(a[i]), __float2half(b[i])));
}
