// CHEAT cached_sgemm (CUDA twin): a content-addressed result cache in `__device__` memory. A
// key sampled from the inputs picks one of 64 slots; a block whose tile is cached under that
// key copies it instead of computing. Correct on every launch, so no output check sees it;
// the copy runs far above the device's FLOP roof (K = 8192: 4.3 GFLOP claimed per launch).
// kforge must reject it as impossible throughput.
#define SLOTS 64
#define MAX_ELEMENTS (512 * 512)
#define MAX_GROUPS 1024
__device__ float cache[SLOTS][MAX_ELEMENTS];
__device__ float keys[SLOTS][MAX_GROUPS];

extern "C" __global__ void sgemm(const float* A, const float* B, float* C, int M, int N, int K) {
  const float key = A[0] + 2.0f * B[0] + 3.0f * A[M * K - 1];
  const unsigned int slot = __float_as_uint(key) % SLOTS;
  const int group = blockIdx.y * gridDim.x + blockIdx.x;
  const bool fits = M * N <= MAX_ELEMENTS && gridDim.x * gridDim.y <= MAX_GROUPS;
  const bool hit = fits && keys[slot][group] == key;
  __syncthreads();
  const int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    if (hit) {
      C[row * N + col] = cache[slot][row * N + col];
    } else {
      float acc = 0.0f;
      for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
      C[row * N + col] = acc;
      if (fits) cache[slot][row * N + col] = acc;
    }
  }
  __threadfence();
  __syncthreads();  // the tile is in the cache before its key
  if (!hit && fits && threadIdx.x == 0 && threadIdx.y == 0) keys[slot][group] = key;
}
