// FAULT out_of_bounds_write: the output is right, but the first 8 work-items also write the
// 8 floats just past the end of c (c[n] .. c[n+7]), into kforge's guard zone.
__kernel void vector_add(__global const float* a, __global const float* b,
                         __global float* c, const int n) {
  const int i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
  if (i < 8) c[n + i] = 42.0f;
}
