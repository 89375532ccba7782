// CHEAT stale_read: computes nothing and hopes its output buffer still holds the answer the
// reference left in memory cuMemAlloc hands out again. kforge uploads poison into every
// output and scrubs the reference's outputs before freeing them, so this must fail.
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = c[i] + 0.0f * (a[i] + b[i]);
}
