// Correct reference for the planted faulty kernels: c = a + b.
// A grid-stride loop, so it is right for any launch geometry the manifests give it.
__kernel void vector_add_ref(__global const float* a, __global const float* b,
                             __global float* c, const int n) {
  for (long i = get_global_id(0); i < n; i += get_global_size(0)) c[i] = a[i] + b[i];
}
