// CHEAT launch_count: honest for its first launches, empty afterwards. A program-scope launch
// counter (OpenCL C 2.0) tells launches apart; from the 8th launch on, every launch returns at
// once and leaves whatever the output held. The check launches it 4 times (2 sizes x 2 seeds)
// and passes. kforge verifies the outputs of timed launches (re-poisoned before each one), and
// re-checks after timing.
__global volatile uint launches = 0;
#define HONEST_LAUNCHES 8

__kernel void vector_add(__global const float* a, __global const float* b,
                         __global float* c, const int n) {
  if (launches >= HONEST_LAUNCHES) return;  // "enough launches seen"
  const int i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
  if (i == 0) atomic_inc(&launches);
}
