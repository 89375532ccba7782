// row_softmax: y[r, :] = exp(x[r, :] - max(x[r, :])) / sum(exp(x[r, :] - max(x[r, :])))
// Naive baseline: three passes over the row (max, sum of exponentials, normalise) with a
// local-memory tree reduction between them; exponentials are recomputed in the last pass.
//
// Tunables (compile-time -D defines; the fallbacks below keep the file compilable alone):
//   BLOCK     work-items cooperating on one row (power of two; local size x)
//   ROWS      rows handled by one work-group, one per local id y (local size y)
//   FAST_EXP  1: native_exp, 0: exp
#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef ROWS
#define ROWS 1
#endif
#ifndef FAST_EXP
#define FAST_EXP 0
#endif

#if FAST_EXP
#define EXP(v) native_exp(v)
#else
#define EXP(v) exp(v)
#endif

__kernel __attribute__((reqd_work_group_size(BLOCK, ROWS, 1)))
void row_softmax(__global const float* restrict x, __global float* restrict y,
                 const int rows, const int cols) {
  __local float red[ROWS][BLOCK];
  const int tx = (int)get_local_id(0);
  const int ty = (int)get_local_id(1);
  const long row = (long)get_group_id(0) * ROWS + ty;
  const bool valid = row < rows;  // every work-item must still reach the barriers
  __global const float* xr = x + (valid ? row : 0) * (long)cols;
  __global float* yr = y + (valid ? row : 0) * (long)cols;

  // pass 1: row maximum
  float m = -INFINITY;
  if (valid)
    for (int c = tx; c < cols; c += BLOCK) m = fmax(m, xr[c]);
  red[ty][tx] = m;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (tx < s) red[ty][tx] = fmax(red[ty][tx], red[ty][tx + s]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  m = red[ty][0];
  barrier(CLK_LOCAL_MEM_FENCE);

  // pass 2: sum of exponentials
  float sum = 0.0f;
  if (valid)
    for (int c = tx; c < cols; c += BLOCK) sum += EXP(xr[c] - m);
  red[ty][tx] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (tx < s) red[ty][tx] += red[ty][tx + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  sum = red[ty][0];

  // pass 3: normalise
  if (valid)
    for (int c = tx; c < cols; c += BLOCK) yr[c] = EXP(xr[c] - m) / sum;
}
