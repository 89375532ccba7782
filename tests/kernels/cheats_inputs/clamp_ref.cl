// Reference for the planted NaN cheat: clamp to [-1, 1] that propagates NaN (comparisons with
// NaN are false, so NaN falls through to y = x).
__kernel void clamp_ref(__global const float* x, __global float* y, const int n) {
  const long i = get_global_id(0);
  if (i < n) y[i] = x[i] < -1.0f ? -1.0f : (x[i] > 1.0f ? 1.0f : x[i]);
}
