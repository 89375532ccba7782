// Planted: sign(x) as x / (|x| + 1e-30), branch-free and right to 1e-7 for every value the
// manifest's uniform(-1,1) draws, but ~0 instead of ±1 for subnormals and the smallest normals.
__kernel void sign_fast(__global const float* x, __global float* y, const int n) {
  const long i = get_global_id(0);
  if (i < n) y[i] = x[i] / (fabs(x[i]) + 1e-30f);
}
