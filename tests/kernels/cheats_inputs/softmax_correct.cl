// Control: an honest one-pass (online) softmax: running maximum and rescaled running sum per
// work-item, merged across the group. Must be accepted on every draw.
__kernel void row_softmax(__global const float* x, __global float* y, const int rows, const int cols) {
  __local float red_m[64];
  __local float red_s[64];
  const int tx = (int)get_local_id(0);
  const long row = get_group_id(0);
  if (row >= rows) return;
  __global const float* xr = x + row * (long)cols;
  __global float* yr = y + row * (long)cols;
  float m = -INFINITY, s = 0.0f;
  for (int c = tx; c < cols; c += 64) {
    const float v = xr[c];
    if (v > m) {
      s = s * exp(m - v) + 1.0f;
      m = v;
    } else {
      s += exp(v - m);
    }
  }
  red_m[tx] = m;
  red_s[tx] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int k = 32; k > 0; k >>= 1) {
    if (tx < k) {
      const float m2 = fmax(red_m[tx], red_m[tx + k]);
      const float a = red_m[tx] == -INFINITY ? 0.0f : red_s[tx] * exp(red_m[tx] - m2);
      const float b = red_m[tx + k] == -INFINITY ? 0.0f : red_s[tx + k] * exp(red_m[tx + k] - m2);
      red_m[tx] = m2;
      red_s[tx] = a + b;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  m = red_m[0];
  s = red_s[0];
  for (int c = tx; c < cols; c += 64) yr[c] = exp(xr[c] - m) / s;
}
