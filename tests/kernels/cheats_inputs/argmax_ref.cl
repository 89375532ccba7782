// Reference for the planted ties cheat: per row, the index of the FIRST maximum.
__kernel void argmax_ref(__global const float* x, __global int* index, const int rows, const int cols) {
  const long row = get_global_id(0);
  if (row >= rows) return;
  __global const float* xr = x + row * (long)cols;
  int best = 0;
  for (int c = 1; c < cols; ++c)
    if (xr[c] > xr[best]) best = c;
  index[row] = best;
}
