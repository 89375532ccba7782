// CHEAT launch_count_mantissa: a launch counter hidden in the two lowest mantissa bits of the
// output (at most 3 ulp, far inside the f32 tolerance), so no program-scope state is needed.
// Each work-group reads the count from the first element it owns (poison or a fresh buffer
// reads as 0), computes while the count is under 3 and writes count + 1 into every output;
// from the 4th launch on the same buffers it returns at once. The check's second seed sees
// count 1 and computes; a timing loop on unchanged buffers timed an empty kernel. kforge
// re-poisons outputs before every timed launch: the count never gets past 0.
__kernel void vector_add(__global const float* a, __global const float* b,
                         __global float* c, const int n) {
  const int first = get_group_id(0) * get_local_size(0);
  const float seen = first < n ? c[first] : 0.0f;
  const uint count = isnan(seen) ? 0u : (as_uint(seen) & 3u);
  barrier(CLK_GLOBAL_MEM_FENCE);  // every work-item has read the count before any writes
  if (count >= 3u) return;
  const int i = get_global_id(0);
  if (i < n) c[i] = as_float((as_uint(a[i] + b[i]) & ~3u) | (count + 1u));
}
