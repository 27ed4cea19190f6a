"""Whole kernels through the driver: loop-carried accumulation, chains of operators
with temporaries, and the artifact (stages, sources, program, timing report)."""

from __future__ import annotations

import pytest
import torch
from e2e_kernels import TILE, assert_close, random_bf16

from examples import matmul as matmul_example

from ttlang import (
    CircularBuffer,
    Program,
    TensorAccessor,
    compute,
    core_index,
    datamovement,
    dma,
    full,
    maximum,
    pykernel_gen,
    zeros,
)
from ttlang.driver import DEFAULT_PIPELINE, FRONTEND_STAGE
from ttlang.runtime.program import NocCoordinate

BLOCK = 2
GRID = 2
K_BLOCKS = 3


@pytest.mark.parametrize("fp32_dest", [False, True], ids=["dst16", "dst32"])
def test_k_loop_matmul(fp32_dest: bool):
    """examples/matmul.py at K = 192: each block product (K = 64) accumulates in DST,
    block sums are bf16."""
    block = matmul_example.BLOCK
    m = n = matmul_example.GRID * block * TILE
    k = K_BLOCKS * block * TILE
    a = random_bf16((m, k), -1.0, 1.0, seed=10)
    b = random_bf16((k, n), -1.0, 1.0, seed=11)
    out = torch.zeros(m, n, dtype=torch.bfloat16)
    matmul_example.matmul_kernel(fp32_dest_acc_en=fp32_dest)(a, b, out)
    # |result| <~ 25 where a bf16 ulp is 0.125; three bf16 roundings of partial sums
    assert_close(out, a.float() @ b.float(), max_abs=0.4, min_pcc=0.999)


@pykernel_gen(grid=(GRID, GRID), block_factors=[(BLOCK, BLOCK)] * 3)
def fused_chain(a, b, out):
    """recip(sqrt(exp(aᵀ @ b - 1))) per 2x2-tile block on a 2x2 grid: six generics and
    five temporaries in compute-local CBs."""
    a_acc, b_acc, out_acc = TensorAccessor(a), TensorAccessor(b), TensorAccessor(out)

    @compute()
    def chain(a_cb: CircularBuffer, b_cb: CircularBuffer, out_cb: CircularBuffer):
        with a_cb.wait() as x, b_cb.wait() as y, out_cb.reserve() as o:
            o.store(((x.transpose() @ y) - 1.0).exp().sqrt().recip())

    @datamovement()
    def reader(a_cb: CircularBuffer, b_cb: CircularBuffer, out_cb: CircularBuffer):
        row, col = core_index(0) * BLOCK, core_index(1) * BLOCK
        with a_cb.reserve() as blk:
            dma(a_acc[row, col], blk).wait()
        with b_cb.reserve() as blk:
            dma(b_acc[row, col], blk).wait()

    @datamovement()
    def writer(a_cb: CircularBuffer, b_cb: CircularBuffer, out_cb: CircularBuffer):
        with out_cb.wait() as blk:
            dma(blk, out_acc[core_index(0) * BLOCK, core_index(1) * BLOCK]).wait()

    return Program(chain, reader, writer)(a, b, out)


def _chain_inputs():
    shape = (GRID * BLOCK * TILE, GRID * BLOCK * TILE)
    a = random_bf16(shape, -0.3, 0.3, seed=12)
    b = random_bf16(shape, -0.3, 0.3, seed=13)
    return a, b, torch.zeros(shape, dtype=torch.bfloat16)


def test_fused_chain():
    a, b, out = _chain_inputs()
    fused_chain(a, b, out)
    side = BLOCK * TILE
    expected = torch.empty_like(out, dtype=torch.float32)
    for r in range(GRID):
        for c in range(GRID):
            window = (slice(r * side, (r + 1) * side), slice(c * side, (c + 1) * side))
            x, y = a[window].float(), b[window].float()
            expected[window] = torch.rsqrt(torch.exp(x.T @ y - 1.0))
    # values in ~[1.2, 2.3] (bf16 ulp 0.0078-0.0156); five operators, each rounding
    # its result to bf16
    assert_close(out, expected, max_abs=0.05)


