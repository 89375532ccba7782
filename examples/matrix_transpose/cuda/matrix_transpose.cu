// matrix_transpose: out[c, r] = in[r, c] for a rows x cols f32 matrix (out is cols x rows).
// Naive baseline (USE_SHARED=0): each thread reads along a row and writes down a column, so
// the writes are strided by `rows` floats and uncoalesced. USE_SHARED=1 stages a TILE x TILE
// tile in shared memory so both the reads and the writes are coalesced.
//
// Tunables (compile-time -D defines; the fallbacks below keep the file compilable alone):
//   TILE        tile edge (launch block.x; the grid has one block per TILE x TILE tile)
//   BLOCK_ROWS  threads along y (launch block.y); each thread covers TILE/BLOCK_ROWS rows
//   USE_SHARED  1: stage the tile in shared memory, 0: direct strided copy
//   PAD         extra column in the shared tile to avoid bank conflicts (USE_SHARED only)
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

extern "C" __global__ void matrix_transpose(const float* __restrict__ in, float* __restrict__ out,
                                            int rows, int cols) {
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int col0 = blockIdx.x * TILE;  // first input column of this tile
  const int row0 = blockIdx.y * TILE;  // first input row of this tile
#if USE_SHARED
  __shared__ float tile[TILE][TILE + PAD];
  for (int j = ty; j < TILE; j += BLOCK_ROWS) {
    const int r = row0 + j, c = col0 + tx;
    if (r < rows && c < cols) tile[j][tx] = in[(long long)r * cols + c];
  }
  __syncthreads();
  for (int j = ty; j < TILE; j += BLOCK_ROWS) {
    const int orow = col0 + j;  // output row = input column
    const int ocol = row0 + tx;  // output column = input row
    if (orow < cols && ocol < rows) out[(long long)orow * rows + ocol] = tile[tx][j];
  }
#else
  for (int j = ty; j < TILE; j += BLOCK_ROWS) {
    const int r = row0 + j, c = col0 + tx;
    if (r < rows && c < cols) out[(long long)c * rows + r] = in[(long long)r * cols + c];
  }
#endif
}
