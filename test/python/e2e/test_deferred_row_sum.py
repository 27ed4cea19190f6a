"""End-to-end tests of d2m-deferred-row-sum and d2m-row-sum-on-pack on the emulator
against torch: a row sum carried across a loop and read after it adds the tiles of each
block onto a tile-wide partial and takes the row sum once, after the loop, in 16-bit and
32-bit DST. Two kernels, one per lowering of the tile sums:

- a streaming softmax denominator, `l = l * exp(m - m_new) + exp(x - m_new).rowsum()`
  (FlashAttention's): `exp(x - m_new)` is computed in DST by a generic of its own, whose
  packer adds each tile onto the partial (`pack_reconfig_l1_acc`);
- a running sum of the blocks read, `l = l + x.rowsum()`: `x` comes from a CB, its tiles
  are added onto the partial in DST by the FPU (`add_reuse_dest_tiles`).

Besides the numbers, each test checks the rewrite happened: the IR after
d2m-deferred-row-sum reduces with `d2m.tile_reduce_sum` once, after the loop's
`d2m.tile_accumulate`, and the compute kernel has the lowering's call, so it cannot pass
by the old path (a reduce_tile per tile of x).

Tolerances: x uniform in [-1, 1] with its rows scaled by 0.5 to 4 (so the sums lie far
apart), ROWS x (CHUNKS * COLS) tiles; the denominators reach ~253 (bf16 ulp 1 between 128
and 256), the running sums ~62 (ulp 0.25 between 32 and 64). Measured max-abs error
against float32 torch (column 0 of each sum tile, where the row sum is), denominator /
running sum: 0.42 / 0.43 (16-bit DST), 0.58 / 0.24 (32-bit DST); the reduce-per-tile
path on the same inputs: 1.62 / 0.43 and 1.08 / 0.24. Asserted: max-abs two ulps of
the largest sum, PCC 0.9999.
"""

from __future__ import annotations

import pytest
import torch
from e2e_kernels import TILE, assert_close, random_bf16

from ttlang import (
    CircularBuffer,
    Program,
    TensorAccessor,
    compute,
    datamovement,
    dma,
    full,
    maximum,
    pykernel_gen,
    zeros,
)

ROWS, COLS, CHUNKS = 2, 3, 4  # tiles: rows of the sum, columns per chunk, chunks
MIN_PCC = 0.9999


def running_row_sum(softmax: bool, fp32_dest: bool, inverse: bool = False, split: bool = False):
    """For each chunk x of COLS tiles: `softmax`, the softmax denominator
    l = l * exp(m - m_new) + exp(x - m_new).rowsum() with m the running row max; else
    l = l + x.rowsum(). out = l, or 1 / l with `inverse` (not with `softmax`). `split`
    (softmax): the third chunk's step between two loops, as causal FlashAttention's
    diagonal step, its sum's block reserved for the second loop after `exp(x - m_new)`."""

    def reciprocal(l):
        return l.recip()

    def same(l):
        return l

    finish = reciprocal if inverse else same

    @pykernel_gen(
        grid=(1, 1), block_factors=[(ROWS, COLS), (ROWS, 1)], fp32_dest_acc_en=fp32_dest
    )
    def row_sum(x, out):
        x_acc, o_acc = TensorAccessor(x), TensorAccessor(out)

        @compute()
        def denominator(x_cb: CircularBuffer, o_cb: CircularBuffer):
            m = full((ROWS * TILE, 1), -1e30)
            l = zeros((ROWS * TILE, 1))
            for _chunk in range(CHUNKS):
                with x_cb.wait() as xb:
                    m_new = maximum(m, xb.rowmax())
                    l = l * (m - m_new).exp() + (xb - m_new).exp().rowsum()
                    m = m_new
            with o_cb.reserve() as o:
                o.store(l)

        def step(xb, m, l):
            m_new = maximum(m, xb.rowmax())
            return m_new, l * (m - m_new).exp() + (xb - m_new).exp().rowsum()

        @compute()
        def denominator_split(x_cb: CircularBuffer, o_cb: CircularBuffer):
            m = full((ROWS * TILE, 1), -1e30)
            l = zeros((ROWS * TILE, 1))
            for _chunk in range(CHUNKS - 2):
                with x_cb.wait() as xb:
                    m, l = step(xb, m, l)
            with x_cb.wait() as xb:
                m, l = step(xb, m, l)
            for _chunk in range(1):
                with x_cb.wait() as xb:
                    m, l = step(xb, m, l)
            with o_cb.reserve() as o:
                o.store(l)

        @compute()
        def running_sum(x_cb: CircularBuffer, o_cb: CircularBuffer):
            l = zeros((ROWS * TILE, 1))
            for _chunk in range(CHUNKS):
                with x_cb.wait() as xb:
                    l = l + xb.rowsum()
            with o_cb.reserve() as o:
                o.store(finish(l))

        @datamovement()
        def reader(x_cb: CircularBuffer, o_cb: CircularBuffer):
            for chunk in range(CHUNKS):
                with x_cb.reserve() as blk:
                    dma(x_acc[0, chunk * COLS], blk).wait()

        @datamovement()
        def writer(x_cb: CircularBuffer, o_cb: CircularBuffer):
            with o_cb.wait() as blk:
                dma(blk, o_acc[0, 0]).wait()

        kept = denominator_split if split else denominator if softmax else running_sum
        return Program(kept, reader, writer)(x, out)

    return row_sum


