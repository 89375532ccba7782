// row_softmax: y[r, :] = exp(x[r, :] - max(x[r, :])) / sum(exp(x[r, :] - max(x[r, :])))
// Naive baseline: three passes over the row (max, sum of exponentials, normalise) with a
// shared-memory tree reduction between them; exponentials are recomputed in the last pass.
//
// Tunables (compile-time -D defines; the fallbacks below keep the file compilable alone):
//   BLOCK     threads cooperating on one row (power of two; launch block.x)
//   ROWS      rows handled by one block, one per threadIdx.y (launch block.y)
//   FAST_EXP  1: __expf (SFU approximation), 0: expf
#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef ROWS
#define ROWS 1
#endif
#ifndef FAST_EXP
#define FAST_EXP 0
#endif

// -infinity without <math.h>: NVRTC has no INFINITY macro
#define NEG_INF __int_as_float(0xff800000)

#if FAST_EXP
#define EXP(v) __expf(v)
#else
#define EXP(v) expf(v)
#endif

extern "C" __global__ void row_softmax(const float* __restrict__ x, float* __restrict__ y,
                                       int rows, int cols) {
  __shared__ float red[ROWS][BLOCK];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const long long row = (long long)blockIdx.x * ROWS + ty;
  const bool valid = row < rows;  // every thread must still reach the barriers
  const float* xr = x + (valid ? row : 0) * (long long)cols;
  float* yr = y + (valid ? row : 0) * (long long)cols;

  // pass 1: row maximum
  float m = NEG_INF;
  if (valid)
    for (int c = tx; c < cols; c += BLOCK) m = fmaxf(m, xr[c]);
  red[ty][tx] = m;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (tx < s) red[ty][tx] = fmaxf(red[ty][tx], red[ty][tx + s]);
    __syncthreads();
  }
  m = red[ty][0];
  __syncthreads();

  // pass 2: sum of exponentials
  float sum = 0.0f;
  if (valid)
    for (int c = tx; c < cols; c += BLOCK) sum += EXP(xr[c] - m);
  red[ty][tx] = sum;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (tx < s) red[ty][tx] += red[ty][tx + s];
    __syncthreads();
  }
  sum = red[ty][0];

  // pass 3: normalise
  if (valid)
    for (int c = tx; c < cols; c += BLOCK) yr[c] = EXP(xr[c] - m) / sum;
}
