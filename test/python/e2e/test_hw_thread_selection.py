"""Two busy hand-written data-movement threads plus an implicit output, tt-lang's
test_runtime_add shape: the output's generated writer is a third data-movement
thread, which d2m-hw-thread-selection appends to a hand-written one, growing the
output's CB to hold all its per-core blocks. Compared with torch on 1x1 and multi-core
grids, with one and with several output blocks per core."""

from __future__ import annotations

import pytest
import torch
from e2e_kernels import TILE, assert_close, random_bf16

from ttlang.d2m_api import *
from ttlang.dsl.diagnostics import L1BudgetError

# a + b of values in [-1, 1) rounded once to bf16: half an ulp of |x| < 2 is 2^-8
BF16_ROUNDING = 2**-7


def add_kernel(grid: tuple[int, int], shard: tuple[int, int]):
    """out = a + b; `a` and `b` read by one hand-written thread each, 1x1-tile blocks,
    core (y, x) owning the `shard` tiles at (y * shard[0], x * shard[1]); `out` implicit."""
    rows, cols = shard

    @pykernel_gen(grid=grid, block_factors=[(1, 1), (1, 1), (1, 1)])
    def add(a, b, out):
        a_accessor, b_accessor = TensorAccessor(a), TensorAccessor(b)

        @compute()
        async def add_compute(a_cb: CircularBuffer, b_cb: CircularBuffer, out_cb: CircularBuffer):
            for _ in range(rows * cols):
                l = a_cb.wait()
                r = b_cb.wait()
                o = out_cb.reserve()
                o.store(l + r)
                a_cb.pop()
                b_cb.pop()
                out_cb.push()

        @datamovement()
        async def dm_a(a_cb: CircularBuffer, b_cb: CircularBuffer, out_cb: CircularBuffer):
            y, x = core_index(0), core_index(1)
            for i in range(rows):
                for j in range(cols):
                    shard_block = a_cb.reserve()
                    dma(a_accessor[y * rows + i, x * cols + j], shard_block).wait()
                    a_cb.push()

        @datamovement()
        async def dm_b(a_cb: CircularBuffer, b_cb: CircularBuffer, out_cb: CircularBuffer):
            y, x = core_index(0), core_index(1)
            for i in range(rows):
                for j in range(cols):
                    shard_block = b_cb.reserve()
                    dma(b_accessor[y * rows + i, x * cols + j], shard_block).wait()
                    b_cb.push()

        return Program(add_compute, dm_a, dm_b)(a, b, out)

    return add


@pytest.mark.parametrize(
    "grid, shard",
    [
        ((1, 1), (1, 1)),  # tt-lang's test_runtime_add: one block
        ((2, 2), (1, 1)),  # one output block per core
        ((1, 2), (2, 3)),  # 6 output blocks per core: more than the CB's default 2
    ],
)
def test_implicit_output_beside_two_busy_readers(grid, shard):
    shape = (grid[0] * shard[0] * TILE, grid[1] * shard[1] * TILE)
    a, b = random_bf16(shape, -1, 1, seed=3), random_bf16(shape, -1, 1, seed=4)
    out = torch.full(shape, -999.0, dtype=torch.bfloat16)
    add_kernel(grid, shard)(a, b, out)
    assert_close(out, a.float() + b.float(), max_abs=BF16_ROUNDING, min_pcc=0.9999)


def test_output_cb_too_large_to_hold_all_blocks_says_why():
    """768 output tiles on one core: the grown CB (1.5 MiB of bf16) cannot fit L1."""
    grid, shard = (1, 1), (24, 32)
    shape = (shard[0] * TILE, shard[1] * TILE)
    a = b = out = torch.zeros(shape, dtype=torch.bfloat16)
    with pytest.raises(L1BudgetError, match=r"cb2 \(`out_cb`\) holds all its 768 per-core tiles because"):
        add_kernel(grid, shard)(a, b, out)
