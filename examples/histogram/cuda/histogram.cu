// histogram: hist[b] = number of i with data[i] mod bins == b  (data are non-negative i32).
// Naive baseline (defaults): one element per thread, one global atomicAdd per element, so
// every thread in the grid contends for the same `bins` counters.
//
// Why the scratch buffers: kforge poisons outputs before a run, so `hist` cannot be counted
// into directly. The counts go into `ws` (inout, initialised with ones: ws[b] = 1 + count) and
// the last block to finish (`count`, inout, initialised with one: 1 + finished blocks) copies
// ws - 1 into `hist` and restores ws and count to ones. So the kernel can be launched any
// number of times in a row and ws/count compare equal against the reference.
//
// Tunables (compile-time -D defines; the fallbacks below keep the file compilable alone):
//   BLOCK    threads per block (must equal the launch block size)
//   ITEMS    elements per thread (BLOCK apart, coalesced)
//   PRIVATE  1: each block counts into a shared-memory histogram (dynamic shared memory of
//            4*bins bytes, see launch.shared_mem) and merges it with one atomic per bin;
//            0: every element is a global atomicAdd
#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef ITEMS
#define ITEMS 1
#endif
#ifndef PRIVATE
#define PRIVATE 0
#endif

extern "C" __global__ void histogram(const int* __restrict__ data, unsigned int* __restrict__ hist,
                                     unsigned int* ws, unsigned int* count, int n, int bins) {
  const int tid = threadIdx.x;
  const long long base = (long long)blockIdx.x * (BLOCK * ITEMS);
  __shared__ int is_last;
#if PRIVATE
  extern __shared__ unsigned int local_hist[];  // bins counters
  for (int b = tid; b < bins; b += BLOCK) local_hist[b] = 0u;
  __syncthreads();
#endif

#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const long long idx = base + (long long)i * BLOCK + tid;
    if (idx < n) {
      const unsigned int bin = (unsigned int)data[idx] % (unsigned int)bins;
#if PRIVATE
      atomicAdd(&local_hist[bin], 1u);
#else
      atomicAdd(&ws[bin], 1u);
#endif
    }
  }

#if PRIVATE
  __syncthreads();
  for (int b = tid; b < bins; b += BLOCK) {
    const unsigned int c = local_hist[b];
    if (c) atomicAdd(&ws[b], c);
  }
#endif

  // The last block to finish publishes the histogram and restores the scratch buffers.
  __threadfence();
  __syncthreads();
  if (tid == 0) is_last = atomicAdd(count, 1u) == gridDim.x;  // count started at 1
  __syncthreads();
  if (is_last) {
    __threadfence();
    for (int b = tid; b < bins; b += BLOCK) hist[b] = atomicExch(&ws[b], 1u) - 1u;
    if (tid == 0) atomicExch(count, 1u);
  }
}
