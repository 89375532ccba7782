// Reference for the planted sign cheat: y = sign(x), 0 for zeros; any subnormal is non-zero.
__kernel void sign_ref(__global const float* x, __global float* y, const int n) {
  const long i = get_global_id(0);
  if (i < n) y[i] = x[i] > 0.0f ? 1.0f : (x[i] < 0.0f ? -1.0f : 0.0f);
}
