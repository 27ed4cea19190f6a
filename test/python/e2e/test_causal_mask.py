"""`fill_causal_mask(blk, row, col)` end to end: DSL -> d2m.fill_causal_mask ->
ttkernel.fill_causal_mask_tile -> C++ written into the reader -> emulator, against
torch.triu.

A reader fills each core's 2x2-tile block of a 128x128 mask from its global row and
column offsets (plus a shift of the diagonal, so blocks above, on and below it occur
with either sign); the compute thread adds it to scores, as attention does. A mask
adds 0 or -inf, so the sum must equal torch's exactly.
"""

from __future__ import annotations

import pytest
import torch
from e2e_kernels import BLOCK, GRID, TILE, tensor_shape
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

SHAPE = tensor_shape()


@pykernel_gen(grid=GRID, block_factors=[BLOCK] * 3)
def masked_scores(s, mask, out, key_shift: int = 0):
    s_acc, out_acc = TensorAccessor(s), TensorAccessor(out)

    @compute()
    def add_mask(s_cb: CircularBuffer, mask_cb: CircularBuffer, out_cb: CircularBuffer):
        with s_cb.wait() as x, mask_cb.wait() as m, out_cb.reserve() as o:
            o.store(x + m)

    @datamovement()
    def reader(s_cb: CircularBuffer, mask_cb: CircularBuffer, out_cb: CircularBuffer):
        row, col = core_index(0) * BLOCK[0], core_index(1) * BLOCK[1]
        with s_cb.reserve() as blk:
            dma(s_acc[row, col], blk).wait()
        with mask_cb.reserve() as blk:
            fill_causal_mask(blk, row * TILE, col * TILE + key_shift)

    @datamovement()
    def writer(s_cb: CircularBuffer, mask_cb: CircularBuffer, out_cb: CircularBuffer):
        with out_cb.wait() as blk:
            dma(blk, out_acc[core_index(0) * BLOCK[0], core_index(1) * BLOCK[1]]).wait()

    return Program(add_mask, reader, writer)(s, mask, out)


@pytest.mark.parametrize("key_shift", [0, 32, -64])
def test_fill_causal_mask_matches_triu(key_shift):
    scores = torch.randn(SHAPE, generator=torch.Generator().manual_seed(21)).to(torch.bfloat16)
    scratch = torch.full(SHAPE, 7.0, dtype=torch.bfloat16)  # never read: the reader fills its CB
    out = torch.zeros(SHAPE, dtype=torch.bfloat16)
    masked_scores(scores, scratch, out, key_shift=key_shift)
    rows = torch.arange(SHAPE[0]).unsqueeze(1)
    keys = torch.arange(SHAPE[1]).unsqueeze(0) + key_shift
    expected = scores.float().masked_fill(keys > rows, float("-inf"))
    assert torch.equal(expected, torch.triu(torch.full(SHAPE, float("-inf")), 1 - key_shift) + scores.float())
    assert torch.isinf(expected).any() and torch.isfinite(expected).any()
    assert torch.equal(out.float(), expected)
