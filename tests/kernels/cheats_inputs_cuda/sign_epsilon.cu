// Planted (CUDA twin): sign(x) as x / (|x| + 1e-30): ~0 instead of ±1 on subnormals.
extern "C" __global__ void sign_fast(const float* x, float* y, int n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] / (fabsf(x[i]) + 1e-30f);
}
