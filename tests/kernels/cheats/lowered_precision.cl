// CHEAT lowered_precision: keeps only 10 mantissa bits of the result (half precision's
// significand), as a kernel computing in fp16 would: relative error up to ~1e-3, beyond the
// f32 tolerance (atol = rtol = 1e-4).
__kernel void vector_add(__global const float* a, __global const float* b,
                         __global float* c, const int n) {
  const int i = get_global_id(0);
  if (i < n) c[i] = as_float(as_uint(a[i] + b[i]) & 0xFFFFE000u);
}
