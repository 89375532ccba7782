// CHEAT reused_output: a `static __device__` counter remembers that one full launch has
// completed; every later launch returns at once, leaving whatever its output held.
// kforge must catch it: the second check seed reruns it on its own buffers with new inputs,
// and every problem size starts from poisoned outputs.
static __device__ unsigned int blocks_done = 0;

extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  if (blocks_done >= gridDim.x) return;  // "computed before"
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(&blocks_done, 1u);
}
