// Correct reference for the planted sgemm cheats: C = A * B, row-major, grid-stride in both
// dimensions so it is right for any launch geometry.
extern "C" __global__ void sgemm_ref(const float* A, const float* B, float* C, int M, int N, int K) {
  for (int row = blockIdx.y * blockDim.y + threadIdx.y; row < M; row += gridDim.y * blockDim.y)
    for (int col = blockIdx.x * blockDim.x + threadIdx.x; col < N; col += gridDim.x * blockDim.x) {
      float acc = 0.0f;
      for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
      C[row * N + col] = acc;
    }
}
