// sum_reduction: out[0] = sum of x[0..n)  (naive baseline: shared-memory tree reduction per
// block, one float atomicAdd per block, and the last block to finish publishes the total).
//
// Why the two scratch buffers: kforge poisons outputs with NaN before a run, so `out` cannot be
// accumulated into. Instead the kernel accumulates into `acc` and counts finished blocks in
// `count`, both `inout` buffers initialised with ones. Between launches they always hold
// exactly 1.0f and 1u again (the last block restores them), so the kernel can be launched any
// number of times in a row and `acc`/`count` compare equal against the reference.
//   acc[0]   = 1.0f + running total of the block sums
//   count[0] = 1 + number of blocks that have added their sum
//
// Tunables (compile-time -D defines; the fallbacks below keep the file compilable alone):
//   BLOCK    threads per block (power of two; must equal the launch block size)
//   ITEMS    elements each thread sums before the tree reduction
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

extern "C" __global__ void sum_reduction_ref(const float* __restrict__ x, float* __restrict__ out,
                                         float* acc, unsigned int* count, int n) {
  __shared__ float partial[BLOCK];
  const int tid = threadIdx.x;
  const long long base = (long long)blockIdx.x * (BLOCK * ITEMS);

  float v = 0.0f;
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
#if STRIDED
    const long long idx = base + (long long)i * BLOCK + tid;
#else
    const long long idx = base + (long long)tid * ITEMS + i;
#endif
    if (idx < n) v += x[idx];
  }
  partial[tid] = v;
  __syncthreads();
  for (int stride = BLOCK / 2; stride > 0; stride >>= 1) {
    if (tid < stride) partial[tid] += partial[tid + stride];
    __syncthreads();
  }

  if (tid == 0) {
    atomicAdd(acc, partial[0]);
    __threadfence();
    const unsigned int ticket = atomicAdd(count, 1u);  // count started at 1
    if (ticket == gridDim.x) {                          // every block has added its sum
      const float total = atomicExch(acc, 1.0f);        // read and restore
      out[0] = total - 1.0f;
      atomicExch(count, 1u);
    }
  }
}
