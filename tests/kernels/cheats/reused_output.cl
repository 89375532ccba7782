// CHEAT reused_output: computes once, then returns early whenever its output already holds a
// number (the poison is NaN), so a benchmark loop that reuses buffers times a no-op.
// kforge must catch it: the second check seed reruns it on its own buffers with new inputs.
__kernel void vector_add(__global const float* a, __global const float* b,
                         __global float* c, const int n) {
  const int i = get_global_id(0);
  if (i >= n) return;
  if (c[i] == c[i]) return;  // "already computed": not NaN
  c[i] = a[i] + b[i];
}
