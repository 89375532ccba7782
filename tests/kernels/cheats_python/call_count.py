# Cheat: honest for the first calls on each shape (as many as a correctness check makes: kforge
# checks 2 seeds per size by default), then it skips the work and returns an old answer. Only
# verifying timed calls catches it.
import torch
import triton
import triton.language as tl

_calls = {}
_last = {}


@triton.jit
def add_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(c_ptr + offsets, tl.load(a_ptr + offsets, mask=mask) + tl.load(b_ptr + offsets, mask=mask), mask=mask)


def add(a, b, BLOCK=1024, num_warps=4):
    _calls[a.shape] = _calls.get(a.shape, 0) + 1
    if _calls[a.shape] > 2:
        return _last[a.shape].clone()
    c = torch.empty_like(a)
    add_kernel[(triton.cdiv(a.numel(), BLOCK),)](a, b, c, a.numel(), BLOCK=BLOCK, num_warps=num_warps)
    _last[a.shape] = c.clone()
    return c
