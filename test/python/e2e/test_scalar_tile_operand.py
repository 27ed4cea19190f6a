"""End-to-end tests of d2m-scalar-tile-operand on the emulator against torch: `x * c`,
`x + c` and `x - c` on a block read from a CB run as FPU operations with a broadcast
constant tile (the C++ is checked, so a test cannot pass by the SFPU path), with 16-bit
and 32-bit DST; a one-tile block outside any loop keeps the SFPU op."""

from __future__ import annotations

import pytest
import torch
from e2e_kernels import TILE, assert_close, random_bf16, unary_kernel

GRID = (2, 1)
DST_MODES = pytest.mark.parametrize("fp32_dest", [False, True], ids=["dst16", "dst32"])



def scale(x):
    return x * 0.3


def shift_up(x):
    return x + 0.75


def shift_down(x):
    return x - 0.75


# (kernel expression, the FPU call it must become). 0.3 is not a bf16 number: the
# constant tile holds 0.30078125, one rounding of at most 2^-9 relative.
CASES = {
    "mul": (scale, "mul_tiles_bcast<BroadcastType::SCALAR>"),
    "add": (shift_up, "add_tiles_bcast<BroadcastType::SCALAR>"),
    "sub": (shift_down, "sub_tiles_bcast<BroadcastType::SCALAR>"),
}


def _run(expr, block, fp32_dest, seed):
    kernel = unary_kernel(expr, block=block, grid=GRID, fp32_dest=fp32_dest)
    x = random_bf16((GRID[0] * block[0] * TILE, GRID[1] * block[1] * TILE), -4.0, 4.0, seed=seed)
    out = torch.zeros_like(x)
    artifact = kernel.compile(x, out)
    artifact.run([x, out])
    compute = [src for name, src in artifact.sources.items() if name.endswith("_compute")]
    return x, out, compute[0]


@DST_MODES
@pytest.mark.parametrize("case", CASES)
def test_scalar_on_a_block_runs_on_the_fpu(case: str, fp32_dest: bool):
    expr, fpu_call = CASES[case]
    x, out, compute = _run(expr, (2, 3), fp32_dest, seed=7)
    assert fpu_call in compute
    assert "_unary_tile" not in compute  # no SFPU tile-and-scalar op left
    # bf16 output: 2^-9 relative of |x| + c <= 4.75, plus the rounding of 0.3
    assert_close(out.float(), expr(x.float()), max_abs=2.5e-2, min_pcc=0.9999)


@DST_MODES
def test_one_tile_outside_a_loop_keeps_the_sfpu(fp32_dest: bool):
    x, out, compute = _run(scale, (1, 1), fp32_dest, seed=8)
    assert "mul_unary_tile" in compute and "BroadcastType::SCALAR" not in compute
    assert_close(out.float(), x.float() * 0.3, max_abs=2e-2, min_pcc=0.9999)
