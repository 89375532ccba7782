// FAULT input_mutation: the output is right, but the kernel zeroes its input b afterwards
// (b is declared an input, so kforge must notice that it changed).
extern "C" __global__ void vector_add(const float* a, float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    c[i] = a[i] + b[i];
    b[i] = 0.0f;
  }
}
