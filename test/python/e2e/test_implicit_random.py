"""Implicit operands (generated data movement, docs/dsl.md "Implicit operands") on random
grids, block shapes and loop trip counts, against torch. Each case is drawn from its
seed:

- `matmul`: a (m, k) @ b (k, n) with K streamed in blocks, blocks of (bm, bk) and
  (bk, bn) tiles (not square), one or two output blocks per core along each grid dim:
  a is multicast along grid rows, b down grid columns;
- `broadcast`: x · r + c − s with r the same for every block row (map `(0, j)`: read
  once per grid column and multicast down it), c the same for every block column
  (`(i, 0)`: multicast along each grid row, moved once per block row, outside the
  column loop) and s one block for the whole grid (`(0, 0)`: core (0, 0) multicasts
  it to every core, once);
- `bounded`: a triangle (docs/dsl.md, "Triangles"): out block i = a block i + the sum
  of b blocks 0 .. bound(i) - 1 on a 1 x C grid, the bound drawn from four shapes
  (growing, shrinking, halved, constant) and the deal `contiguous` or `serpentine`
  (odd rounds walk backwards); b is multicast along the row in the rounds where the
  cores' bounds allow it, by the first core or, backwards, the last.

Grids run from 1x1 to the 8x8 device, so the senders' diagonals (docs/passes.md,
d2m-generate-datamovement, *Senders*) fall on every kind of line: a single core,
lines of one, rows longer than columns and the reverse."""

from __future__ import annotations

import math
import random

import pytest
import torch

from e2e_kernels import TILE, assert_close, prefix_sum_kernel, random_bf16
from examples.matmul_implicit import matmul_kernel
from ttlang import Program, compute, pykernel_gen

SEEDS = range(18)
BOUNDS = {
    "diagonal": lambda rows: lambda i, j: i + 1,
    "reversed": lambda rows: lambda i, j: rows - i,
    "halved": lambda rows: lambda i, j: (i + 2) // 2,
    "constant": lambda rows: lambda i, j: rows // 2 + 1,
}


def draw(seed: int) -> dict:
    rng = random.Random(seed)
    return {
        "kind": ("matmul", "broadcast", "bounded")[seed % 3],
        "grid": (rng.randint(1, 8), rng.randint(1, 8)),
        "block": (rng.randint(1, 2), rng.randint(1, 2), rng.randint(1, 2)),
        "per_core": (rng.randint(1, 2), rng.randint(1, 2)),
        "k_blocks": rng.randint(1, 3),
        "bound": rng.choice(sorted(BOUNDS)),
        "deal": rng.choice(("contiguous", "serpentine")),
    }


def bounded(grid, block, per_core, bound_name, deal, seed):
    rows = grid[1] * per_core[0] * 2  # blocks of a and out: two or four per core
    br = block[0]
    bound = BOUNDS[bound_name](rows)
    kernel = prefix_sum_kernel((1, grid[1]), deal, bound, rows, block_rows=br)
    a = random_bf16((rows * br * TILE, TILE), -1, 1, seed=seed)
    b = random_bf16((rows * br * TILE, TILE), -1, 1, seed=seed + 1)
    out = torch.zeros_like(a)
    kernel(a, b, out)
    expected = a.double().clone()
    height = br * TILE
    for i in range(rows):
        for j in range(bound(i, 0)):
            expected[i * height : (i + 1) * height] += b.double()[j * height : (j + 1) * height]
    # sums of up to `rows` + 1 values below 1, rounded to bf16 after each add:
    # rows roundings of half an ulp (2^-8 relative) of at most the largest |sum|
    largest = 2.0 ** math.ceil(math.log2(expected.abs().max().item()))
    assert_close(out, expected, max_abs=(rows + 1) * 2**-8 * largest, min_pcc=0.999)


def matmul(grid, block, per_core, k_blocks, seed):
    bm, bk, bn = block
    kernel = matmul_kernel(grid, block, k_blocks, per_core[0] * per_core[1])
    m, n, k = grid[0] * per_core[0] * bm, grid[1] * per_core[1] * bn, k_blocks * bk
    a = random_bf16((m * TILE, k * TILE), -1, 1, seed=seed)
    b = random_bf16((k * TILE, n * TILE), -1, 1, seed=seed + 1000)
    out = torch.zeros((m * TILE, n * TILE), dtype=torch.bfloat16)
    kernel(a, b, out)
    expected = a.double() @ b.double()
    # bf16 products summed in DST, the running sum rounded to bf16 once per K block:
    # k_blocks roundings of half an ulp (2^-8 relative) of at most the largest |sum|
    largest = 2.0 ** math.ceil(math.log2(expected.abs().max().item()))
    assert_close(out, expected, max_abs=(k_blocks + 1) * 2**-8 * largest, min_pcc=0.9999)


def broadcast(grid, block, per_core, seed):
    br, bc = block[:2]

    @pykernel_gen(
        grid=grid,
        block_factors=[(br, bc)] * 5,
        indexing_maps=[
            lambda i, j: (i, j),
            lambda i, j: (0, j),
            lambda i, j: (i, 0),
            lambda i, j: (0, 0),
            lambda i, j: (i, j),
        ],
    )
    def kernel(x, r, c, s, out):
        @compute()
        def apply(x_cb, r_cb, c_cb, s_cb, out_cb):
            with s_cb.wait() as s_blk:
                for _ in range(per_core[0]):
                    with c_cb.wait() as c_blk:
                        for _ in range(per_core[1]):
                            with x_cb.wait() as x_blk, r_cb.wait() as r_blk, out_cb.reserve() as o:
                                o.store(x_blk * r_blk + c_blk - s_blk)

        return Program(apply)(x, r, c, s, out)

    rows, cols = grid[0] * per_core[0] * br * TILE, grid[1] * per_core[1] * bc * TILE
    x = random_bf16((rows, cols), -1, 1, seed=seed)
    r = random_bf16((br * TILE, cols), -1, 1, seed=seed + 1)
    c = random_bf16((rows, bc * TILE), -1, 1, seed=seed + 2)
    s = random_bf16((br * TILE, bc * TILE), -1, 1, seed=seed + 3)
    out = torch.zeros((rows, cols), dtype=torch.bfloat16)
    kernel(x, r, c, s, out)
    tile_rows, tile_cols = rows // (br * TILE), cols // (bc * TILE)
    expected = x.double() * r.double().repeat(tile_rows, 1) + c.double().repeat(1, tile_cols)
    expected -= s.double().repeat(tile_rows, tile_cols)
    # |result| <= 3; three results rounded to bf16 (2^-8 relative): 3 * 2^-8 * 4
    assert_close(out, expected, max_abs=0.05, min_pcc=0.999)


@pytest.mark.parametrize("seed", SEEDS, ids=lambda seed: f"{seed}-{'-'.join(map(str, draw(seed)['grid']))}")
def test_implicit_operands_random(seed):
    case = draw(seed)
    if case["kind"] == "matmul":
        matmul(case["grid"], case["block"], case["per_core"], case["k_blocks"], seed)
    elif case["kind"] == "broadcast":
        broadcast(case["grid"], case["block"], case["per_core"], seed)
    else:
        bounded(case["grid"], case["block"], case["per_core"], case["bound"], case["deal"], seed)
