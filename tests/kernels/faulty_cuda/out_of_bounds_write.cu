// FAULT out_of_bounds_write: the output is right, but the first 8 threads also write the 8
// floats just past the end of c (c[n] .. c[n+7]), into kforge's guard zone. On a GPU this is
// usually silent (the allocation granularity hides it): only the guard check can catch it.
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
  if (i < 8) c[n + i] = 42.0f;
}
