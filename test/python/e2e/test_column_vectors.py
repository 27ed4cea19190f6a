"""End-to-end test of arithmetic on column vectors ((R, 1) blocks, such as a running row
max) on the emulator against torch: d2m-dst-allocate reads the rhs of an add, sub or mul
of two column vectors from CBs column-broadcast (engine `fpu_bcast_col`), which equals
the elementwise op on column 0, the vectors' only data; their other columns differ from
the elementwise op's. The kernel is FlashAttention's rescaling without the matmuls:

    m_new = maximum(m, x.rowmax());  alpha = exp(m - m_new)
    acc = acc * alpha + exp(x - m_new);  m = m_new

over CHUNKS blocks of x, then out = acc and the row max. `m - m_new` reads both from
CBs (both are used by other generics too), so it is the broadcast sub; `acc * alpha`
and `x - m_new` broadcast column 0 of alpha and m_new over full blocks: a consumer
reading another column of a column vector would get other numbers (after the first
block, column c of the broadcast sub's result is m[r, c] - m_new[r, 0]) and fail the
comparison. The test also checks the rewrite happened (the engine in the IR and the
compute kernel's calls), so it cannot pass by the elementwise sub.

Tolerances: x uniform in [-2, 2], ROWS x (CHUNKS * COLS) tiles; acc's elements are sums
of CHUNKS exponentials of values <= 0, at most 2.70 here (bf16 ulp 1/64 between 2 and
4). Measured against float32 torch: max-abs 0.0149 (acc), 0 (row max), PCC 0.99999.
Asserted: acc max-abs 0.03 (two ulps), row max exact, PCC 0.9999. With `acc * alpha`
read elementwise (mul_tiles in place of mul_tiles_bcast<col>: alpha's other columns)
the acc is off by 1.98 (PCC 0.58); with the column-vector sub broadcasting row 0
instead of column 0, by 0.26 (PCC 0.998).
"""

from __future__ import annotations

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

ROWS, COLS, CHUNKS = 2, 2, 3  # tiles: rows, columns per chunk, chunks


@pykernel_gen(grid=(1, 1), block_factors=[(ROWS, COLS), (ROWS, COLS), (ROWS, 1)], num_outs=2)
def rescaled_sum(x, out, row_max):
    x_acc, o_acc, m_acc = TensorAccessor(x), TensorAccessor(out), TensorAccessor(row_max)

    @compute()
    def rescale(x_cb: CircularBuffer, o_cb: CircularBuffer, m_cb: CircularBuffer):
        m = full((ROWS * TILE, 1), float("-inf"))
        acc = zeros((ROWS * TILE, COLS * TILE))
        for _chunk in range(CHUNKS):
            with x_cb.wait() as xb:
                m_new = maximum(m, xb.rowmax())
                alpha = (m - m_new).exp()
                acc = acc * alpha + (xb - m_new).exp()
                m = m_new
        with o_cb.reserve() as o:
            o.store(acc)
        with m_cb.reserve() as mo:
            mo.store(m)

    @datamovement()
    def reader(x_cb: CircularBuffer, o_cb: CircularBuffer, m_cb: CircularBuffer):
        for chunk in range(CHUNKS):
            with x_cb.reserve() as blk:
                dma(x_acc[0, chunk * COLS], blk).wait()

    @datamovement()
    def writer(x_cb: CircularBuffer, o_cb: CircularBuffer, m_cb: CircularBuffer):
        with o_cb.wait() as blk:
            dma(blk, o_acc[0, 0]).wait()
        with m_cb.wait() as blk:
            dma(blk, m_acc[0, 0]).wait()

    return Program(rescale, reader, writer)(x, out, row_max)


def _reference(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    chunks = x.float().split(COLS * TILE, dim=1)
    m = torch.full((ROWS * TILE, 1), float("-inf"))
    acc = torch.zeros(ROWS * TILE, COLS * TILE)
    for xb in chunks:
        m_new = torch.maximum(m, xb.amax(dim=1, keepdim=True))
        acc = acc * (m - m_new).exp() + (xb - m_new).exp()
        m = m_new
    return acc, m[:, 0]


def test_column_vector_sub_reads_column_zero():
    x = random_bf16((ROWS * TILE, CHUNKS * COLS * TILE), -2.0, 2.0, seed=73)
    out = torch.zeros(ROWS * TILE, COLS * TILE, dtype=torch.bfloat16)
    row_max = torch.zeros(ROWS * TILE, TILE, dtype=torch.bfloat16)
    artifact = rescaled_sum.compile(x, out, row_max)
    allocated = str(artifact.stages["d2m-dst-allocate"])
    assert "d2m.tile_sub" in allocated and "fpu_bcast_col" in allocated, allocated
    compute_source = next(k.source for k in artifact.program.kernels if k.kind == "compute")
    assert "sub_tiles(" not in compute_source and "sub_init(" not in compute_source
    artifact.run([x, out, row_max])
    acc, m = _reference(x)
    assert_close(out.float(), acc, max_abs=0.03, min_pcc=0.9999)
    assert torch.equal(row_max[:, 0].float(), m)
