// Correct reference for the planted sgemm cheats: C = A * B, row-major, grid-stride in both
// dimensions so it is right for any launch geometry.
__kernel void sgemm_ref(__global const float* A, __global const float* B, __global float* C,
                        const int M, const int N, const int K) {
  for (int row = get_global_id(1); row < M; row += get_global_size(1))
    for (int col = get_global_id(0); col < N; col += get_global_size(0)) {
      float acc = 0.0f;
      for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
      C[row * N + col] = acc;
    }
}
