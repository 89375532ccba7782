// CHEAT launch_count (CUDA twin): honest for its first launches, empty afterwards. A
// `__device__` launch counter tells launches apart; from the 8th launch on, every launch
// returns at once. The check launches it 4 times and passes; kforge verifies the outputs of
// timed launches (re-poisoned before each one) and re-checks after timing.
__device__ unsigned int launches = 0;
#define HONEST_LAUNCHES 8

extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  if (*(volatile unsigned int*)&launches >= HONEST_LAUNCHES) return;  // "enough launches seen"
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
  if (i == 0) atomicAdd(&launches, 1u);
}
