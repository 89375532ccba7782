# Row-wise softmax of a rows x cols f32 matrix, one program per row. The row is read in
# BLOCK-wide chunks (online max and sum, then a normalising pass), so any cols works with any
# BLOCK; a BLOCK that covers the whole row keeps it in registers.
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * cols
    y_row = y_ptr + row * cols
    offsets = tl.arange(0, BLOCK)
    running_max = tl.full([BLOCK], float("-inf"), tl.float32)
    running_sum = tl.zeros([BLOCK], tl.float32)
    for start in range(0, cols, BLOCK):
        mask = start + offsets < cols
        x = tl.load(x_row + start + offsets, mask=mask, other=float("-inf"))
        new_max = tl.maximum(running_max, x)
        # Lanes that have seen only padding keep -inf; exp(-inf - -inf) would be NaN.
        scale = tl.where(new_max == float("-inf"), 0.0, tl.exp(running_max - new_max))
        term = tl.where(mask, tl.exp(x - new_max), 0.0)
        running_sum = running_sum * scale + term
        running_max = new_max
    row_max = tl.max(running_max, axis=0)
    lane_scale = tl.where(running_max == float("-inf"), 0.0, tl.exp(running_max - row_max))
    row_sum = tl.sum(running_sum * lane_scale, axis=0)
    for start in range(0, cols, BLOCK):
        mask = start + offsets < cols
        x = tl.load(x_row + start + offsets, mask=mask, other=float("-inf"))
        tl.store(y_row + start + offsets, tl.exp(x - row_max) / row_sum, mask=mask)


# The launcher ([task] launcher): one program per row; tunables arrive as keywords.
def softmax(x, BLOCK=128, num_warps=4):
    rows, cols = x.shape
    y = torch.empty_like(x)
    softmax_kernel[(rows,)](x, y, cols, BLOCK=BLOCK, num_warps=num_warps)
    return y


# The input builder ([task] inputs): logits spread like N(0, 2); kforge seeds torch first.
def make_inputs(rows, cols, device):
    return torch.randn(rows, cols, device=device) * 2


# The reference ([reference]): PyTorch itself, with the launcher's inputs.
def softmax_ref(x):
    return torch.softmax(x, dim=1)
