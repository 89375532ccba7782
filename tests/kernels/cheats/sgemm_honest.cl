// The honest naive sgemm the memo_sgemm cheat is timed against: one work-item per element of C.
__kernel void sgemm(__global const float* A, __global const float* B, __global float* C,
                    const int M, const int N, const int K) {
  const int row = get_global_id(1), col = get_global_id(0);
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = acc;
}
