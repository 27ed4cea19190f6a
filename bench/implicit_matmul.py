"""Benchmark: generated data movement (implicit operands) against a hand-written reader,
on matmul with K streamed.

Usage: .venv/bin/python bench/implicit_matmul.py

`generated`: examples/matmul_implicit.py, whose reader the compiler writes: the first
core of each grid row reads a's blocks and multicasts them along the row, b likewise
down each column. `hand-written`: the reader a user writes without multicast, every
core reading its row of a and column of b from DRAM (both reads of a K step in flight
at once). Cycles are modeled (the emulator's cost model, critical core).
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from examples.matmul_implicit import TILE, matmul_kernel  # noqa: E402
from results import Results, progress  # noqa: E402
from ttlang import (  # noqa: E402
    Program,
    TensorAccessor,
    compute,
    core_index,
    datamovement,
    dma,
    pykernel_gen,
    zeros,
)

CASES = [
    # grid, block (tiles per side), K blocks
    ((4, 4), 2, 8),
    ((8, 8), 2, 8),
    ((8, 8), 4, 8),
]


def hand_written_kernel(grid, block: int, k_blocks: int):
    """One output block per core; the reader reads every K block from DRAM itself."""

    @pykernel_gen(grid=grid, block_factors=[(block, block)] * 3)
    def matmul(a, b, out):
        a_acc, b_acc, out_acc = TensorAccessor(a), TensorAccessor(b), TensorAccessor(out)

        @compute()
        def mm(a_cb, b_cb, out_cb):
            acc = zeros((block * TILE, block * TILE))
            for _ in range(k_blocks):
                with a_cb.wait() as a_blk, b_cb.wait() as b_blk:
                    acc = acc + a_blk @ b_blk
            with out_cb.reserve() as o:
                o.store(acc)

        @datamovement()
        def reader(a_cb, b_cb, out_cb):
            row, col = core_index(0) * block, core_index(1) * block
            for k in range(k_blocks):
                with a_cb.reserve() as a_blk, b_cb.reserve() as b_blk:
                    a_read = dma(a_acc[row, k * block], a_blk)
                    b_read = dma(b_acc[k * block, col], b_blk)
                    a_read.wait()
                    b_read.wait()

        @datamovement()
        def writer(a_cb, b_cb, out_cb):
            with out_cb.wait() as blk:
                dma(blk, out_acc[core_index(0) * block, core_index(1) * block]).wait()

        return Program(mm, reader, writer)(a, b, out)

    return matmul


def main() -> None:
    header = f"{'grid':<6} {'block':>5} {'K blocks':>8} {'generated':>10} {'hand-written':>12} {'speedup':>8}"
    print("modeled cycles (the emulator's cost model), critical core")
    print(header)
    print("-" * len(header))
    table = Results("implicit_matmul")
    for grid, block, k_blocks in progress(CASES, "cases"):
        m, n, k = grid[0] * block * TILE, grid[1] * block * TILE, k_blocks * block * TILE
        generator = torch.Generator().manual_seed(0)
        a = torch.randn(m, k, generator=generator).to(torch.bfloat16)
        b = torch.randn(k, n, generator=generator).to(torch.bfloat16)
        cycles = []
        results = []
        for kernel in (matmul_kernel(grid, block, k_blocks, 1), hand_written_kernel(grid, block, k_blocks)):
            out = torch.zeros(m, n, dtype=torch.bfloat16)
            kernel(a, b, out)
            cycles.append(kernel.compile(a, b, out).perf().cycles)
            results.append(out)
        if not torch.equal(results[0], results[1]):
            raise SystemExit(f"{grid} {block} {k_blocks}: the two kernels disagree")
        print(
            f"{grid[0]}x{grid[1]:<4} {block:>5} {k_blocks:>8} {cycles[0]:>10} {cycles[1]:>12} "
            f"{cycles[1] / cycles[0]:>7.2f}x"
        )
        table.add(
            grid=f"{grid[0]}x{grid[1]}",
            block=block,
            k_blocks=k_blocks,
            generated_cycles=cycles[0],
            hand_written_cycles=cycles[1],
        )


if __name__ == "__main__":
    main()
