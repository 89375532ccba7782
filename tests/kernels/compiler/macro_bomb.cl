// The issue's macro bomb: 1 KB of macros that expand into a 65536-deep expression. On PoCL the
// preprocessor and front end grow without bound (12 GB after minutes with no limit): the
// compile worker must hit its address-space limit and report "compiler ran out of memory".
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
#define E13(x) E12(E12(x))
#define E14(x) E13(E13(x))
#define E15(x) E14(E14(x))
#define E16(x) E15(E15(x))
__kernel void vector_add(__global const float* a, __global const float* b, __global float* c, int n) {
  int i = get_global_id(0);
  if (i < n) c[i] = E16(a[i]) + b[i];
}
