// vector_add: c[i] = a[i] + b[i]  (naive baseline, one element per thread by default)
//
// Tunables (compile-time -D defines; the fallbacks below keep the file compilable alone):
//   BLOCK    threads per block (must equal the launch block size)
//   ITEMS    elements handled by each thread
//   STRIDED  1: a thread's ITEMS elements are BLOCK apart (coalesced);
//            0: they are contiguous (each thread walks its own run; uncoalesced)
#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef ITEMS
#define ITEMS 1
#endif
#ifndef STRIDED
#define STRIDED 1
#endif

extern "C" __global__ void vector_add(const float* __restrict__ a, const float* __restrict__ b,
                                      float* __restrict__ c, int n) {
  const long long base = (long long)blockIdx.x * (BLOCK * ITEMS);
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
#if STRIDED
    const long long idx = base + (long long)i * BLOCK + threadIdx.x;
#else
    const long long idx = base + (long long)threadIdx.x * ITEMS + i;
#endif
    if (idx < n) c[idx] = a[idx] + b[idx];
  }
}