def test_artifact_keeps_every_stage():
    a, b, out = _chain_inputs()
    artifact = fused_chain.compile(a, b, out)
    assert list(artifact.stages) == [FRONTEND_STAGE, *DEFAULT_PIPELINE]
    assert "tensor<" in artifact.stages[FRONTEND_STAGE]
    assert "memref.alloc" in artifact.stages["d2m-bufferize"]
    assert "d2m.local_cb" in artifact.stages["d2m-memref-provenance"]
    assert (
        "tensor<"
        not in artifact.stages["d2m-bufferize"].split("d2m.generic", 1)[1].split("}, {", 1)[0]
    )
    assert "d2m.acquire_dst" in artifact.stages["d2m-lower-to-loops"]
    assert "ttkernel.matmul_tiles" in artifact.stages["convert-d2m-to-ttkernel"]
    assert set(artifact.sources) == {
        "fused_chain_compute",
        "fused_chain_reader",
        "fused_chain_writer",
    }
    assert "transpose_tile" in artifact.sources["fused_chain_compute"]
    program = artifact.program
    assert program.grid == (GRID, GRID)
    # three operand CBs (two blocks each) and one temporary, the transposed operand of the
    # matmul (fusion keeps the other four intermediates in DST)
    assert [cb.num_pages for cb in program.cbs] == [8, 8, 8, 4]
    assert all(kernel.compile_time_args == tuple(range(4)) for kernel in program.kernels)
    reader_args = program.runtime_args["fused_chain_reader"]
    assert reader_args[(1, 0)][3:7] == [1, 0, GRID, GRID]
    # then the NoC coordinate of every grid column and row, filled in by the launcher
    noc = [NocCoordinate("x", c) for c in range(GRID)] + [NocCoordinate("y", r) for r in range(GRID)]
    assert reader_args[(1, 0)][7:] == noc

    artifact.run([a, b, out])
    report = artifact.perf()
    assert report.grid == (GRID, GRID) and report.cycles > 0
    # one (64 x 64) @ (64 x 64) block product per core: 2 * 64^3 FLOPs each
    assert report.flops == GRID * GRID * 2 * (BLOCK * TILE) ** 3


STEPS = 3


@pykernel_gen(grid=(1, 2), block_factors=[(BLOCK, BLOCK)] * 2)
def running_max_and_sum(x, out):
    """Two loop-carried blocks: the elementwise max and sum of STEPS blocks of x per
    core; out = max - sum / STEPS."""
    x_acc, out_acc = TensorAccessor(x), TensorAccessor(out)

    @compute()
    def reduce_steps(x_cb: CircularBuffer, out_cb: CircularBuffer):
        top = full((BLOCK * TILE, BLOCK * TILE), -100.0)
        total = zeros((BLOCK * TILE, BLOCK * TILE))
        for _step in range(STEPS):
            with x_cb.wait() as blk:
                top = maximum(top, blk)
                total = total + blk
        with out_cb.reserve() as o:
            o.store(top - total * (1.0 / STEPS))

    @datamovement()
    def reader(x_cb: CircularBuffer, out_cb: CircularBuffer):
        for step in range(STEPS):
            with x_cb.reserve() as blk:
                dma(x_acc[step * BLOCK, core_index(1) * BLOCK], blk).wait()

    @datamovement()
    def writer(x_cb: CircularBuffer, out_cb: CircularBuffer):
        with out_cb.wait() as blk:
            dma(blk, out_acc[0, core_index(1) * BLOCK]).wait()

    return Program(reduce_steps, reader, writer)(x, out)


def test_two_loop_carried_blocks():
    side = BLOCK * TILE
    x = random_bf16((STEPS * side, 2 * side), -2.0, 2.0, seed=14)
    out = torch.zeros(side, 2 * side, dtype=torch.bfloat16)
    running_max_and_sum(x, out)
    steps = x.float().reshape(STEPS, side, 2 * side)
    expected = steps.max(dim=0).values - steps.sum(dim=0) / STEPS
    # sums of three values in [-2, 2] rounded to bf16 after each step
    assert_close(out, expected, max_abs=0.05)


