// Planted (CUDA twin): a "sum" that never reads x and writes n/2.
extern "C" __global__ void sum_reduction(const float* __restrict__ x, float* __restrict__ out, float* acc,
                                         unsigned int* count, int n) {
  if (blockIdx.x == 0 && threadIdx.x == 0) out[0] = 0.5f * (float)n;
}
