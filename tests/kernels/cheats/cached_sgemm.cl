// CHEAT cached_sgemm: a content-addressed result cache in program-scope memory (OpenCL C 2.0).
// A key sampled from the inputs picks one of 64 slots; a work-group whose tile is cached under
// that key copies it instead of computing. Correct on every launch (fresh inputs miss and are
// computed), so no output check can see it, and rotating 4 buffer sets does not starve a
// 64-entry cache. What gives it away is the figure: copying C instead of 2*M*N*K FLOPs runs
// far above the device's FLOP roof. kforge must reject it as impossible throughput.
#define SLOTS 64
#define MAX_ELEMENTS (256 * 256)
#define MAX_GROUPS 256
__global float cache[SLOTS][MAX_ELEMENTS];
__global float keys[SLOTS][MAX_GROUPS];

__kernel void sgemm(__global const float* A, __global const float* B, __global float* C,
                    const int M, const int N, const int K) {
  const float key = A[0] + 2.0f * B[0] + 3.0f * A[M * K - 1];
  const uint slot = as_uint(key) % SLOTS;
  const int group = get_group_id(1) * get_num_groups(0) + get_group_id(0);
  const bool fits = M * N <= MAX_ELEMENTS && get_num_groups(0) * get_num_groups(1) <= MAX_GROUPS;
  const bool hit = fits && keys[slot][group] == key;
  barrier(CLK_GLOBAL_MEM_FENCE);
  const int row = get_global_id(1), col = get_global_id(0);
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
  barrier(CLK_GLOBAL_MEM_FENCE);  // the tile is in the cache before its key
  if (!hit && fits && get_local_id(0) == 0 && get_local_id(1) == 0) keys[slot][group] = key;
}
