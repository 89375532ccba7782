// FAULT wrong_result: every element is off by 1e-3, beyond the f32 default tolerance
// (atol 1e-4 + rtol 1e-4 * |ref| <= 3e-4 for |ref| <= 2), yet small enough to look plausible.
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i] + 1e-3f;
}
