// vector_add: c[i] = a[i] + b[i]  (naive baseline, one element per work-item by default)
//
// Tunables (compile-time -D defines; the fallbacks below keep the file compilable alone):
//   BLOCK    work-items per work-group (must equal the local work size)
//   ITEMS    elements handled by each work-item
//   STRIDED  1: a work-item's ITEMS elements are BLOCK apart; 0: they are contiguous
// The global size is grid*BLOCK, which overshoots n: every access is bounds-checked.
#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef ITEMS
#define ITEMS 1
#endif
#ifndef STRIDED
#define STRIDED 1
#endif

__kernel __attribute__((reqd_work_group_size(BLOCK, 1, 1)))
void vector_add(__global const float* restrict a, __global const float* restrict b,
                __global float* restrict c, const int n) {
  const long base = (long)get_group_id(0) * (BLOCK * ITEMS);
  const int lid = (int)get_local_id(0);
  for (int i = 0; i < ITEMS; ++i) {
#if STRIDED
    const long idx = base + (long)i * BLOCK + lid;
#else
    const long idx = base + (long)lid * ITEMS + i;
#endif
    if (idx < n) c[idx] = a[idx] + b[idx];
  }
}
