// histogram: hist[b] = number of i with data[i] mod bins == b  (data are non-negative i32).
// Naive baseline (defaults): one element per work-item, one global atomic_inc per element.
//
// Why the scratch buffers: kforge poisons outputs before a run, so `hist` cannot be counted
// into directly. The counts go into `ws` (inout, initialised with ones: ws[b] = 1 + count) and
// the last work-group to finish (`count`, inout, initialised with one: 1 + finished groups)
// copies ws - 1 into `hist` and restores ws and count to ones. So the kernel can be launched
// any number of times in a row and ws/count compare equal against the reference.
//
// Tunables (compile-time -D defines; the fallbacks below keep the file compilable alone):
//   BLOCK    work-items per work-group (must equal the local work size)
//   ITEMS    elements per work-item (BLOCK apart)
//   PRIVATE  1: each work-group counts into a local-memory histogram (up to LOCAL_CAP bins;
//            more bins fall back to global atomics) and merges it with one atomic per bin;
//            0: every element is a global atomic
#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef ITEMS
#define ITEMS 1
#endif
#ifndef PRIVATE
#define PRIVATE 0
#endif
#define LOCAL_CAP 4096

__kernel __attribute__((reqd_work_group_size(BLOCK, 1, 1)))
void histogram(__global const int* restrict data, __global uint* restrict hist,
               volatile __global uint* ws, volatile __global uint* count,
               const int n, const int bins) {
  const int tid = (int)get_local_id(0);
  const long base = (long)get_group_id(0) * (BLOCK * ITEMS);
  __local int is_last;
#if PRIVATE
  __local uint local_hist[LOCAL_CAP];
  const bool use_local = bins <= LOCAL_CAP;
  if (use_local)
    for (int b = tid; b < bins; b += BLOCK) local_hist[b] = 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
#endif

  for (int i = 0; i < ITEMS; ++i) {
    const long idx = base + (long)i * BLOCK + tid;
    if (idx < n) {
      const uint bin = (uint)data[idx] % (uint)bins;
#if PRIVATE
      if (use_local)
        atomic_inc(&local_hist[bin]);
      else
        atomic_inc(&ws[bin]);
#else
      atomic_inc(&ws[bin]);
#endif
    }
  }

#if PRIVATE
  barrier(CLK_LOCAL_MEM_FENCE);
  if (use_local)
    for (int b = tid; b < bins; b += BLOCK) {
      const uint c = local_hist[b];
      if (c) atomic_add(&ws[b], c);
    }
#endif

  // The last work-group to finish publishes the histogram and restores the scratch buffers.
  mem_fence(CLK_GLOBAL_MEM_FENCE);
  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
  if (tid == 0) is_last = atomic_inc(count) == (uint)get_num_groups(0);  // count started at 1
  barrier(CLK_LOCAL_MEM_FENCE);
  if (is_last) {
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    for (int b = tid; b < bins; b += BLOCK) hist[b] = atomic_xchg(&ws[b], 1u) - 1u;
    if (tid == 0) atomic_xchg(count, 1u);
  }
}
