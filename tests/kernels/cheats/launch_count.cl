// CHEAT launch_count: honest for its first launches, empty afterwards. A program-scope
// counter (OpenCL C 2.0) of finished work-groups tells launches apart; once it passes 8
// launches' worth, every launch returns at once and leaves whatever the output held. The
// check launches it 4 times (2 sizes x 2 seeds) and passes. kforge verifies the outputs of
// timed launches (re-poisoned before each one), and re-checks after timing.
__global volatile uint groups_done = 0;
#define HONEST_LAUNCHES 8

__kernel void vector_add(__global const float* a, __global const float* b,
                         __global float* c, const int n) {
  if (groups_done >= HONEST_LAUNCHES * get_num_groups(0)) return;  // "enough launches seen"
  const int i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
  barrier(CLK_GLOBAL_MEM_FENCE);
  if (get_local_id(0) == 0) atomic_inc(&groups_done);
}
