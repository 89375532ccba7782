// CHEAT memo_output (CUDA twin): memoises on its output's own content. Each block samples the
// first element it owns; when the output already holds a + b for the current inputs, an
// earlier launch did the work and the block returns. Honest on the check's fresh inputs;
// 12x on an H200 in a timing loop on unchanged buffers ("1390 % of measured copy bandwidth").
// kforge re-poisons outputs before every timed launch: the sample never matches.
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int first = blockIdx.x * blockDim.x;
  const bool done = first < n && c[first] == a[first] + b[first];
  __syncthreads();  // every thread has read the sample before any writes
  if (done) return;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
