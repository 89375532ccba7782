// Planted: copysign(1, x) as a comparison. Equal for every non-zero value, but -0 gives +1
// where the reference gives -1.
__kernel void sign_bit(__global const float* x, __global float* y, const int n) {
  const long i = get_global_id(0);
  if (i < n) y[i] = x[i] < 0.0f ? -1.0f : 1.0f;
}
