// sgemm: C = A * B with A (M x K), B (K x N), C (M x N), all f32 row-major.
// Naive baseline (defaults): one work-item per element of C, K-loop straight from global memory.
//
// Each work-item computes a TM x TN micro-tile of C whose rows are BY apart and whose columns are
// BX apart (so neighbouring work-items touch neighbouring columns: coalesced B loads and C stores).
// A work-group covers BM = BY*TM rows and BN = BX*TN columns of C.
//
// Tunables (compile-time -D defines; the fallbacks below keep the file compilable alone):
//   BX, BY   work-items per work-group along x (columns of C) and y (rows of C) = local size
//   TM, TN   outputs per work-item along rows / columns (register tile)
//   SHARED   1: stage BM x TK slices of A and TK x BN slices of B in local memory
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

__kernel __attribute__((reqd_work_group_size(BX, BY, 1)))
void sgemm(__global const float* restrict A, __global const float* restrict B,
           __global float* restrict C, const int M, const int N, const int K) {
  const int tx = (int)get_local_id(0);
  const int ty = (int)get_local_id(1);
  const int row0 = (int)get_group_id(1) * BM + ty;  // this work-item's rows: row0 + i*BY
  const int col0 = (int)get_group_id(0) * BN + tx;  // this work-item's columns: col0 + j*BX

  float acc[TM][TN];
  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

#if SHARED
  __local float As[TK][BM];  // A slice, stored k-major
  __local float Bs[TK][BN];
  const int tid = ty * BX + tx;
  for (int k0 = 0; k0 < K; k0 += TK) {
    for (int l = tid; l < BM * TK; l += BX * BY) {
      const int m = l / TK, kk = l % TK;
      const int gr = (int)get_group_id(1) * BM + m, gk = k0 + kk;
      As[kk][m] = (gr < M && gk < K) ? A[(long)gr * K + gk] : 0.0f;
    }
    for (int l = tid; l < TK * BN; l += BX * BY) {
      const int kk = l / BN, nn = l % BN;
      const int gk = k0 + kk, gc = (int)get_group_id(0) * BN + nn;
      Bs[kk][nn] = (gk < K && gc < N) ? B[(long)gk * N + gc] : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int kk = 0; kk < TK; ++kk) {
      float a[TM], b[TN];
      for (int i = 0; i < TM; ++i) a[i] = As[kk][ty + i * BY];
      for (int j = 0; j < TN; ++j) b[j] = Bs[kk][tx + j * BX];
      for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
#else
  for (int k = 0; k < K; ++k) {
    float a[TM], b[TN];
    for (int i = 0; i < TM; ++i) {
      const int r = row0 + i * BY;
      a[i] = r < M ? A[(long)r * K + k] : 0.0f;
    }
    for (int j = 0; j < TN; ++j) {
      const int c = col0 + j * BX;
      b[j] = c < N ? B[(long)k * N + c] : 0.0f;
    }
    for (int i = 0; i < TM; ++i)
      for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
  }
#endif

  for (int i = 0; i < TM; ++i) {
    const int r = row0 + i * BY;
    for (int j = 0; j < TN; ++j) {
      const int c = col0 + j * BX;
      if (r < M && c < N) C[(long)r * N + c] = acc[i][j];
    }
  }
}
