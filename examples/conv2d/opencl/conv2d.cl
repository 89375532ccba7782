// conv2d: out = in (*) weights, a 3x3 convolution (cross-correlation) of an h x w f32 image
// with zero padding at the borders: out[y,x] = sum_{dy,dx in -1..1} weights[dy+1][dx+1] * in[y+dy, x+dx]
// Naive baseline (defaults): one output per work-item, every tap read straight from global memory.
//
// Tunables (compile-time -D defines; the fallbacks below keep the file compilable alone):
//   BX, BY    work-items per work-group along x and y (= local size)
//   ITEMS_Y   outputs per work-item along y (rows BY apart); a work-group covers BX x (BY*ITEMS_Y)
//   SHARED    1: stage the work-group's input tile plus a 1-pixel halo in local memory first
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

__kernel __attribute__((reqd_work_group_size(BX, BY, 1)))
void conv2d(__global const float* restrict in, __global const float* restrict weights,
            __global float* restrict out, const int h, const int w) {
  const int tx = (int)get_local_id(0);
  const int ty = (int)get_local_id(1);
  const int x = (int)get_group_id(0) * BX + tx;
  const int y0 = (int)get_group_id(1) * TILE_H;
#if SHARED
  __local float tile[TILE_H + 2][BX + 2];
  for (int l = ty * BX + tx; l < (TILE_H + 2) * (BX + 2); l += BX * BY) {
    const int ly = l / (BX + 2), lx = l % (BX + 2);
    const int gy = y0 + ly - 1, gx = (int)get_group_id(0) * BX + lx - 1;
    tile[ly][lx] = (gy >= 0 && gy < h && gx >= 0 && gx < w) ? in[(long)gy * w + gx] : 0.0f;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int it = 0; it < ITEMS_Y; ++it) {
    const int ly = ty + it * BY;
    const int y = y0 + ly;
    if (x < w && y < h) {
      float s = 0.0f;
      for (int dy = 0; dy < 3; ++dy)
        for (int dx = 0; dx < 3; ++dx) s += weights[dy * 3 + dx] * tile[ly + dy][tx + dx];
      out[(long)y * w + x] = s;
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
          const float v = (gy >= 0 && gy < h && gx >= 0 && gx < w) ? in[(long)gy * w + gx] : 0.0f;
          s += weights[dy * 3 + dx] * v;
        }
      out[(long)y * w + x] = s;
    }
  }
#endif
}
