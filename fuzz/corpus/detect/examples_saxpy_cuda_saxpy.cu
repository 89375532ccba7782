// saxpy: y[i] = alpha * x[i] + y[i]  (in place; naive baseline, one element per thread)
//
// Tunables (compile-time -D defines; the fallbacks below keep the file compilable alone):
//   BLOCK    threads per block (must equal the launch block size)
//   ITEMS    elements handled by each thread
//   STRIDED  1: a thread's ITEMS elements are BLOCK apart (coalesced); 0: contiguous
#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef ITEMS
#define ITEMS 1
#endif
#ifndef STRIDED
#define STRIDED 1
#endif

extern "C" __global__ void saxpy(int n, float alpha, const float* __restrict__ x,
                                 float* __restrict__ y) {
  const long long base = (long long)blockIdx.x * (BLOCK * ITEMS);
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
#if STRIDED
    const long long idx = base + (long long)i * BLOCK + threadIdx.x;
#else
    const long long idx = base + (long long)threadIdx.x * ITEMS + i;
#endif
    if (idx < n) y[idx] = alpha * x[idx] + y[idx];
  }
}
