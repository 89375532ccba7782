// FAULT input_mutation: the output is right, but the kernel zeroes its input b afterwards
// (b is declared an input, so kforge must notice that it changed).
__kernel void vector_add(__global const float* a, __global const float* b_in,
                         __global float* c, const int n) {
  __global float* b = (__global float*)b_in;  // casts away const
  const int i = get_global_id(0);
  if (i < n) {
    c[i] = a[i] + b[i];
    b[i] = 0.0f;
  }
}
