// Reference for the planted row_softmax cheats: the numerically stable three-pass softmax,
// one block of 64 threads per row.
extern "C" __global__ void row_softmax_ref(const float* x, float* y, int rows, int cols) {
  __shared__ float red[64];
  const int tx = threadIdx.x;
  const long long row = blockIdx.x;
  if (row >= rows) return;
  const float* xr = x + row * cols;
  float* yr = y + row * cols;
  float m = -__int_as_float(0x7f800000);  // -inf (NVRTC has no INFINITY macro)
  for (int c = tx; c < cols; c += 64) m = fmaxf(m, xr[c]);
  red[tx] = m;
  __syncthreads();
  for (int s = 32; s > 0; s >>= 1) {
    if (tx < s) red[tx] = fmaxf(red[tx], red[tx + s]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float sum = 0.0f;
  for (int c = tx; c < cols; c += 64) sum += expf(xr[c] - m);
  red[tx] = sum;
  __syncthreads();
  for (int s = 32; s > 0; s >>= 1) {
    if (tx < s) red[tx] += red[tx + s];
    __syncthreads();
  }
  sum = red[0];
  for (int c = tx; c < cols; c += 64) yr[c] = expf(xr[c] - m) / sum;
}
