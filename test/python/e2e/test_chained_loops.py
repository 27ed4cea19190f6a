"""End-to-end test of d2m-bufferize streaming blocks from one loop to the next through
one CB (no copy between the loops), on the emulator against torch.

Three loops in a row, each with a run-time trip count (`core_index(0) + k`: 2, 1, 1 on
the one core), carry `acc` and `top` over chunks x0..x3 of x: acc = exp(x0) + exp(x1),
then acc * x2, then acc - x3; top = max(x0, x1, x2, x3) elementwise. The second and
third loops take both blocks from the loop before through its CBs (two carry CBs in
all instead of six; the same values as with copies between the loops).

Tolerances: x uniform in [-1, 1], so |acc| < 6.5 (here up to 5.2; bf16 ulp 0.03125
between 4 and 8), rounded to bf16 once per loop step; measured max-abs 0.033 (acc) and
0 (top: a max adds no rounding), PCC 0.999995; asserted max-abs 0.0625 (two ulps),
PCC 0.9999, and exact.
"""

from __future__ import annotations

import torch
from e2e_kernels import TILE, assert_close, random_bf16

from ttlang import Program, compute, core_index, full, maximum, pykernel_gen, zeros

ROWS, COLS, CHUNKS = 1, 2, 4  # tiles of a chunk, chunks of x


@pykernel_gen(
    grid=(1, 1),
    block_factors=[(ROWS, COLS), (ROWS, COLS), (ROWS, COLS)],
    indexing_maps=[lambda m, n, k: (m, k), lambda m, n, k: (m, n), lambda m, n, k: (m, n)],
    iterator_types=["parallel", "parallel", "reduction"],
    num_outs=2,
)
def three_loops(x, acc_out, top_out):
    @compute()
    def body(x_cb, acc_cb, top_cb):
        shape = (ROWS * TILE, COLS * TILE)
        acc, top = zeros(shape), full(shape, float("-inf"))
        for _ in range(core_index(0) + 2):
            with x_cb.wait() as xb:
                acc, top = acc + xb.exp(), maximum(top, xb)
        for _ in range(core_index(0) + 1):
            with x_cb.wait() as xb:
                acc, top = acc * xb, maximum(top, xb)
        for _ in range(core_index(0) + 1):
            with x_cb.wait() as xb:
                acc, top = acc - xb, maximum(top, xb)
        with acc_cb.reserve() as o:
            o.store(acc)
        with top_cb.reserve() as o:
            o.store(top)

    return Program(body)(x, acc_out, top_out)


def test_blocks_carried_through_three_loops():
    x = random_bf16((ROWS * TILE, CHUNKS * COLS * TILE), -1.0, 1.0, seed=23)
    acc = torch.zeros(ROWS * TILE, COLS * TILE, dtype=torch.bfloat16)
    top = torch.zeros_like(acc)
    three_loops(x, acc, top)
    x0, x1, x2, x3 = x.float().split(COLS * TILE, dim=1)
    assert_close(acc.float(), (x0.exp() + x1.exp()) * x2 - x3, max_abs=0.0625, min_pcc=0.9999)
    assert torch.equal(top.float(), torch.stack([x0, x1, x2, x3]).amax(dim=0))
