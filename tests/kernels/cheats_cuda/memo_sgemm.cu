// CHEAT memo_sgemm (CUDA twin): sgemm (one thread per element of C, 16 x 16 blocks) that
// memoises on its output's own content: each block recomputes C[row0][col0] in its own order
// and returns when C already holds it. Honest on the check's fresh inputs; far above the FLOP
// roof in a timing loop on unchanged buffers. kforge re-poisons outputs before timed launches.
extern "C" __global__ void sgemm(const float* A, const float* B, float* C, int M, int N, int K) {
  const int row0 = blockIdx.y * blockDim.y, col0 = blockIdx.x * blockDim.x;
  bool done = false;
  if (row0 < M && col0 < N) {
    float sample = 0.0f;
    for (int k = 0; k < K; ++k) sample += A[row0 * K + k] * B[k * N + col0];
    done = C[row0 * N + col0] == sample;
  }
  __syncthreads();  // every thread has read the sample before any writes
  if (done) return;
  const int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = acc;
}
