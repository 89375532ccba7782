// Planted (CUDA twin): argmax with >=: the last maximum instead of the first on ties.
extern "C" __global__ void argmax(const float* x, int* index, int rows, int cols) {
  const long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const float* xr = x + row * cols;
  int best = 0;
  for (int c = 1; c < cols; ++c)
    if (xr[c] >= xr[best]) best = c;
  index[row] = best;
}