def _reference(x: torch.Tensor, softmax: bool) -> torch.Tensor:
    x = x.float()
    if softmax:
        return (x - x.amax(dim=1, keepdim=True)).exp().sum(dim=1)
    return x.sum(dim=1)


@pytest.mark.parametrize("fp32_dest", [False, True], ids=["dst16", "dst32"])
@pytest.mark.parametrize(
    "softmax, lowering, other, ulp",
    [
        (True, "pack_reconfig_l1_acc(", "add_reuse_dest_tiles", 1.0),
        (False, "add_reuse_dest_tiles", "pack_reconfig_l1_acc(", 0.25),
    ],
    ids=["denominator-on-pack", "sum-on-fpu"],
)
def test_carried_row_sum_is_deferred(
    softmax: bool, lowering: str, other: str, ulp: float, fp32_dest: bool
):
    rows = torch.arange(ROWS * TILE, dtype=torch.float32)
    spread = (rows % 8 + 1).div(2).unsqueeze(1)  # rows scaled by 0.5 to 4: sums far apart
    x = (random_bf16((ROWS * TILE, CHUNKS * COLS * TILE), -1.0, 1.0, seed=71) * spread).bfloat16()
    out = torch.zeros(ROWS * TILE, TILE, dtype=torch.bfloat16)
    artifact = running_row_sum(softmax, fp32_dest).compile(x, out)
    deferred = str(artifact.stages["d2m-deferred-row-sum"])
    assert deferred.count("d2m.tile_reduce_sum") == 1, deferred
    assert deferred.rfind("d2m.tile_accumulate") < deferred.find("d2m.tile_reduce_sum")
    compute_source = next(k.source for k in artifact.program.kernels if k.kind == "compute")
    assert lowering in compute_source and other not in compute_source
    artifact.run([x, out])
    assert_close(out[:, 0].float(), _reference(x, softmax), max_abs=2 * ulp, min_pcc=MIN_PCC)


@pytest.mark.parametrize("fp32_dest", [False, True], ids=["dst16", "dst32"])
def test_reader_of_the_sum_is_its_epilogue(fp32_dest: bool):
    """The recip runs on the row sum in DST, in the reduction's section: no pack of the
    sum between reduce_tile and recip_tile. x in [0.5, 1.5] with rows scaled by 0.5 to 4:
    1 / l is 6.4e-4 to 5.3e-3. Measured max-abs 2.3e-5 (16-bit DST) and 1.7e-5 (32-bit),
    PCC 0.99999; asserted max-abs two bf16 ulps (2^-7 each) of the largest, PCC 0.9999."""
    rows = torch.arange(ROWS * TILE, dtype=torch.float32)
    spread = (rows % 8 + 1).div(2).unsqueeze(1)
    x = (random_bf16((ROWS * TILE, CHUNKS * COLS * TILE), 0.5, 1.5, seed=72) * spread).bfloat16()
    out = torch.zeros(ROWS * TILE, TILE, dtype=torch.bfloat16)
    artifact = running_row_sum(False, fp32_dest, inverse=True).compile(x, out)
    deferred = str(artifact.stages["d2m-deferred-row-sum"])
    after_sum = deferred[deferred.find("d2m.tile_reduce_sum") :]
    assert 0 <= after_sum.find("d2m.tile_recip") < after_sum.find("linalg.yield"), deferred
    source = next(k.source for k in artifact.program.kernels if k.kind == "compute")
    reduce, recip = source.find("reduce_tile<PoolType::SUM"), source.find("recip_tile(")
    assert 0 <= reduce < recip and "pack_tile" not in source[reduce:recip], source
    artifact.run([x, out])
    expected = 1.0 / _reference(x, softmax=False)
    max_abs = 2 * 2**-7 * expected.max().item()
    assert_close(out[:, 0].float(), expected, max_abs=max_abs, min_pcc=MIN_PCC)


@pytest.mark.parametrize("fp32_dest", [False, True], ids=["dst16", "dst32"])
def test_sum_reserved_late_is_summed_on_pack(fp32_dest: bool):
    """A step between two loops (causal FlashAttention's diagonal step) reserves its
    sum's block, the second loop's init, after the generic computing the tiles: the
    reserve moves up and that generic's packer adds the tiles too (no FPU adds of the
    tiles anywhere). Same inputs and bounds as the softmax denominator above (measured
    max-abs 0.42 / 0.58 in 16 / 32-bit DST, PCC 0.99999)."""
    rows = torch.arange(ROWS * TILE, dtype=torch.float32)
    spread = (rows % 8 + 1).div(2).unsqueeze(1)
    x = (random_bf16((ROWS * TILE, CHUNKS * COLS * TILE), -1.0, 1.0, seed=71) * spread).bfloat16()
    out = torch.zeros(ROWS * TILE, TILE, dtype=torch.bfloat16)
    artifact = running_row_sum(True, fp32_dest, split=True).compile(x, out)
    source = next(k.source for k in artifact.program.kernels if k.kind == "compute")
    assert "add_reuse_dest_tiles" not in source, source
    assert source.count("pack_reconfig_l1_acc(1)") >= 3, source
    artifact.run([x, out])
    assert_close(out[:, 0].float(), _reference(x, True), max_abs=2.0, min_pcc=MIN_PCC)
