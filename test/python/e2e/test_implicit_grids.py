"""Matmul on implicit operands (generated readers with multicast, docs/dsl.md
"Implicit operands") on grids of every shape: one core, one row, one column, square,
wide and tall, sides that share no factor, up to the 8x8 device. The senders of a's
rows and b's columns sit on diagonals (docs/passes.md, d2m-generate-datamovement,
*Senders*) that a grid's shape places differently; every grid must give torch's
product (a deadlock or misdirected multicast fails the run or the comparison). Block
size, K blocks and output blocks per core are drawn per grid from a fixed seed."""

from __future__ import annotations

import math
import random

import pytest
import torch

from e2e_kernels import TILE, assert_close, random_bf16
from examples.matmul_implicit import matmul_kernel

GRIDS = [(1, 1), (1, 5), (5, 1), (2, 2), (3, 5), (5, 3), (7, 2), (6, 8), (8, 8)]


@pytest.mark.parametrize("grid", GRIDS, ids=[f"{r}x{c}" for r, c in GRIDS])
def test_implicit_matmul_on_grid(grid):
    rng = random.Random(100 * grid[0] + grid[1])
    block = rng.choice((1, 2))
    k_blocks = rng.randint(1, 4)
    per_core = rng.choice(((1, 1), (2, 1), (1, 2)))
    m = grid[0] * per_core[0] * block * TILE
    n = grid[1] * per_core[1] * block * TILE
    k = k_blocks * block * TILE
    a = random_bf16((m, k), -1, 1, seed=grid[0])
    b = random_bf16((k, n), -1, 1, seed=grid[1] + 10)
    out = torch.zeros((m, n), dtype=torch.bfloat16)
    matmul_kernel(grid, block, k_blocks, per_core[0] * per_core[1])(a, b, out)
    expected = a.double() @ b.double()
    # bf16 products summed in DST, the running sum rounded to bf16 once per K block:
    # k_blocks roundings of half an ulp (2^-8 relative) of at most the largest |sum|
    largest = 2.0 ** math.ceil(math.log2(expected.abs().max().item()))
    assert_close(out, expected, max_abs=(k_blocks + 1) * 2**-8 * largest, min_pcc=0.9999)
