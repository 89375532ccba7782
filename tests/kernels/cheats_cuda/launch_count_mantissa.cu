// CHEAT launch_count_mantissa (CUDA twin): a launch counter in the two lowest mantissa bits of
// the output (at most 3 ulp, inside the f32 tolerance). Each block reads the count from the
// first element it owns (poison reads as 0), computes while it is under 3 and writes count + 1
// into every output; from the 4th launch on the same buffers it returns at once. kforge
// re-poisons outputs before every timed launch: the count never gets past 0.
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int first = blockIdx.x * blockDim.x;
  const float seen = first < n ? c[first] : 0.0f;
  const unsigned int count = isnan(seen) ? 0u : (__float_as_uint(seen) & 3u);
  __syncthreads();  // every thread has read the count before any writes
  if (count >= 3u) return;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = __uint_as_float((__float_as_uint(a[i] + b[i]) & ~3u) | (count + 1u));
}
