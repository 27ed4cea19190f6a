"""Kernel factories and comparisons for the end-to-end operator tests.

Each factory builds a DSL kernel whose compute thread applies one expression (a plain
Python helper the frontend inlines) to blocks of 2x2 tiles, on a multi-core grid:
core (r, c) reads the block (r, c) of every input and writes block (r, c) of the
output. The tests run them on the emulator and compare with torch.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from ttlang import (
    CircularBuffer,
    Program,
    TensorAccessor,
    block_index,
    compute,
    core_index,
    datamovement,
    dma,
    pykernel_gen,
)

TILE = 32
BLOCK = (2, 2)  # tiles per block
GRID = (2, 2)


def pcc(actual: torch.Tensor, expected: torch.Tensor) -> float:
    """Pearson correlation of two tensors, flattened (1.0 when they are equal)."""
    a, b = actual.double().flatten(), expected.double().flatten()
    if torch.equal(a, b):
        return 1.0
    return torch.corrcoef(torch.stack([a, b]))[0, 1].item()


def assert_close(
    actual: torch.Tensor, expected: torch.Tensor, *, max_abs: float, min_pcc: float = 0.99
) -> None:
    """PCC at least `min_pcc` and max-abs error at most `max_abs`."""
    error = (actual.double() - expected.double()).abs().max().item()
    correlation = pcc(actual, expected)
    assert correlation >= min_pcc, f"PCC {correlation:.6f} < {min_pcc}"
    assert error <= max_abs, f"max abs error {error:.4g} > {max_abs}"


def unary_kernel(
    expr: Callable,
    *,
    block: tuple[int, int] = BLOCK,
    out_block: tuple[int, int] | None = None,
    grid=GRID,
    fp32_dest: bool = False,
):
    """out block = expr(x block): `block` tiles per input block; the out CB's block is
    `out_block` tiles (default `block`)."""
    out_block = out_block or block

    @pykernel_gen(grid=grid, block_factors=[block, out_block], fp32_dest_acc_en=fp32_dest)
    def unary(x, out):
        x_acc, out_acc = TensorAccessor(x), TensorAccessor(out)

        @compute()
        def apply(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with x_cb.wait() as a, out_cb.reserve() as o:
                o.store(expr(a))

        @datamovement()
        def reader(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with x_cb.reserve() as blk:
                dma(x_acc[core_index(0) * block[0], core_index(1) * block[1]], blk).wait()

        @datamovement()
        def writer(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with out_cb.wait() as blk:
                dma(blk, out_acc[core_index(0) * out_block[0], core_index(1) * out_block[1]]).wait()

        return Program(apply, reader, writer)(x, out)

    return unary


def binary_kernel(
    expr: Callable,
    *,
    block: tuple[int, int] = BLOCK,
    grid=GRID,
    fp32_dest: bool = False,
    dtypes: dict[str, str] | None = None,
):
    """out block = expr(lhs block, rhs block), `block` tiles each; `dtypes` as
    @pykernel_gen takes it (device formats of lhs, rhs, out)."""

    @pykernel_gen(grid=grid, block_factors=[block] * 3, fp32_dest_acc_en=fp32_dest, dtypes=dtypes)
    def binary(lhs, rhs, out):
        lhs_acc, rhs_acc, out_acc = TensorAccessor(lhs), TensorAccessor(rhs), TensorAccessor(out)

        @compute()
        def apply(lhs_cb: CircularBuffer, rhs_cb: CircularBuffer, out_cb: CircularBuffer):
            with lhs_cb.wait() as a, rhs_cb.wait() as b, out_cb.reserve() as o:
                o.store(expr(a, b))

        @datamovement()
        def reader(lhs_cb: CircularBuffer, rhs_cb: CircularBuffer, out_cb: CircularBuffer):
            row, col = core_index(0) * block[0], core_index(1) * block[1]
            with lhs_cb.reserve() as blk:
                dma(lhs_acc[row, col], blk).wait()
            with rhs_cb.reserve() as blk:
                dma(rhs_acc[row, col], blk).wait()

        @datamovement()
        def writer(lhs_cb: CircularBuffer, rhs_cb: CircularBuffer, out_cb: CircularBuffer):
            with out_cb.wait() as blk:
                dma(blk, out_acc[core_index(0) * block[0], core_index(1) * block[1]]).wait()

        return Program(apply, reader, writer)(lhs, rhs, out)

    return binary


def tensor_shape(grid=GRID, block=BLOCK) -> tuple[int, int]:
    return (grid[0] * block[0] * TILE, grid[1] * block[1] * TILE)


def random_bf16(shape, low: float, high: float, seed: int) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return (torch.rand(shape, generator=generator) * (high - low) + low).to(torch.bfloat16)


def prefix_sum_kernel(grid, deal, bound, rows: int, decay=None, block_rows: int = 1):
    """A triangle on implicit operands: out block i = a block i + the sum of b blocks
    0 .. bound(i) - 1 (blocks of `block_rows` x 1 tiles, `rows` of them), the blocks of i
    split over the grid's columns, j a reduction bounded by i; with `decay`, total =
    total * decay + b block per step, which depends on their order."""

    @pykernel_gen(
        grid=grid,
        block_factors=[(block_rows, 1)] * 3,
        indexing_maps=[lambda i, j: (i, 0), lambda i, j: (j, 0), lambda i, j: (i, 0)],
        iterator_types=["parallel", "reduction"],
        loop_bounds=[None, bound],
        deal=deal,
    )
    def prefix_sum(a, b, out):
        per_core = rows // grid[1]

        @compute()
        def apply(a_cb, b_cb, out_cb):
            for n in range(per_core):
                with a_cb.wait() as x:
                    total = x + 0.0
                    for _ in range(bound(block_index(0, n), 0)):
                        with b_cb.wait() as y:
                            total = (total if decay is None else total * decay) + y
                with out_cb.reserve() as o:
                    o.store(total)

        return Program(apply)(a, b, out)

    return prefix_sum
