// Planted (CUDA twin): copysign(1, x) as a comparison: +1 for -0.
extern "C" __global__ void sign_bit(const float* x, float* y, int n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] < 0.0f ? -1.0f : 1.0f;
}
