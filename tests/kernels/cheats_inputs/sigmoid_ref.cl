// Reference for the planted range cheat: the logistic sigmoid.
__kernel void sigmoid_ref(__global const float* x, __global float* y, const int n) {
  const long i = get_global_id(0);
  if (i < n) y[i] = 1.0f / (1.0f + exp(-x[i]));
}
