// CHEAT stale_read: computes nothing and hopes its output buffer still holds the answer the
// reference left in memory the allocator hands out again (on PoCL a freed buffer of the same
// size is typically reused). kforge uploads poison into every output and scrubs the
// reference's outputs before freeing them, so this must fail.
__kernel void vector_add(__global const float* a, __global const float* b,
                         __global float* c, const int n) {
  const int i = get_global_id(0);
  if (i < n) c[i] = c[i] + 0.0f * (a[i] + b[i]);
}
