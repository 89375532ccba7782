// Planted (CUDA twin): the sigmoid as its degree-7 Taylor polynomial: right only near 0.
extern "C" __global__ void sigmoid_fast(const float* x, float* y, int n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = x[i], v2 = v * v;
  y[i] = 0.5f + v * (0.25f + v2 * (-1.0f / 48.0f + v2 * (1.0f / 480.0f + v2 * (-17.0f / 80640.0f))));
}
