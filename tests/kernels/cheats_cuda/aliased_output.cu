// CHEAT aliased_output: writes the result into the input b and never writes the output c.
extern "C" __global__ void vector_add(const float* a, const float* b_in, float* c, int n) {
  float* b = const_cast<float*>(b_in);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i] + b[i];
}
