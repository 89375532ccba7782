// Reference for the planted row_softmax cheats: the numerically stable three-pass softmax (row
// maximum, sum of exponentials, normalise), one work-group of 64 per row.
__kernel void row_softmax_ref(__global const float* x, __global float* y, const int rows, const int cols) {
  __local float red[64];
  const int tx = (int)get_local_id(0);
  const long row = get_group_id(0);
  if (row >= rows) return;  // whole groups leave together: no barrier is skipped by half a group
  __global const float* xr = x + row * (long)cols;
  __global float* yr = y + row * (long)cols;
  float m = -INFINITY;
  for (int c = tx; c < cols; c += 64) m = fmax(m, xr[c]);
  red[tx] = m;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = 32; s > 0; s >>= 1) {
    if (tx < s) red[tx] = fmax(red[tx], red[tx + s]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  m = red[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  float sum = 0.0f;
  for (int c = tx; c < cols; c += 64) sum += exp(xr[c] - m);
  red[tx] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = 32; s > 0; s >>= 1) {
    if (tx < s) red[tx] += red[tx + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  sum = red[0];
  for (int c = tx; c < cols; c += 64) yr[c] = exp(xr[c] - m) / sum;
}
