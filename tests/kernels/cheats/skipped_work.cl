// CHEAT skipped_work: does only the first half of the elements (twice as fast).
__kernel void vector_add(__global const float* a, __global const float* b,
                         __global float* c, const int n) {
  const int i = get_global_id(0);
  if (i < n / 2) c[i] = a[i] + b[i];
}
