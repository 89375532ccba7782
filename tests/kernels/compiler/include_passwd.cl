// Reads a file outside the task through the compiler: its first line would come back in the
// compile error. Must be refused: absolute path.
#include "/etc/passwd"
__kernel void vector_add(__global const float* a, __global const float* b, __global float* c, int n) {
  int i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}
