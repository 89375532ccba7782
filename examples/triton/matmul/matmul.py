# C = A @ B for row-major f16 A (M x K) and B (K x N), f32 accumulation, f16 C. Each program
# computes one BLOCK_M x BLOCK_N tile, walking K in BLOCK_K slices; tiles are visited in
# GROUP_M-row groups so neighbouring programs share A and B tiles in L2.
import torch
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    group_size = GROUP_M * tiles_n
    first_m = (pid // group_size) * GROUP_M
    rows_in_group = tl.minimum(tiles_m - first_m, GROUP_M)
    tile_m = first_m + (pid % group_size) % rows_in_group
    tile_n = (pid % group_size) // rows_in_group

    rm = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :],
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


# The launcher ([task] launcher): a 1-D grid of output tiles; tile sizes, grouping and the
# launch options num_warps / num_stages arrive as keywords.
def matmul(a, b, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32, GROUP_M=1, num_warps=4, num_stages=2):
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), dtype=torch.float16, device=a.device)
    grid = (triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N),)
    matmul_kernel[grid](a, b, c, M, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, GROUP_M=GROUP_M,
                        num_warps=num_warps, num_stages=num_stages)
    return c


# The input builder ([task] inputs): f16 operands in [-1, 1); kforge seeds torch first.
def make_inputs(M, N, K, device):
    a = (torch.rand(M, K, device=device) * 2 - 1).half()
    b = (torch.rand(K, N, device=device) * 2 - 1).half()
    return a, b


# The reference ([reference]): cuBLAS through torch (f32 on the CPU, where f16 matmul is slow).
def matmul_ref(a, b):
    if a.is_cuda:
        return a @ b
    return (a.float() @ b.float()).half()
