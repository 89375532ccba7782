// A 4096-deep expression: a compile that runs for tens of seconds (and grows past 1 GB) on
// PoCL: with a 1 s compile timeout it must be "compile timed out after 1 s".
#define E0(x) x + 0.0f
#define E1(x) E0(E0(x))
#define E2(x) E1(E1(x))
#define E3(x) E2(E2(x))
#define E4(x) E3(E3(x))
#define E5(x) E4(E4(x))
#define E6(x) E5(E5(x))
#define E7(x) E6(E6(x))
#define E8(x) E7(E7(x))
#define E9(x) E8(E8(x))
#define E10(x) E9(E9(x))
#define E11(x) E10(E10(x))
#define E12(x) E11(E11(x))
__kernel void vector_add(__global const float* a, __global const float* b, __global float* c, int n) {
  int i = get_global_id(0);
  if (i < n) c[i] = E12(a[i]) + b[i];
}
