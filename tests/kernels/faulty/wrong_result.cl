// FAULT wrong_result: every element is off by 1e-3, beyond the f32 default tolerance
// (atol 1e-4 + rtol 1e-4 * |ref| <= 3e-4 for |ref| <= 2), yet small enough to look plausible.
__kernel void vector_add(__global const float* a, __global const float* b,
                         __global float* c, const int n) {
  const int i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i] + 1e-3f;
}
