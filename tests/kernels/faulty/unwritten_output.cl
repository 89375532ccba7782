// FAULT unwritten_output: the last 3 elements of the output are never written (an
// off-by-some bounds check), so they keep kforge's NaN poison.
__kernel void vector_add(__global const float* a, __global const float* b,
                         __global float* c, const int n) {
  const int i = get_global_id(0);
  if (i < n - 3) c[i] = a[i] + b[i];
}
