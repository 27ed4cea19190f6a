"""The emulator's per-thread CB traffic counters (report.json `tiles_unpacked` /
`tiles_packed`, `TimingReport.cb_tile_traffic`): tiles the compute thread reads from
CBs into DST or the FPU's source registers, and tiles it packs into CBs."""

from __future__ import annotations

import torch
from e2e_kernels import BLOCK, GRID, binary_kernel, random_bf16, tensor_shape

from ttlang import CircularBuffer, Program, TensorAccessor, compute, datamovement, dma, pykernel_gen

TILES_PER_BLOCK = BLOCK[0] * BLOCK[1]
CORES = GRID[0] * GRID[1]


def _compute_threads(report):
    return [t for core in report.cores for t in core.threads if t.thread == "compute"]


def test_fpu_add_unpacks_both_operands_and_packs_the_result():
    shape = tensor_shape()
    a, b = random_bf16(shape, -1, 1, seed=70), random_bf16(shape, -1, 1, seed=71)
    out = torch.zeros(shape, dtype=torch.bfloat16)
    artifact = binary_kernel(lambda x, y: x + y).compile(a, b, out)
    report = artifact.run([a, b, out]).report
    for thread in _compute_threads(report):  # add_tiles reads both tiles from CBs
        assert (thread.tiles_unpacked, thread.tiles_packed) == (
            2 * TILES_PER_BLOCK,
            TILES_PER_BLOCK,
        )
    for core in report.cores:  # data-movement threads do not unpack or pack
        assert all(
            t.tiles_unpacked == t.tiles_packed == 0 for t in core.threads if t.thread != "compute"
        )
    assert report.cb_tile_traffic == (2 * TILES_PER_BLOCK * CORES, TILES_PER_BLOCK * CORES)


@pykernel_gen(grid=(1, 1), block_factors=[(2, 3), (3, 1), (2, 1)])
def one_matmul(a, b, out):
    a_acc, b_acc, out_acc = TensorAccessor(a), TensorAccessor(b), TensorAccessor(out)

    @compute()
    def mm(a_cb: CircularBuffer, b_cb: CircularBuffer, out_cb: CircularBuffer):
        with a_cb.wait() as x, b_cb.wait() as y, out_cb.reserve() as o:
            o.store(x @ y)

    @datamovement()
    def reader(a_cb: CircularBuffer, b_cb: CircularBuffer, out_cb: CircularBuffer):
        with a_cb.reserve() as blk:
            dma(a_acc[0, 0], blk).wait()
        with b_cb.reserve() as blk:
            dma(b_acc[0, 0], blk).wait()

    @datamovement()
    def writer(a_cb: CircularBuffer, b_cb: CircularBuffer, out_cb: CircularBuffer):
        with out_cb.wait() as blk:
            dma(blk, out_acc[0, 0]).wait()

    return Program(mm, reader, writer)(a, b, out)


def test_matmul_unpacks_two_tiles_per_tile_product():
    a, b = random_bf16((64, 96), -1, 1, seed=72), random_bf16((96, 32), -1, 1, seed=73)
    out = torch.zeros(64, 32, dtype=torch.bfloat16)
    report = one_matmul.compile(a, b, out).run([a, b, out]).report
    (thread,) = _compute_threads(report)
    # 2 x 1 output tiles, K = 3 tile products each, two CB tiles per product
    assert (thread.tiles_unpacked, thread.tiles_packed) == (2 * 1 * 3 * 2, 2)
