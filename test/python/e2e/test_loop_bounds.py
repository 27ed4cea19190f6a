"""Triangular iteration spaces on implicit operands: `loop_bounds` bounds a reduction
dim by the dims outside it, `deal="serpentine"` deals a grid dim's blocks in rounds of
alternating direction, and `block_index(dim, n)` tells a thread which block it is on
(docs/dsl.md, "Implicit operands"). Compared with torch; the generated reader reads
only the blocks each core's loops consume."""

from __future__ import annotations

import pytest
import torch

from e2e_kernels import TILE, prefix_sum_kernel, random_bf16
from ttlang.dsl.diagnostics import KernelError

ROWS = 8  # blocks of a, b and out (one tile each)


def expected(a, b, bound):
    out = a.float().clone()
    for i in range(ROWS):
        rows = slice(i * TILE, (i + 1) * TILE)
        for j in range(bound(i, 0)):
            out[rows] += b.float()[j * TILE : (j + 1) * TILE]
    return out


@pytest.mark.parametrize(
    "grid, deal, bound",
    [
        ((1, 4), "serpentine", lambda i, j: i + 1),  # core x: blocks 7 - x, then x
        ((1, 2), "contiguous", lambda i, j: (i + 2) // 2),
        ((1, 1), "serpentine", lambda i, j: ROWS - i),  # one core: rounds of one block
    ],
    ids=["serpentine-diagonal", "contiguous-halved", "one-core-reversed"],
)
def test_bounded_reduction_matches_torch(grid, deal, bound):
    a, b = (random_bf16((ROWS * TILE, TILE), -2, 2, seed=s) for s in (1, 2))
    out = torch.zeros(ROWS * TILE, TILE, dtype=torch.bfloat16)
    prefix_sum_kernel(grid, deal, bound, ROWS)(a, b, out)
    # bf16 sums of up to 9 values below ~4: a few bf16 ulps at 16
    torch.testing.assert_close(out.float(), expected(a, b, bound), rtol=0.02, atol=0.125)


def test_serpentine_walks_odd_rounds_backwards():
    """deal="serpentine" on 1x4: core x takes block 7 - x (n = 0: b blocks 0 .. 7 - x
    in order), then block x (n = 1: b blocks x .. 0, backwards, so the cores take
    block j at the same step and the last core multicasts it). A decaying sum tells
    the orders apart."""
    bound = lambda i, j: i + 1  # noqa: E731
    a, b = (random_bf16((ROWS * TILE, TILE), -2, 2, seed=s) for s in (3, 4))
    out = torch.zeros(ROWS * TILE, TILE, dtype=torch.bfloat16)
    prefix_sum_kernel((1, 4), "serpentine", bound, ROWS, decay=0.5)(a, b, out)
    expected = a.float().clone()
    for i in range(ROWS):
        rows = slice(i * TILE, (i + 1) * TILE)
        order = range(i + 1) if i >= ROWS // 2 else reversed(range(i + 1))  # n = 1: i < 4
        for j in order:
            expected[rows] = expected[rows] * 0.5 + b.float()[j * TILE : (j + 1) * TILE]
    torch.testing.assert_close(out.float(), expected, rtol=0.02, atol=0.06)


def test_bound_using_its_own_dim_is_a_kernel_error():
    kernel = prefix_sum_kernel((1, 1), "contiguous", lambda i, j: j, ROWS)
    a = torch.zeros(ROWS * TILE, TILE, dtype=torch.bfloat16)
    with pytest.raises(KernelError, match="loop_bounds\\[1\\] uses loop dim d1"):
        kernel(a, a, a.clone())


def test_unknown_deal_is_a_kernel_error():
    with pytest.raises(KernelError, match="deal='zigzag': choose one of"):
        prefix_sum_kernel((1, 1), "zigzag", lambda i, j: 1, ROWS)
