// CHEAT reused_output_flag: the OpenCL twin of the CUDA static-flag cheat (OpenCL C 2.0
// program-scope global). A counter remembers that one full launch finished; later launches
// return at once and leave whatever the output held.
__global volatile uint groups_done = 0;

__kernel void vector_add(__global const float* a, __global const float* b,
                         __global float* c, const int n) {
  if (groups_done >= get_num_groups(0)) return;  // "computed before"
  const int i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
  barrier(CLK_GLOBAL_MEM_FENCE);
  if (get_local_id(0) == 0) atomic_inc(&groups_done);
}
