// CHEAT launch_count (CUDA twin): honest for its first launches, empty afterwards. A
// `__device__` counter of finished blocks tells launches apart; past 8 launches' worth, every
// launch returns at once. The check launches it 4 times and passes; kforge verifies the
// outputs of timed launches (re-poisoned before each one) and re-checks after timing.
__device__ unsigned int blocks_done = 0;
#define HONEST_LAUNCHES 8

extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  if (*(volatile unsigned int*)&blocks_done >= HONEST_LAUNCHES * gridDim.x) return;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(&blocks_done, 1u);
}
