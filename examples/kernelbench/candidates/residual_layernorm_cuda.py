# A ModelNew for residual_layernorm.py in raw CUDA: one block per row adds the residual,
# keeps the sum in registers, and normalises it without writing the sum back to memory
# (eager PyTorch writes and re-reads it). Compiled with NVRTC via python/kforge_cuda.py.
import torch
import torch.nn as nn

import kforge_cuda

SOURCE = r"""
#define THREADS 256
#define ITEMS 4
__device__ float block_sum(float v, float* shared) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  v = lane < THREADS / 32 ? shared[lane] : 0.0f;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  __syncthreads();
  return v;
}

extern "C" __global__ void __launch_bounds__(THREADS)
residual_layernorm(const float* __restrict__ x, const float* __restrict__ r, const float* __restrict__ w,
                   const float* __restrict__ b, float* __restrict__ y, int cols, float eps) {
  __shared__ float shared[32];
  long long base = (long long)blockIdx.x * cols;
  float v[ITEMS];
  float sum = 0.0f;
  #pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    int c = threadIdx.x + i * THREADS;
    v[i] = c < cols ? x[base + c] + r[base + c] : 0.0f;
    sum += v[i];
  }
  float mean = block_sum(sum, shared) / cols;
  float sq = 0.0f;
  #pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    int c = threadIdx.x + i * THREADS;
    float d = c < cols ? v[i] - mean : 0.0f;
    sq += d * d;
  }
  float rstd = rsqrtf(block_sum(sq, shared) / cols + eps);
  #pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    int c = threadIdx.x + i * THREADS;
    if (c < cols) y[base + c] = (v[i] - mean) * rstd * w[c] + b[c];
  }
}
"""


class ModelNew(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.norm = nn.LayerNorm(hidden)  # same parameters (and seeded values) as Model's
        self.kernel = kforge_cuda.compile(SOURCE, "residual_layernorm")

    def forward(self, x, residual):
        cols = x.shape[-1]
        if cols > 256 * 4:  # the kernel keeps a row in registers
            return self.norm(x + residual)
        x, residual = x.contiguous(), residual.contiguous()
        y = torch.empty_like(x)
        self.kernel((x.numel() // cols,), (256,), x, residual, self.norm.weight, self.norm.bias, y, cols,
                    float(self.norm.eps))
        return y
