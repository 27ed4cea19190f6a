"""End-to-end tests of d2m-deferred-row-sum on the emulator against torch: a row sum
carried across a loop and read after it (`l = l * c + rowsum(x)`, `l = l + rowsum(x)`)
adds the tiles of each block onto a tile-wide partial and takes the row sum once, after
the loop, in 16-bit and 32-bit DST.

Besides the numbers, each test checks the rewrite happened: the compute kernel adds
tiles with dest reuse (`add_reuse_dest_tiles`) and runs one reduce_tile per tile of the
sum (the final row sum), so it cannot pass by the old path (a reduce_tile per tile of x).

Tolerances: x uniform in [-1, 1], ROWS x (CHUNKS * COLS) tiles; the sums reach ~30
(bf16 ulp 0.125 between 16 and 32), the scaled form's factors are row maxima (~1).
Measured max-abs error against float32 torch (column 0 of each sum tile, where the row
sum is), l*c+rowsum / l+rowsum: 0.116 / 0.154 (16-bit DST), 0.070 / 0.080 (32-bit
DST); the reduce-per-tile path on the same inputs: 0.116 / 0.117, 0.070 / 0.072.
Asserted: max-abs 0.25 (two ulps), PCC 0.9999.
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
    pykernel_gen,
    zeros,
)

ROWS, COLS, CHUNKS = 2, 3, 4  # tiles: rows of the sum, columns per chunk, chunks
MAX_ABS = 0.25
MIN_PCC = 0.9999


def running_row_sum(scaled: bool, fp32_dest: bool):
    """l = 0; for each chunk x of COLS tiles: l = l * rowmax(x) + rowsum(x) (`scaled`) or
    l = l + rowsum(x); out = l."""

    @pykernel_gen(
        grid=(1, 1), block_factors=[(ROWS, COLS), (ROWS, 1)], fp32_dest_acc_en=fp32_dest
    )
    def row_sum(x, out):
        x_acc, o_acc = TensorAccessor(x), TensorAccessor(out)

        @compute()
        def accumulate(x_cb: CircularBuffer, o_cb: CircularBuffer):
            l = zeros((ROWS * TILE, 1))
            for _chunk in range(CHUNKS):
                with x_cb.wait() as xb:
                    if scaled:
                        l = l * xb.rowmax() + xb.rowsum()
                    else:
                        l = l + xb.rowsum()
            with o_cb.reserve() as o:
                o.store(l)

        @datamovement()
        def reader(x_cb: CircularBuffer, o_cb: CircularBuffer):
            for chunk in range(CHUNKS):
                with x_cb.reserve() as blk:
                    dma(x_acc[0, chunk * COLS], blk).wait()

        @datamovement()
        def writer(x_cb: CircularBuffer, o_cb: CircularBuffer):
            with o_cb.wait() as blk:
                dma(blk, o_acc[0, 0]).wait()

        return Program(accumulate, reader, writer)(x, out)

    return row_sum


def _reference(x: torch.Tensor, scaled: bool) -> torch.Tensor:
    l = torch.zeros(x.shape[0])
    for chunk in x.float().split(COLS * TILE, dim=1):
        l = l * chunk.amax(dim=1) + chunk.sum(dim=1) if scaled else l + chunk.sum(dim=1)
    return l


@pytest.mark.parametrize("fp32_dest", [False, True], ids=["dst16", "dst32"])
@pytest.mark.parametrize("scaled", [True, False], ids=["l*c+rowsum", "l+rowsum"])
def test_carried_row_sum_is_deferred(scaled: bool, fp32_dest: bool):
    x = random_bf16((ROWS * TILE, CHUNKS * COLS * TILE), -1.0, 1.0, seed=71)
    out = torch.zeros(ROWS * TILE, TILE, dtype=torch.bfloat16)
    artifact = running_row_sum(scaled, fp32_dest).compile(x, out)
    compute_source = next(k.source for k in artifact.program.kernels if k.kind == "compute")
    assert "add_reuse_dest_tiles" in compute_source
    assert compute_source.count("reduce_tile<PoolType::SUM") == 1, compute_source
    artifact.run([x, out])
    assert_close(out[:, 0].float(), _reference(x, scaled), max_abs=MAX_ABS, min_pcc=MIN_PCC)
