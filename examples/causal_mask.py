"""A causal mask computed in the kernel from indices: each core's reader fills its block
of a 0 / −inf mask with `fill_causal_mask` from the block's global row and column
offsets into a kernel-local CB (`CircularBuffer(shape)`: no tensor behind it, no mask
tensor is read), and the compute thread adds it to the scores, as
attention does on its diagonal blocks. `key_shift` moves the diagonal (keys
`key_shift` columns to the right).

    python examples/causal_mask.py
"""

import torch
from ttlang import (
    CircularBuffer,
    Program,
    TensorAccessor,
    compute,
    core_index,
    datamovement,
    dma,
    fill_causal_mask,
    pykernel_gen,
)

TILE = 32
GRID = (2, 2)
BLOCK = (2, 2)  # tiles per block
SHAPE = (GRID[0] * BLOCK[0] * TILE, GRID[1] * BLOCK[1] * TILE)


@pykernel_gen(grid=GRID, block_factors=[BLOCK] * 2)
def masked_scores(s, out, key_shift: int = 0):
    """out = s + the causal mask, a block the reader fills in a kernel-local CB."""
    s_acc, out_acc = TensorAccessor(s), TensorAccessor(out)
    mask_cb = CircularBuffer((BLOCK[0] * TILE, BLOCK[1] * TILE))  # no tensor behind it

    @compute()
    def add_mask(s_cb: CircularBuffer, out_cb: CircularBuffer):
        with s_cb.wait() as x, mask_cb.wait() as m, out_cb.reserve() as o:
            o.store(x + m)

    @datamovement()
    def reader(s_cb: CircularBuffer, out_cb: CircularBuffer):
        row, col = core_index(0) * BLOCK[0], core_index(1) * BLOCK[1]
        with s_cb.reserve() as blk:
            dma(s_acc[row, col], blk).wait()
        with mask_cb.reserve() as blk:
            fill_causal_mask(blk, row * TILE, col * TILE + key_shift)

    @datamovement()
    def writer(s_cb: CircularBuffer, out_cb: CircularBuffer):
        with out_cb.wait() as blk:
            dma(blk, out_acc[core_index(0) * BLOCK[0], core_index(1) * BLOCK[1]]).wait()

    return Program(add_mask, reader, writer)(s, out)


def main() -> None:
    scores = torch.randn(SHAPE, generator=torch.Generator().manual_seed(0)).to(torch.bfloat16)
    out = torch.zeros(SHAPE, dtype=torch.bfloat16)
    masked_scores(scores, out)
    expected = scores.float() + torch.triu(torch.full(SHAPE, float("-inf")), 1)
    assert torch.equal(out.float(), expected)
    print("causal_mask: matches torch.triu exactly")


if __name__ == "__main__":
    main()
