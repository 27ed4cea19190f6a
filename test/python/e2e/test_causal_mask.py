"""`fill_causal_mask(blk, row, col)` end to end (examples/causal_mask.py): DSL ->
d2m.fill_causal_mask -> ttkernel.causal_mask_first_tile, fill_causal_mask_tile (the
first tile of each kind) and NoC reads of the core's own L1 (the others) -> C++
defined in the reader -> emulator, against torch.triu.

Each core's reader fills its 2x2-tile block of a 128x128 mask, in a kernel-local CB
(no tensor behind it), from its global row and column offsets, the diagonal shifted
by `key_shift` so that tiles above, on and below it occur (the helper's uniform and
compared paths); the compute thread adds it to scores. A mask adds 0 or -inf, so the sum must equal torch's exactly.
"""

from __future__ import annotations

import pytest
import torch

from examples.causal_mask import SHAPE, masked_scores
from ttlang import (
    CircularBuffer,
    Program,
    TensorAccessor,
    core_index,
    datamovement,
    dma,
    fill_causal_mask,
    pykernel_gen,
)


@pytest.mark.parametrize("key_shift", [0, 32, -64, 96])
def test_fill_causal_mask_matches_triu(key_shift):
    scores = torch.randn(SHAPE, generator=torch.Generator().manual_seed(21)).to(torch.bfloat16)
    out = torch.zeros(SHAPE, dtype=torch.bfloat16)
    masked_scores(scores, out, key_shift=key_shift)
    expected = scores.float() + torch.triu(torch.full(SHAPE, float("-inf")), 1 - key_shift)
    assert torch.isinf(expected).any() and torch.isfinite(expected).any()
    assert torch.equal(out.float(), expected)


GRID = (2, 2)
BLOCK_TILES = (3, 4)  # rows x columns of tiles: 6 diagonals, up to four distinct tiles
MASK_SHAPE = (GRID[0] * BLOCK_TILES[0] * 32, GRID[1] * BLOCK_TILES[1] * 32)


@pykernel_gen(grid=GRID, block_factors=[BLOCK_TILES])
def causal_mask_blocks(out, key_shift: int = 0):
    """out = the causal mask itself: each core's `masks` thread fills its 3x4-tile block
    in a kernel-local CB, the writer moves it to DRAM unchanged."""
    out_acc = TensorAccessor(out)
    mask_cb = CircularBuffer((BLOCK_TILES[0] * 32, BLOCK_TILES[1] * 32))

    @datamovement()
    def masks(out_cb: CircularBuffer):
        row, col = core_index(0) * BLOCK_TILES[0], core_index(1) * BLOCK_TILES[1]
        with mask_cb.reserve() as blk:
            fill_causal_mask(blk, row * 32, col * 32 + key_shift)

    @datamovement()
    def writer(out_cb: CircularBuffer):
        with mask_cb.wait() as blk:
            dma(blk, out_acc[core_index(0) * BLOCK_TILES[0], core_index(1) * BLOCK_TILES[1]]).wait()

    return Program(masks, writer)(out)


@pytest.mark.parametrize("key_shift", [0, 16, -40])
def test_mask_block_copies_each_distinct_tile(key_shift):
    """Blocks whose tiles mix the kinds, several of each: key_shift 0 gives core (0, 0)
    three diagonal, six -inf and three 0 tiles, (0, 1) twelve -inf, (1, 0) one diagonal
    and eleven 0, (1, 1) all three. A shift that is not a multiple of 32 (a run-time
    offset here; constant ones are the next test) puts two distinct tiles across the
    diagonal (key offsets 16 and -16). Each block's first tile of a kind is written, the
    others copied from it through the NoC; the mask is exact: equal to torch.triu's."""
    out = torch.zeros(MASK_SHAPE, dtype=torch.bfloat16)
    causal_mask_blocks(out, key_shift=key_shift)
    expected = torch.triu(torch.full(MASK_SHAPE, float("-inf")), 1 - key_shift)
    assert torch.equal(out.float(), expected)
    reader = causal_mask_blocks.compile(out, key_shift=key_shift).sources["causal_mask_blocks_reader"]
    assert "noc_async_read(" in reader and "causal_mask_first_tile(" in reader


@pykernel_gen(grid=(1, 1), block_factors=[(2, 3)])
def mask_at_constant_offsets(out):
    """out = one 2x3-tile mask block at constant offsets off the tile grid (row 16, col
    40): the diagonal crosses tiles mid-row and mid-column."""
    out_acc = TensorAccessor(out)
    mask_cb = CircularBuffer((64, 96))

    @datamovement()
    def masks(out_cb: CircularBuffer):
        with mask_cb.reserve() as blk:
            fill_causal_mask(blk, 16, 40)

    @datamovement()
    def writer(out_cb: CircularBuffer):
        with mask_cb.wait() as blk:
            dma(blk, out_acc[0, 0]).wait()

    return Program(masks, writer)(out)


def test_mask_at_constant_offsets_off_the_tile_grid():
    """Element (r, c) is -inf where key 40 + c > query 16 + r: torch.triu(-inf, 1 - 24),
    exactly (a mask adds 0 or -inf)."""
    out = torch.zeros((64, 96), dtype=torch.bfloat16)
    mask_at_constant_offsets(out)
    expected = torch.triu(torch.full((64, 96), float("-inf")), 1 - (40 - 16))
    assert torch.isinf(expected).any() and (expected == 0).any()
    assert torch.equal(out.float(), expected)
