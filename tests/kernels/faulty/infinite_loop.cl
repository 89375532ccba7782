// FAULT infinite_loop: never terminates. The inputs are uniform(-1,1), so a[i] < 2 always
// holds, and the loop stores to the output through a volatile pointer on every iteration so
// the compiler may not delete it (a side-effect-free infinite loop could be removed).
__kernel void vector_add(__global const float* a, __global const float* b,
                         __global float* c, const int n) {
  const int i = get_global_id(0);
  if (i < n) {
    volatile __global float* vc = c;
    float acc = 0.0f;
    while (a[i] < 2.0f) {
      acc += b[i];
      vc[i] = acc;
    }
  }
}
