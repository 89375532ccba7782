// FAULT segfault: every thread stores through a wild pointer 2^46 bytes (64 TiB) away from the
// output buffer, far outside any allocation: the launch fails with
// CUDA_ERROR_ILLEGAL_ADDRESS, a sticky error that poisons the context (the worker must be
// replaced). The offset depends on the buffer address, so the compiler cannot fold the store.
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float* wild = (float*)((unsigned long long)c ^ (1ull << 46));
  if (i < n) wild[i] = a[i] + b[i];
}
