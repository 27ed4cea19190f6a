"""`where(cond, a, b)` end to end: DSL -> d2m.tile_where -> ttkernel.where_tile -> C++
`where_tile<DataFormat>` -> emulator, against torch.where.

Blocks are 2x2 tiles on a 2x2 grid (128x128 tensors); the condition is a 0/1 tensor
(no comparison op is needed to make it). A select moves values without arithmetic, so
the result must equal torch.where's exactly, with 16-bit and with fp32 DST: bf16
inputs pass through either DST unchanged, fp32 inputs through an fp32 DST.
"""

from __future__ import annotations

import math

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
    pykernel_gen,
    where,
)

DST_MODES = [pytest.param(False, id="dst16"), pytest.param(True, id="dst32")]
SHAPE = tensor_shape()


def select(cond, a, b):
    return where(cond, a, b)


def causal_mask(cond, s, _unused):
    return where(cond, s, -math.inf)


def masked_exp(cond, s, _unused):
    return where(cond, s, -math.inf).exp()


def mask_times_scale(cond, s, b):
    return where(cond, s * 0.5, b + 1.0)


def ternary_kernel(expr, *, fp32_dest: bool, grid=GRID):
    """out block = expr(cond block, a block, b block); core (r, c) handles block (r, c)."""

    @pykernel_gen(grid=grid, block_factors=[BLOCK] * 4, fp32_dest_acc_en=fp32_dest)
    def ternary(cond, a, b, out):
        cond_acc, a_acc, b_acc = TensorAccessor(cond), TensorAccessor(a), TensorAccessor(b)
        out_acc = TensorAccessor(out)

        @compute()
        def apply(
            cond_cb: CircularBuffer,
            a_cb: CircularBuffer,
            b_cb: CircularBuffer,
            out_cb: CircularBuffer,
        ):
            with cond_cb.wait() as c, a_cb.wait() as x, b_cb.wait() as y, out_cb.reserve() as o:
                o.store(expr(c, x, y))

        @datamovement()
        def reader(
            cond_cb: CircularBuffer,
            a_cb: CircularBuffer,
            b_cb: CircularBuffer,
            out_cb: CircularBuffer,
        ):
            row, col = core_index(0) * BLOCK[0], core_index(1) * BLOCK[1]
            with cond_cb.reserve() as blk:
                dma(cond_acc[row, col], blk).wait()
            with a_cb.reserve() as blk:
                dma(a_acc[row, col], blk).wait()
            with b_cb.reserve() as blk:
                dma(b_acc[row, col], blk).wait()

        @datamovement()
        def writer(
            cond_cb: CircularBuffer,
            a_cb: CircularBuffer,
            b_cb: CircularBuffer,
            out_cb: CircularBuffer,
        ):
            with out_cb.wait() as blk:
                dma(blk, out_acc[core_index(0) * BLOCK[0], core_index(1) * BLOCK[1]]).wait()

        return Program(apply, reader, writer)(cond, a, b, out)

    return ternary


def inputs(dtype, seed):
    generator = torch.Generator().manual_seed(seed)
    cond = (torch.rand(SHAPE, generator=generator) < 0.5).to(dtype)
    a = torch.randn(SHAPE, generator=generator).to(dtype)
    b = (torch.randn(SHAPE, generator=generator) * 100).to(dtype)
    return cond, a, b


@pytest.mark.parametrize("fp32_dest", DST_MODES)
def test_where_selects_exactly(fp32_dest):
    cond, a, b = inputs(torch.bfloat16, seed=11)
    out = torch.zeros(SHAPE, dtype=torch.bfloat16)
    ternary_kernel(select, fp32_dest=fp32_dest)(cond, a, b, out)
    assert (cond != 0).any() and (cond == 0).any()
    assert torch.equal(out, torch.where(cond != 0, a, b))


