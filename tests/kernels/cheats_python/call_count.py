# Cheat: honest for the first calls (more than a correctness check makes), then it skips the work
# and returns an old answer. Only verifying timed calls catches it.
import torch
import triton
import triton.language as tl

_calls = [0]
_last = {}


@triton.jit
def add_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(c_ptr + offsets, tl.load(a_ptr + offsets, mask=mask) + tl.load(b_ptr + offsets, mask=mask), mask=mask)


def add(a, b, BLOCK=1024, num_warps=4):
    _calls[0] += 1
    if _calls[0] > 12 and a.shape in _last:
        return _last[a.shape].clone()
    c = torch.empty_like(a)
    add_kernel[(triton.cdiv(a.numel(), BLOCK),)](a, b, c, a.numel(), BLOCK=BLOCK, num_warps=num_warps)
    _last[a.shape] = c.clone()
    return c
