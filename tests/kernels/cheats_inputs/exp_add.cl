// y = exp(a) + b. Honest (it is its own reference): a draw of large values overflows exp(a)
// in the reference itself, so that draw must be skipped for a (kept for b), never failed.
__kernel void exp_add(__global const float* a, __global const float* b, __global float* y, const int n) {
  const long i = get_global_id(0);
  if (i < n) y[i] = exp(a[i]) + b[i];
}