def test_where_fp32_tensors_with_fp32_dest():
    cond, a, b = inputs(torch.float32, seed=12)
    a = a + 1e-3  # values that bf16 cannot hold: they must survive unrounded
    out = torch.zeros(SHAPE)
    ternary_kernel(select, fp32_dest=True)(cond, a, b, out)
    assert torch.equal(out, torch.where(cond != 0, a, b))


@pytest.mark.parametrize("fp32_dest", DST_MODES)
def test_where_operands_computed_in_dst(fp32_dest):
    """Both sides are results of other ops (already in DST): exact up to the ops'
    own rounding, which is exact here (a bf16 times 0.5; b + 1 stated at one bf16 ulp)."""
    cond, a, b = inputs(torch.bfloat16, seed=13)
    out = torch.zeros(SHAPE, dtype=torch.bfloat16)
    ternary_kernel(mask_times_scale, fp32_dest=fp32_dest)(cond, a, b, out)
    expected = torch.where(cond != 0, a.float() * 0.5, (b.float() + 1.0).to(torch.bfloat16).float())
    assert torch.equal(out.float(), expected)


def causal_inputs():
    """A lower-triangular 0/1 mask over the whole 128x128 tensor (so blocks above,
    on and below the diagonal are all-zero, triangular and all-one) and scores."""
    cond = torch.tril(torch.ones(SHAPE)).to(torch.bfloat16)
    s = torch.randn(SHAPE, generator=torch.Generator().manual_seed(14)).to(torch.bfloat16)
    return cond, s, torch.zeros(SHAPE, dtype=torch.bfloat16)


@pytest.mark.parametrize("fp32_dest", DST_MODES)
def test_causal_mask_with_minus_infinity(fp32_dest):
    cond, s, unused = causal_inputs()
    out = torch.zeros(SHAPE, dtype=torch.bfloat16)
    ternary_kernel(causal_mask, fp32_dest=fp32_dest)(cond, s, unused, out)
    expected = torch.where(cond != 0, s, torch.tensor(-math.inf, dtype=torch.bfloat16))
    assert torch.equal(out, expected)
    assert out.isneginf().sum() == (cond == 0).sum() > 0


@pytest.mark.parametrize("fp32_dest", DST_MODES)
def test_causal_masked_exp(fp32_dest):
    """exp of the masked scores: masked positions are exactly 0, the others exp(s)
    within the emulator's exact exp and one bf16 rounding (2^-8 relative)."""
    cond, s, unused = causal_inputs()
    out = torch.zeros(SHAPE, dtype=torch.bfloat16)
    ternary_kernel(masked_exp, fp32_dest=fp32_dest)(cond, s, unused, out)
    keep = cond != 0
    assert torch.equal(out[~keep], torch.zeros_like(out[~keep]))
    expected = s.float().exp()[keep]
    assert torch.allclose(out[keep].float(), expected, rtol=2**-8, atol=0.0)


def where_row_max(cond, a, _unused):
    return where(cond, a, a.rowmax())


@pytest.mark.parametrize("fp32_dest", DST_MODES)
def test_where_with_a_broadcast_operand(fp32_dest):
    """The false side is each block row's max (a column broadcast across the row);
    a max and a select are both exact."""
    cond, a, unused = inputs(torch.bfloat16, seed=15)
    out = torch.zeros(SHAPE, dtype=torch.bfloat16)
    ternary_kernel(where_row_max, fp32_dest=fp32_dest)(cond, a, unused, out)
    rows, cols = BLOCK[0] * TILE, BLOCK[1] * TILE
    expected = torch.empty_like(a)
    for r in range(GRID[0]):
        for c in range(GRID[1]):
            window = (slice(r * rows, (r + 1) * rows), slice(c * cols, (c + 1) * cols))
            block = a[window]
            row_max = block.max(dim=1, keepdim=True).values.expand_as(block)
            expected[window] = torch.where(cond[window] != 0, block, row_max)
    assert torch.equal(out, expected)
