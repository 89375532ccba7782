// CHEAT aliased_output: writes the result into the input b (in place, no output traffic
// of its own) and never writes the output c.
__kernel void vector_add(__global const float* a, __global const float* b_in,
                         __global float* c, const int n) {
  __global float* b = (__global float*)b_in;  // casts away const
  const int i = get_global_id(0);
  if (i < n) b[i] = a[i] + b[i];
}