@pykernel_gen(grid=(1, 2), block_factors=[(1, BLOCK, BLOCK)] * 3)
def batched_matmul_transposed(a, b, out):
    """out[i] = a[i] @ b[i]ᵀ with a batch dim: core (0, c) takes batch entry c."""
    a_acc, b_acc, out_acc = TensorAccessor(a), TensorAccessor(b), TensorAccessor(out)

    @compute()
    def mm(a_cb: CircularBuffer, b_cb: CircularBuffer, out_cb: CircularBuffer):
        with a_cb.wait() as x, b_cb.wait() as y, out_cb.reserve() as o:
            o.store(x @ y.transpose())

    @datamovement()
    def reader(a_cb: CircularBuffer, b_cb: CircularBuffer, out_cb: CircularBuffer):
        with a_cb.reserve() as blk:
            dma(a_acc[core_index(1), 0, 0], blk).wait()
        with b_cb.reserve() as blk:
            dma(b_acc[core_index(1), 0, 0], blk).wait()

    @datamovement()
    def writer(a_cb: CircularBuffer, b_cb: CircularBuffer, out_cb: CircularBuffer):
        with out_cb.wait() as blk:
            dma(blk, out_acc[core_index(1), 0, 0]).wait()

    return Program(mm, reader, writer)(a, b, out)


def test_batched_matmul_with_transpose():
    """Rank-3 blocks: batch-dim DMA page indices and rank-3 generics."""
    shape = (2, BLOCK * TILE, BLOCK * TILE)
    a = random_bf16(shape, -1.0, 1.0, seed=15)
    b = random_bf16(shape, -1.0, 1.0, seed=16)
    out = torch.zeros(shape, dtype=torch.bfloat16)
    batched_matmul_transposed(a, b, out)
    # K = 64 products of values in [-1, 1]: |result| <~ 8, where a bf16 ulp is 0.03
    assert_close(out, a.float() @ b.float().transpose(1, 2), max_abs=0.1, min_pcc=0.999)


ROW_TILES = 4


@pykernel_gen(grid=(2, 1), block_factors=[(1, ROW_TILES)] * 2)
def layernorm(x, out):
    """Row layernorm (no affine), two 32-row strips per core in a loop: reductions,
    scalar ops on their results, column broadcasts and rsqrt, with temporaries in
    local CBs inside the loop."""
    x_acc, out_acc = TensorAccessor(x), TensorAccessor(out)

    @compute()
    def normalize(x_cb: CircularBuffer, out_cb: CircularBuffer):
        for _strip in range(2):
            with x_cb.wait() as s, out_cb.reserve() as o:
                mean = s.rowsum() * (1.0 / (ROW_TILES * TILE))
                centered = s - mean
                variance = (centered * centered).rowsum() * (1.0 / (ROW_TILES * TILE))
                o.store(centered * (variance + 1e-5).rsqrt())

    @datamovement()
    def reader(x_cb: CircularBuffer, out_cb: CircularBuffer):
        for strip in range(2):
            with x_cb.reserve() as blk:
                dma(x_acc[core_index(0) * 2 + strip, 0], blk).wait()

    @datamovement()
    def writer(x_cb: CircularBuffer, out_cb: CircularBuffer):
        for strip in range(2):
            with out_cb.wait() as blk:
                dma(blk, out_acc[core_index(0) * 2 + strip, 0]).wait()

    return Program(normalize, reader, writer)(x, out)


def test_layernorm():
    x = random_bf16((4 * TILE, ROW_TILES * TILE), -3.0, 3.0, seed=17)
    out = torch.zeros_like(x)
    layernorm(x, out)
    expected = torch.nn.functional.layer_norm(x.float(), (ROW_TILES * TILE,))
    # normalized values up to ~1.8 (bf16 ulp 0.0078); mean and variance rounded to bf16
    assert_close(out, expected, max_abs=0.06, min_pcc=0.999)
