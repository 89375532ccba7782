// conv2d: out = in (*) weights, a 3x3 convolution (cross-correlation) of an h x w f32 image
// with zero padding at the borders: out[y,x] = sum_{dy,dx in -1..1} weights[dy+1][dx+1] * in[y+dy, x+dx]
// Naive baseline (defaults): one output per thread, every tap read straight from global memory.
//
// Tunables (compile-time -D defines; the fallbacks below keep the file compilable alone):
//   BX, BY    threads per block along x and y (= launch block)
//   ITEMS_Y   outputs per thread along y (rows BY apart); a block covers BX x (BY*ITEMS_Y)
//   SHARED    1: stage the block's input tile plus a 1-pixel halo in shared memory first
#ifndef BX
#define BX 32
#endif
#ifndef BY
#define BY 8
#endif
#ifndef ITEMS_Y
#define ITEMS_Y 1
#endif
#ifndef SHARED
#define SHARED 0
#endif

#define TILE_H (BY * ITEMS_Y)

extern "C" __global__ void conv2d(const float* __restrict__ in, const float* __restrict__ weights,
                                  float* __restrict__ out, int h, int w) {
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int x = blockIdx.x * BX + tx;
  const int y0 = blockIdx.y * TILE_H;
#if SHARED
  __shared__ float tile[TILE_H + 2][BX + 2];
  for (int l = ty * BX + tx; l < (TILE_H + 2) * (BX + 2); l += BX * BY) {
    const int ly = l / (BX + 2), lx = l % (BX + 2);
    const int gy = y0 + ly - 1, gx = blockIdx.x * BX + lx - 1;
    tile[ly][lx] = (gy >= 0 && gy < h && gx >= 0 && gx < w) ? in[(long long)gy * w + gx] : 0.0f;
  }
  __syncthreads();
  for (int it = 0; it < ITEMS_Y; ++it) {
    const int ly = ty + it * BY;
    const int y = y0 + ly;
    if (x < w && y < h) {
      float s = 0.0f;
      for (int dy = 0; dy < 3; ++dy)
        for (int dx = 0; dx < 3; ++dx) s += weights[dy * 3 + dx] * tile[ly + dy][tx + dx];
      out[(long long)y * w + x] = s;
    }
  }
#else
  for (int it = 0; it < ITEMS_Y; ++it) {
    const int y = y0 + ty + it * BY;
    if (x < w && y < h) {
      float s = 0.0f;
      for (int dy = 0; dy < 3; ++dy)
        for (int dx = 0; dx < 3; ++dx) {
          const int gy = y + dy - 1, gx = x + dx - 1;
          const float v = (gy >= 0 && gy < h && gx >= 0 && gx < w) ? in[(long long)gy * w + gx] : 0.0f;
          s += weights[dy * 3 + dx] * v;
        }
      out[(long long)y * w + x] = s;
    }
  }
#endif
}
