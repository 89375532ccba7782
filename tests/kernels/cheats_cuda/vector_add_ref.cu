// Correct reference for the planted faulty kernels: c = a + b.
// A grid-stride loop, so it is right for any launch geometry the manifests give it.
extern "C" __global__ void vector_add_ref(const float* a, const float* b, float* c, int n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    c[i] = a[i] + b[i];
}
