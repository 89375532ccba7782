// Planted: softmax without the max pass. exp(x) / sum(exp(x)) is exact for the manifest's
// uniform(-4,4) and one pass shorter, but exp overflows for any value above ~88: NaN rows.
__kernel void row_softmax(__global const float* x, __global float* y, const int rows, const int cols) {
  __local float red[64];
  const int tx = (int)get_local_id(0);
  const long row = get_group_id(0);
  if (row >= rows) return;
  __global const float* xr = x + row * (long)cols;
  __global float* yr = y + row * (long)cols;
  float sum = 0.0f;
  for (int c = tx; c < cols; c += 64) sum += exp(xr[c]);
  red[tx] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = 32; s > 0; s >>= 1) {
    if (tx < s) red[tx] += red[tx + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  sum = red[0];
  for (int c = tx; c < cols; c += 64) yr[c] = exp(xr[c]) / sum;
}
