// FAULT unwritten_output: the last 3 elements of the output are never written (an
// off-by-some bounds check), so they keep kforge's NaN poison.
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n - 3) c[i] = a[i] + b[i];
}
