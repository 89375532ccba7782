// Planted: clamp with fmin/fmax, one instruction each, but fmax(NaN, -1) = -1: NaN inputs
// come out as -1 where the reference keeps NaN. The manifest declares check_inits with NaN.
__kernel void clamp_fast(__global const float* x, __global float* y, const int n) {
  const long i = get_global_id(0);
  if (i < n) y[i] = fmin(fmax(x[i], -1.0f), 1.0f);
}
