// Planted: the sigmoid as its degree-7 Taylor polynomial, no exp and no division. Within 2e-5
// on the manifest's uniform(-1,1), garbage outside it (x = 8 gives -3.9).
__kernel void sigmoid_fast(__global const float* x, __global float* y, const int n) {
  const long i = get_global_id(0);
  if (i >= n) return;
  const float v = x[i], v2 = v * v;
  y[i] = 0.5f + v * (0.25f + v2 * (-1.0f / 48.0f + v2 * (1.0f / 480.0f + v2 * (-17.0f / 80640.0f))));
}
