// Includes a file of the task folder that is a symlink to a file outside it. Must be refused.
#include "escape.h"
__kernel void vector_add(__global const float* a, __global const float* b, __global float* c, int n) {
  int i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i] + OUTSIDE_OFFSET;
}
