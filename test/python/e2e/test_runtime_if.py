"""End-to-end test of run-time `if`s that assign blocks (d2m-if-to-loops: each branch
a loop of 0 or 1 trips, whose blocks d2m-bufferize streams through CBs), on the
emulator against torch.

Over chunks x0..x3 of x, `acc` starts at 0 and, for chunk k: with `then_only`,
acc = acc + exp(xk) when k is even (else unchanged); with `both`, the same when k is
even and acc = acc * xk when k is odd; `last` = 1 / xk when k is even and, with
`both`, xk when k is odd (with `both`, each block is computed in either branch). The
conditions compare a loop index with `core_index`, so they are run-time. A branch
that also assigns an index is a KernelError at the `if`.

Tolerances: x uniform in [-1, 1] (|x| < 0.125 raised to 0.125), so |acc| < 5.5 (bf16
ulp 0.03125 between 4 and 8), rounded to bf16 once a step; measured max-abs 0.027
(`then_only`) and 0.025 (`both`), PCC 0.99998; asserted max-abs 0.0625 (two ulps) and
PCC 0.9999. `last` is one bf16 reciprocal of a bf16 value, or the value: measured
relative error 0.0039, asserted within 2^-7 (one bf16 ulp).
"""

from __future__ import annotations

import pytest
import torch
from e2e_kernels import TILE, assert_close, random_bf16

from ttlang import Program, compute, core_index, pykernel_gen, zeros
from ttlang.dsl.diagnostics import KernelError

ROWS, COLS, CHUNKS = 1, 2, 4  # tiles of a chunk, chunks of x


def make_kernel(else_branch: bool):
    @pykernel_gen(
        grid=(1, 1),
        block_factors=[(ROWS, COLS), (ROWS, COLS), (ROWS, COLS)],
        indexing_maps=[lambda m, n, k: (m, k), lambda m, n, k: (m, n), lambda m, n, k: (m, n)],
        iterator_types=["parallel", "parallel", "reduction"],
        num_outs=2,
    )
    def branches(x, acc_out, last_out):
        @compute()
        def body(x_cb, acc_cb, last_cb):
            shape = (ROWS * TILE, COLS * TILE)
            acc, last = zeros(shape), zeros(shape)
            for k in range(CHUNKS):
                with x_cb.wait() as xb:
                    if k % 2 == core_index(0):  # core_index(0) is 0: even k
                        acc = acc + xb.exp()
                        last = xb.recip()
                    elif else_branch:
                        acc = acc * xb
                        last = xb + 0.0
            with acc_cb.reserve() as o:
                o.store(acc)
            with last_cb.reserve() as o:
                o.store(last)

        return Program(body)(x, acc_out, last_out)

    return branches


@pytest.mark.parametrize("else_branch", [False, True], ids=["then_only", "both"])
def test_runtime_if_assigning_blocks(else_branch):
    x = random_bf16((ROWS * TILE, CHUNKS * COLS * TILE), -1.0, 1.0, seed=29)
    x = torch.where(x.abs() < 0.125, torch.full_like(x, 0.125), x)  # reciprocals in [-8, 8]
    acc = torch.zeros(ROWS * TILE, COLS * TILE, dtype=torch.bfloat16)
    last = torch.zeros_like(acc)
    make_kernel(else_branch)(x, acc, last)
    expected_acc = torch.zeros(ROWS * TILE, COLS * TILE)
    expected_last = torch.zeros(ROWS * TILE, COLS * TILE)
    for k, xk in enumerate(x.float().split(COLS * TILE, dim=1)):
        if k % 2 == 0:
            expected_acc, expected_last = expected_acc + xk.exp(), 1.0 / xk
        elif else_branch:
            expected_acc, expected_last = expected_acc * xk, xk
    assert_close(acc.float(), expected_acc, max_abs=0.0625, min_pcc=0.9999)
    assert torch.allclose(last.float(), expected_last, rtol=2**-7, atol=0)


@pykernel_gen(
    grid=(1, 2),
    block_factors=[(1, 1), (1, 1)],
    indexing_maps=[lambda m, n, k: (m, k), lambda m, n, k: (m, n)],
    iterator_types=["parallel", "parallel", "reduction"],
)
def nested(x, out):
    @compute()
    def body(x_cb, out_cb):
        acc = zeros((TILE, TILE))
        for k in range(3):
            with x_cb.wait() as xb:
                if k >= core_index(1):  # an `if` in each branch of another
                    if k == 2:
                        acc = acc + xb
                    else:
                        acc = acc - xb * 2.0
        with out_cb.reserve() as o:
            o.store(acc)

    return Program(body)(x, out)


def test_nested_runtime_ifs():
    """Both cores of the 1x2 grid read x's three tiles: core c adds x2 and subtracts
    2 xk for c <= k < 2 (core 0: -2 x0 - 2 x1 + x2, core 1: -2 x1 + x2). |acc| < 5;
    asserted max-abs 0.0625 (two bf16 ulps at 4 to 8), PCC 0.9999 (measured 0.023)."""
    x = random_bf16((TILE, 3 * TILE), -1.0, 1.0, seed=5)
    out = torch.zeros(TILE, 2 * TILE, dtype=torch.bfloat16)
    nested(x, out)
    x0, x1, x2 = x.float().split(TILE, dim=1)
    expected = torch.cat([-2 * x0 - 2 * x1 + x2, -2 * x1 + x2], dim=1)
    assert_close(out.float(), expected, max_abs=0.0625, min_pcc=0.9999)


def test_branch_assigning_a_block_and_an_index_is_an_error_at_the_if():
    @pykernel_gen(
        grid=(1, 1),
        block_factors=[(1, 1), (1, 1)],
        indexing_maps=[lambda m, n, k: (m, k), lambda m, n, k: (m, n)],
        iterator_types=["parallel", "parallel", "reduction"],
    )
    def mixed(x, out):
        @compute()
        def body(x_cb, out_cb):
            acc, count = zeros((TILE, TILE)), 0
            for k in range(2):
                with x_cb.wait() as xb:
                    if k == core_index(0):  # <- mixed
                        acc, count = acc + xb, count + 1
            with out_cb.reserve() as o:
                o.store(acc)

        return Program(body)(x, out)

    x = torch.zeros(TILE, 2 * TILE, dtype=torch.bfloat16)
    with pytest.raises(KernelError) as info:
        mixed.compile(x, torch.zeros(TILE, TILE, dtype=torch.bfloat16))
    line = next(n for n, text in enumerate(open(__file__), start=1) if text.rstrip().endswith("# <- mixed"))
    assert (info.value.filename, info.value.line) == (__file__, line)
    assert "assigns both blocks and other values (indices) in a run-time branch" in str(info.value)
