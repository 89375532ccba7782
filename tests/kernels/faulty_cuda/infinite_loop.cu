// FAULT infinite_loop: never terminates. The inputs are uniform(-1,1), so a[i] < 2 always
// holds, and the loop stores to the output through a volatile pointer on every iteration so
// the compiler may not delete it.
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    volatile float* vc = c;
    float acc = 0.0f;
    while (a[i] < 2.0f) {
      acc += b[i];
      vc[i] = acc;
    }
  }
}
