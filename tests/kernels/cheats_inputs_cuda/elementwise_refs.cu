// References for the planted elementwise cheats (CUDA twins of the .cl files).
extern "C" __global__ void sign_ref(const float* x, float* y, int n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0.0f ? 1.0f : (x[i] < 0.0f ? -1.0f : 0.0f);
}
extern "C" __global__ void copysign_ref(const float* x, float* y, int n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = copysignf(1.0f, x[i]);
}
extern "C" __global__ void clamp_ref(const float* x, float* y, int n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] < -1.0f ? -1.0f : (x[i] > 1.0f ? 1.0f : x[i]);
}
extern "C" __global__ void sigmoid_ref(const float* x, float* y, int n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 1.0f / (1.0f + expf(-x[i]));
}
extern "C" __global__ void argmax_ref(const float* x, int* index, int rows, int cols) {
  const long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const float* xr = x + row * cols;
  int best = 0;
  for (int c = 1; c < cols; ++c)
    if (xr[c] > xr[best]) best = c;
  index[row] = best;
}
