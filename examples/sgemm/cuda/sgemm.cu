// sgemm: C = A * B with A (M x K), B (K x N), C (M x N), all f32 row-major.
// Naive baseline (defaults): one thread per element of C, K-loop straight from global memory.
//
// Each thread computes a TM x TN micro-tile of C whose rows are BY apart and whose columns are
// BX apart (so neighbouring threads touch neighbouring columns: coalesced B loads and C stores).
// A block covers BM = BY*TM rows and BN = BX*TN columns of C.
//
// Tunables (compile-time -D defines; the fallbacks below keep the file compilable alone):
//   BX, BY   threads per block along x (columns of C) and y (rows of C) = launch block
//   TM, TN   outputs per thread along rows / columns (register tile)
//   SHARED   1: stage BM x TK slices of A and TK x BN slices of B in shared memory
//   TK       depth of the shared-memory slices (SHARED=1 only)
#ifndef BX
#define BX 16
#endif
#ifndef BY
#define BY 16
#endif
#ifndef TM
#define TM 1
#endif
#ifndef TN
#define TN 1
#endif
#ifndef SHARED
#define SHARED 0
#endif
#ifndef TK
#define TK 8
#endif

#define BM (BY * TM)
#define BN (BX * TN)

extern "C" __global__ void sgemm(const float* __restrict__ A, const float* __restrict__ B,
                                 float* __restrict__ C, int M, int N, int K) {
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row0 = blockIdx.y * BM + ty;  // this thread's rows: row0 + i*BY
  const int col0 = blockIdx.x * BN + tx;  // this thread's columns: col0 + j*BX

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

#if SHARED
  __shared__ float As[TK][BM];  // A slice, stored k-major
  __shared__ float Bs[TK][BN];
  const int tid = ty * BX + tx;
  for (int k0 = 0; k0 < K; k0 += TK) {
    for (int l = tid; l < BM * TK; l += BX * BY) {
      const int m = l / TK, kk = l % TK;
      const int gr = blockIdx.y * BM + m, gk = k0 + kk;
      As[kk][m] = (gr < M && gk < K) ? A[(long long)gr * K + gk] : 0.0f;
    }
    for (int l = tid; l < TK * BN; l += BX * BY) {
      const int kk = l / BN, nn = l % BN;
      const int gk = k0 + kk, gc = blockIdx.x * BN + nn;
      Bs[kk][nn] = (gk < K && gc < N) ? B[(long long)gk * N + gc] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < TK; ++kk) {
      float a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = As[kk][ty + i * BY];
#pragma unroll
      for (int j = 0; j < TN; ++j) b[j] = Bs[kk][tx + j * BX];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
#else
  for (int k = 0; k < K; ++k) {
    float a[TM], b[TN];
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const int r = row0 + i * BY;
      a[i] = r < M ? A[(long long)r * K + k] : 0.0f;
    }
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int c = col0 + j * BX;
      b[j] = c < N ? B[(long long)k * N + c] : 0.0f;
    }
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
  }
#endif

#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int r = row0 + i * BY;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int c = col0 + j * BX;
      if (r < M && c < N) C[(long long)r * N + c] = acc[i][j];
    }
  }
}
