// matrix_transpose: out[c, r] = in[r, c] for a rows x cols f32 matrix (out is cols x rows).
// Naive baseline (USE_SHARED=0): each work-item reads along a row and writes down a column.
// USE_SHARED=1 stages a TILE x TILE tile in local memory so reads and writes are both
// contiguous.
//
// Tunables (compile-time -D defines; the fallbacks below keep the file compilable alone):
//   TILE        tile edge (local size x; one work-group per TILE x TILE tile)
//   BLOCK_ROWS  work-items along y (local size y); each covers TILE/BLOCK_ROWS rows
//   USE_SHARED  1: stage the tile in local memory, 0: direct strided copy
//   PAD         extra column in the local tile (USE_SHARED only)
#ifndef TILE
#define TILE 32
#endif
#ifndef BLOCK_ROWS
#define BLOCK_ROWS 8
#endif
#ifndef USE_SHARED
#define USE_SHARED 0
#endif
#ifndef PAD
#define PAD 0
#endif

__kernel __attribute__((reqd_work_group_size(TILE, BLOCK_ROWS, 1)))
void matrix_transpose(__global const float* restrict in, __global float* restrict out,
                      const int rows, const int cols) {
  const int tx = (int)get_local_id(0);
  const int ty = (int)get_local_id(1);
  const int col0 = (int)get_group_id(0) * TILE;  // first input column of this tile
  const int row0 = (int)get_group_id(1) * TILE;  // first input row of this tile
#if USE_SHARED
  __local float tile[TILE][TILE + PAD];
  for (int j = ty; j < TILE; j += BLOCK_ROWS) {
    const int r = row0 + j, c = col0 + tx;
    if (r < rows && c < cols) tile[j][tx] = in[(long)r * cols + c];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int j = ty; j < TILE; j += BLOCK_ROWS) {
    const int orow = col0 + j;  // output row = input column
    const int ocol = row0 + tx;  // output column = input row
    if (orow < cols && ocol < rows) out[(long)orow * rows + ocol] = tile[tx][j];
  }
#else
  for (int j = ty; j < TILE; j += BLOCK_ROWS) {
    const int r = row0 + j, c = col0 + tx;
    if (r < rows && c < cols) out[(long)c * rows + r] = in[(long)r * cols + c];
  }
#endif
}
