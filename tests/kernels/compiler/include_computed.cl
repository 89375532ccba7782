// A computed include: the name is a macro, so no scanner can tell what it names. Must be
// refused. (Spliced over a line and hidden behind a comment, as a scanner-evader would.)
#define TARGET "/etc/passwd"
#/* hidden */ inc\
lude TARGET
__kernel void vector_add(__global const float* a, __global const float* b, __global float* c, int n) {
  int i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}
