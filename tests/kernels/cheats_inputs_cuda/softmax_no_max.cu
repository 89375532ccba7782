// Planted (CUDA twin): softmax without the max pass: exact on uniform(-4,4), NaN above ~88.
extern "C" __global__ void row_softmax(const float* x, float* y, int rows, int cols) {
  __shared__ float red[64];
  const int tx = threadIdx.x;
  const long long row = blockIdx.x;
  if (row >= rows) return;
  const float* xr = x + row * cols;
  float* yr = y + row * cols;
  float sum = 0.0f;
  for (int c = tx; c < cols; c += 64) sum += expf(xr[c]);
  red[tx] = sum;
  __syncthreads();
  for (int s = 32; s > 0; s >>= 1) {
    if (tx < s) red[tx] += red[tx + s];
    __syncthreads();
  }
  sum = red[0];
  for (int c = tx; c < cols; c += 64) yr[c] = expf(xr[c]) / sum;
}
