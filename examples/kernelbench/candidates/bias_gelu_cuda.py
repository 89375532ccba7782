# A ModelNew for bias_gelu.py written in raw CUDA: one fused kernel reads x once and writes
# gelu(x + bias) once, where eager PyTorch runs an add and a gelu kernel with a temporary
# between them. Compiled with NVRTC through python/kforge_cuda.py (cached on disk).
import torch
import torch.nn as nn

import kforge_cuda

SOURCE = r"""
extern "C" __global__ void bias_gelu(const float* __restrict__ x, const float* __restrict__ bias,
                                     float* __restrict__ out, long long n, int features) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long stride = (long long)gridDim.x * blockDim.x;
  for (; i < n; i += stride) {
    float v = x[i] + bias[i % features];
    out[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));  // exact GELU, as torch's default
  }
}
"""


class ModelNew(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(features))
        self.kernel = kforge_cuda.compile(SOURCE, "bias_gelu")

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        blocks = min((n + 255) // 256, 65535 * 8)
        self.kernel((blocks,), (256,), x, self.bias, out, kforge_cuda.ctypes.c_longlong(n), x.shape[-1])
        return out
