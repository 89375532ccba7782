// CHEAT memo_sgemm: sgemm (one work-item per element of C, 16 x 16 work-groups) that memoises
// on its output's own content. Each work-group recomputes one sample, C[row0][col0] (K
// multiply-adds, in the kernel's own order, so an earlier result matches bit for bit); when
// C already holds it the group returns. Honest on the check's fresh inputs; 134-140x in a
// timing loop on unchanged buffers, above the device's FLOP roof. kforge re-poisons outputs
// before every timed launch, so the sample never matches.
__kernel void sgemm(__global const float* A, __global const float* B, __global float* C,
                    const int M, const int N, const int K) {
  const int row0 = get_group_id(1) * get_local_size(1), col0 = get_group_id(0) * get_local_size(0);
  bool done = false;
  if (row0 < M && col0 < N) {
    float sample = 0.0f;
    for (int k = 0; k < K; ++k) sample += A[row0 * K + k] * B[k * N + col0];
    done = C[row0 * N + col0] == sample;
  }
  barrier(CLK_GLOBAL_MEM_FENCE);  // every work-item has read the sample before any writes
  if (done) return;
  const int row = get_global_id(1), col = get_global_id(0);
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = acc;
}
