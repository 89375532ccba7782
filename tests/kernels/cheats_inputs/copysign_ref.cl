// Reference for the planted negative-zero cheat: y = copysign(1, x) (the sign bit as ±1:
// -0 gives -1).
__kernel void copysign_ref(__global const float* x, __global float* y, const int n) {
  const long i = get_global_id(0);
  if (i < n) y[i] = copysign(1.0f, x[i]);
}
