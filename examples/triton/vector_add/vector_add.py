# c = a + b over n f32 elements: each program adds one BLOCK-wide slice, masked at the tail.
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    a = tl.load(a_ptr + offsets, mask=mask)
    b = tl.load(b_ptr + offsets, mask=mask)
    tl.store(c_ptr + offsets, a + b, mask=mask)


# The launcher ([task] launcher): inputs positionally, tunables as keywords, outputs returned.
def add(a, b, BLOCK=1024, num_warps=4):
    c = torch.empty_like(a)
    n = a.numel()
    add_kernel[(triton.cdiv(n, BLOCK),)](a, b, c, n, BLOCK=BLOCK, num_warps=num_warps)
    return c


# The input builder ([task] inputs): the size's variables as keywords; kforge seeds torch first.
def make_inputs(n, device):
    a = torch.rand(n, device=device) * 2 - 1
    b = torch.rand(n, device=device) * 2 - 1
    return a, b


# The reference ([reference]): PyTorch itself, with the launcher's inputs.
def add_ref(a, b):
    return a + b
