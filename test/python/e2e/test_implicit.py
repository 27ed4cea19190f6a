"""Implicit operands: tensors no thread moves with `dma` get generated readers and
writers (d2m-generate-datamovement), sharded over the grid by their blocks
(docs/dsl.md, "Implicit operands"). Compared with torch on multi-core grids."""

from __future__ import annotations

import re

import pytest
import torch

from e2e_kernels import TILE, assert_close, random_bf16
from examples.matmul_implicit import main as matmul_example
from examples.matmul_implicit import matmul_kernel
from ttlang import (
    CircularBuffer,
    Program,
    TensorAccessor,
    compute,
    core_index,
    datamovement,
    dma,
    pykernel_gen,
)
from ttlang.dsl.diagnostics import KernelError
from ttlang.runtime import trace

# bf16 results of values below 4 in magnitude: half an ulp is 2^-7
BF16_ROUNDING = 2**-6


def elementwise_kernel(grid, block, shard_blocks, with_pass_threads: int):
    """out = a * b + a on implicit operands; `shard_blocks` blocks per core."""

    @compute()
    def apply(a_cb: CircularBuffer, b_cb: CircularBuffer, out_cb: CircularBuffer):
        for _ in range(shard_blocks):
            with a_cb.wait() as x, b_cb.wait() as y, out_cb.reserve() as o:
                o.store(x * y + x)

    @datamovement()
    def idle(a_cb: CircularBuffer, b_cb: CircularBuffer, out_cb: CircularBuffer):
        pass

    @datamovement()
    def also_idle(a_cb: CircularBuffer, b_cb: CircularBuffer, out_cb: CircularBuffer):
        pass

    threads = (apply, idle, also_idle)[: 1 + with_pass_threads]

    @pykernel_gen(grid=grid, block_factors=[block] * 3)
    def fma(a, b, out):
        return Program(*threads)(a, b, out)

    return fma


