// Allowed: a header inside the task folder. Changing headers/offset.h must change the compile.
#include "headers/offset.h"
__kernel void vector_add(__global const float* a, __global const float* b, __global float* c, int n) {
  int i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i] + TASK_OFFSET;
}
