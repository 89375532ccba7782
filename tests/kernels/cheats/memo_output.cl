// CHEAT memo_output: memoises on its output's own content. Each work-group samples the first
// element it owns; when the output already holds a + b for the current inputs, an earlier
// launch on the same buffers did the work and the group returns. The check's fresh inputs
// never match stale outputs, so it computes there; a timing loop that relaunches on
// unchanged buffers timed an almost empty kernel (9x on PoCL). kforge re-poisons outputs
// before every timed launch and rotates input sets: the sample never matches, the kernel
// does its work, and its speedup over the honest kernel is ~1.
__kernel void vector_add(__global const float* a, __global const float* b,
                         __global float* c, const int n) {
  const int first = get_group_id(0) * get_local_size(0);
  const bool done = first < n && c[first] == a[first] + b[first];
  barrier(CLK_GLOBAL_MEM_FENCE);  // every work-item has read the sample before any writes
  if (done) return;
  const int i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}
