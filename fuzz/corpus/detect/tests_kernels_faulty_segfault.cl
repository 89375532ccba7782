// FAULT segfault: every work-item stores through a wild pointer 2^46 bytes (64 TiB) away from
// the output buffer. On PoCL (CPU) that address is unmapped or non-canonical, so the process
// running the kernel dies with SIGSEGV. The offset depends on the buffer address, so the
// compiler cannot fold or drop the store.
__kernel void vector_add(__global const float* a, __global const float* b,
                         __global float* c, const int n) {
  const int i = get_global_id(0);
  __global float* wild = (__global float*)((ulong)c ^ ((ulong)1 << 46));
  if (i < n) wild[i] = a[i] + b[i];
}