@pytest.mark.parametrize(
    "grid, block, shard, pass_threads",
    [
        ((2, 2), (1, 1), (1, 1), 0),  # one block per core, compute thread only
        ((2, 2), (1, 2), (2, 4), 1),  # streaming: 4 blocks per core; one `pass` thread
        ((1, 3), (2, 1), (4, 2), 2),  # streaming down a column of tiles; two `pass` threads
        ((3, 1), (1, 1), (2, 3), 0),
    ],
)
def test_elementwise_on_implicit_operands(grid, block, shard, pass_threads):
    blocks = (shard[0] // block[0]) * (shard[1] // block[1])
    kernel = elementwise_kernel(grid, block, blocks, pass_threads)
    shape = (grid[0] * shard[0] * TILE, grid[1] * shard[1] * TILE)
    a, b = random_bf16(shape, -1, 1, seed=1), random_bf16(shape, -1, 1, seed=2)
    out = torch.zeros(shape, dtype=torch.bfloat16)
    kernel(a, b, out)
    # a*b rounded to bf16 then a*b + a rounded: two roundings of values below 2
    assert_close(out, a.float() * b.float() + a.float(), max_abs=BF16_ROUNDING, min_pcc=0.999)


@pytest.mark.parametrize(
    "grid, block, blocks_per_core, k_blocks",
    [
        ((2, 3), 2, (1, 1), 3),  # a multicast along rows of 3, b down columns of 2
        ((2, 2), 1, (2, 2), 4),  # 4 output blocks per core, K in 4 blocks
        ((1, 4), 2, (2, 1), 2),  # b not shared (one grid row); a to 4 cores
        ((3, 2), 1, (1, 2), 3),  # a's senders in columns 1, 0, 1; b's in rows 0, 1
    ],
)
def test_matmul_streams_k_and_multicasts(grid, block, blocks_per_core, k_blocks):
    m = grid[0] * blocks_per_core[0] * block * TILE
    n = grid[1] * blocks_per_core[1] * block * TILE
    k = k_blocks * block * TILE
    kernel = matmul_kernel(grid, block, k_blocks, blocks_per_core[0] * blocks_per_core[1])
    a, b = random_bf16((m, k), -1, 1, seed=3), random_bf16((k, n), -1, 1, seed=4)
    out = torch.zeros((m, n), dtype=torch.bfloat16)
    kernel(a, b, out)
    expected = a.float() @ b.float()
    # products accumulated in bf16 DST, rounded per K block: |result| < ~8, ulp 2^-4
    assert_close(out, expected, max_abs=0.25, min_pcc=0.999)
    if grid[0] * grid[1] > 1:
        source = kernel.compile(a, b, out).sources["matmul_reader"]
        assert "noc_async_write_multicast" in source


def test_multicast_senders_sit_on_diagonals(tmp_path):
    """Each grid row's `a` and each grid column's `b` is read from DRAM by one core of
    it, row y's in column (y + 2) mod 4 and column x's in row x (docs/passes.md,
    d2m-generate-datamovement, *Senders*): two per NoC column, not the four of column
    0 that shared its links before. The product still matches torch."""
    grid, block, k_blocks = (4, 4), 1, 2
    m, n, k = grid[0] * block * TILE, grid[1] * block * TILE, k_blocks * block * TILE
    kernel = matmul_kernel(grid, block, k_blocks, 1)
    a, b = random_bf16((m, k), -1, 1, seed=5), random_bf16((k, n), -1, 1, seed=6)
    out = torch.zeros((m, n), dtype=torch.bfloat16)
    artifact = kernel.compile(a, b, out)
    artifact.trace(tmp_path / "matmul.json", [a, b, out])
    # products accumulated in bf16 DST, rounded per K block: |result| < 4, ulp 2^-6
    assert_close(out, a.float() @ b.float(), max_abs=0.0625, min_pcc=0.999)
    timeline = trace.load(tmp_path / "matmul.json")
    dram_readers = {
        core
        for (core, track), slices in timeline.slices.items()
        if track == "reader" and any(s.name == "noc_async_read" for s in slices)
    }
    assert dram_readers == {(y, (y + 2) % 4) for y in range(4)} | {(x, x) for x in range(4)}


def test_matmul_multicasts_large_blocks_in_pieces():
    """8x8-tile blocks (128 KiB): the senders read and multicast each a and b block in
    four pieces of two tile rows (32 KiB), each after its own read barrier. The
    receivers compute with the bytes the multicasts put into their CBs (the emulator
    moves a read's bytes into L1 at its barrier and a multicast's at its issue), so a
    piece multicast before its read landed, or to another offset, gives wrong products."""
    grid, block, k_blocks = (2, 2), 8, 2
    m, n, k = grid[0] * block * TILE, grid[1] * block * TILE, k_blocks * block * TILE
    kernel = matmul_kernel(grid, block, k_blocks, 1)
    a, b = random_bf16((m, k), -1, 1, seed=3), random_bf16((k, n), -1, 1, seed=4)
    out = torch.zeros((m, n), dtype=torch.bfloat16)
    kernel(a, b, out)
    # products accumulated in bf16 DST, rounded per K block: |result| < 36, ulp 2^-2
    assert_close(out, a.float() @ b.float(), max_abs=0.5, min_pcc=0.9999)
    reader = kernel.compile(a, b, out).sources["matmul_reader"]
    sizes = re.findall(r"noc_async_write_multicast\([^,]+, [^,]+, (\d+),", reader)
    piece = 2 * block * 2048  # two rows of bf16 tiles
    assert sizes and set(sizes) == {str(piece)}


@pykernel_gen(grid=(2, 2), block_factors=[(1, 1)] * 2)
def exp_with_explicit_reader(x, out):
    """x is read by a hand-written reader; out is implicit (generated writer)."""
    x_acc = TensorAccessor(x)

    @compute()
    def apply(x_cb: CircularBuffer, out_cb: CircularBuffer):
        with x_cb.wait() as a, out_cb.reserve() as o:
            o.store(a.exp())

    @datamovement()
    def reader(x_cb: CircularBuffer, out_cb: CircularBuffer):
        with x_cb.reserve() as blk:
            dma(x_acc[core_index(0), core_index(1)], blk).wait()

    return Program(apply, reader)(x, out)


def test_explicit_reader_with_implicit_output():
    x = random_bf16((2 * TILE, 2 * TILE), -2, 2, seed=7)
    out = torch.zeros_like(x)
    exp_with_explicit_reader(x, out)
    # exp of values in [-2, 2] is below 7.4, where a bf16 ulp is 2^-5
    assert_close(out, x.float().exp(), max_abs=2**-4, min_pcc=0.999)


def test_implicit_operands_the_grid_does_not_divide_are_a_kernel_error():
    kernel = elementwise_kernel((2, 2), (1, 1), 1, 0)
    shape = (3 * TILE, 2 * TILE)
    tensors = [torch.zeros(shape, dtype=torch.bfloat16) for _ in range(3)]
    with pytest.raises(KernelError) as error:
        kernel(*tensors)
    message = str(error.value)
    assert "test_implicit.py" in message
    assert "d2m-generate-datamovement" in message
    assert "does not divide it" in message


def test_matmul_example(capsys):
    matmul_example()
    assert "matches torch" in capsys.readouterr().out
