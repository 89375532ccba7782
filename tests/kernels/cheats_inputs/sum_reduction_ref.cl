// sum_reduction: out[0] = sum of x[0..n)  (naive baseline: local-memory tree reduction per
// work-group, one float atomic add per group, and the last group to finish publishes the total).
//
// Why the two scratch buffers: kforge poisons outputs with NaN before a run, so `out` cannot be
// accumulated into. Instead the kernel accumulates into `acc` and counts finished groups in
// `count`, both `inout` buffers initialised with ones. Between launches they always hold
// exactly 1.0f and 1u again (the last group restores them), so the kernel can be launched any
// number of times in a row and `acc`/`count` compare equal against the reference.
// OpenCL 1.2 has no float atomic add: it is a compare-and-swap loop on the bit pattern.
//
// Tunables (compile-time -D defines; the fallbacks below keep the file compilable alone):
//   BLOCK    work-items per work-group (power of two; must equal the local work size)
//   ITEMS    elements each work-item sums before the tree reduction
//   STRIDED  1: a work-item's ITEMS elements are BLOCK apart; 0: contiguous
#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef ITEMS
#define ITEMS 1
#endif
#ifndef STRIDED
#define STRIDED 1
#endif

inline void atomic_add_f32(volatile __global float* p, float v) {
  volatile __global unsigned int* bits = (volatile __global unsigned int*)p;
  unsigned int old_bits = *bits;
  unsigned int seen;
  do {
    seen = old_bits;
    const unsigned int new_bits = as_uint(as_float(seen) + v);
    old_bits = atomic_cmpxchg(bits, seen, new_bits);
  } while (old_bits != seen);
}

__kernel __attribute__((reqd_work_group_size(BLOCK, 1, 1)))
void sum_reduction_ref(__global const float* restrict x, __global float* restrict out,
                   volatile __global float* acc, volatile __global unsigned int* count,
                   const int n) {
  __local float partial[BLOCK];
  const int tid = (int)get_local_id(0);
  const long base = (long)get_group_id(0) * (BLOCK * ITEMS);

  float v = 0.0f;
  for (int i = 0; i < ITEMS; ++i) {
#if STRIDED
    const long idx = base + (long)i * BLOCK + tid;
#else
    const long idx = base + (long)tid * ITEMS + i;
#endif
    if (idx < n) v += x[idx];
  }
  partial[tid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int stride = BLOCK / 2; stride > 0; stride >>= 1) {
    if (tid < stride) partial[tid] += partial[tid + stride];
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  if (tid == 0) {
    atomic_add_f32(acc, partial[0]);
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    const unsigned int ticket = atomic_inc(count);            // count started at 1
    if (ticket == (unsigned int)get_num_groups(0)) {          // every group has added its sum
      const float total = atomic_xchg(acc, 1.0f);             // read and restore
      out[0] = total - 1.0f;
      atomic_xchg(count, 1u);
    }
  }
}
