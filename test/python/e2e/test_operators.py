"""Every DSL operator end to end: DSL -> stage-1 IR -> C++ -> emulator, against torch.

Blocks are 2x2 tiles on a 2x2 grid (128x128 tensors) unless a test says otherwise;
each case runs with 16-bit DST and with fp32 DST accumulation (`fp32_dest_acc_en`).
The reference is computed in fp32 from the same bf16 inputs; outputs are bf16, so
the stated max-abs errors are a few bf16 ulps of the output magnitude (an ulp is
2^-8 relative), plus the SFPU approximation where one applies.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
import torch
from e2e_kernels import (
    BLOCK,
    GRID,
    TILE,
    assert_close,
    binary_kernel,
    random_bf16,
    tensor_shape,
    unary_kernel,
)

from ttlang import fill, full, maximum, zeros

DST_MODES = [pytest.param(False, id="dst16"), pytest.param(True, id="dst32")]
SHAPE = tensor_shape()
BLOCK_SHAPE = (BLOCK[0] * TILE, BLOCK[1] * TILE)


# ----------------------------------------------------------------- expressions
# Plain helpers: the frontend inlines them into the compute thread.


def exp(a):
    return a.exp()


def sqrt(a):
    return a.sqrt()


def rsqrt(a):
    return a.rsqrt()


def recip(a):
    return a.recip()


def neg(a):
    return a.neg()


def absolute(a):
    return a.abs()


def transpose(a):
    return a.transpose()


def add_scalar(a):
    return a + 2.5


def sub_scalar(a):
    return a - 1.5


def rsub_scalar(a):
    return 3.0 - a


def mul_scalar(a):
    return a * 0.5


def div_scalar(a):
    return a / 4.0


def scalar_div(a):
    return 2.0 / a


def sub_rowmax(a):
    return a - a.rowmax()


def mul_colsum(a):
    return a * a.colsum()


def div_total(a):
    return a / a.rowsum().colsum()


def fill_value(a):
    return fill(1.5, BLOCK_SHAPE) + a


def zeros_plus(a):
    return zeros(BLOCK_SHAPE) + a


def full_times(a):
    return full(BLOCK_SHAPE, -2.0) * a


def add(a, b):
    return a + b


def sub(a, b):
    return a - b


def mul(a, b):
    return a * b


def div(a, b):
    return a / b


def maximum_of(a, b):
    return maximum(a, b)


def matmul(a, b):
    return a @ b


def rowsum(a):
    return a.rowsum()


def rowmax(a):
    return a.rowmax()


def colsum(a):
    return a.colsum()


def colmax(a):
    return a.colmax()


# ------------------------------------------------------------------- references


def blockwise(
    shape_in_blocks, fn: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor
) -> torch.Tensor:
    """`fn` applied to every block of `x` (the kernels work block by block)."""
    rows, cols = BLOCK_SHAPE
    out = torch.empty_like(x)
    for r in range(shape_in_blocks[0]):
        for c in range(shape_in_blocks[1]):
            out[r * rows : (r + 1) * rows, c * cols : (c + 1) * cols] = fn(
                x[r * rows : (r + 1) * rows, c * cols : (c + 1) * cols]
            )
    return out


def blockwise2(fn, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    rows, cols = BLOCK_SHAPE
    out = torch.empty_like(a)
    for r in range(GRID[0]):
        for c in range(GRID[1]):
            window = (slice(r * rows, (r + 1) * rows), slice(c * cols, (c + 1) * cols))
            out[window] = fn(a[window], b[window])
    return out


def tile_transpose_reference(x: torch.Tensor) -> torch.Tensor:
    return blockwise(GRID, lambda block: block.T, x)


@dataclass(frozen=True)
class UnaryCase:
    expr: Callable
    reference: Callable[[torch.Tensor], torch.Tensor]  # on one block, fp32
    low: float
    high: float
    max_abs: float


UNARY_CASES = {
    "exp": UnaryCase(exp, torch.exp, -2.0, 2.0, 0.06),
    "sqrt": UnaryCase(sqrt, torch.sqrt, 0.25, 4.0, 0.02),
    "rsqrt": UnaryCase(rsqrt, torch.rsqrt, 0.25, 4.0, 0.02),
    "recip": UnaryCase(recip, torch.reciprocal, 0.5, 2.0, 0.02),
    "neg": UnaryCase(neg, torch.neg, -2.0, 2.0, 0.0),
    "abs": UnaryCase(absolute, torch.abs, -2.0, 2.0, 0.0),
    "transpose": UnaryCase(transpose, lambda b: b.T, -2.0, 2.0, 0.0),
    "add_scalar": UnaryCase(add_scalar, lambda b: b + 2.5, -2.0, 2.0, 0.02),
    "sub_scalar": UnaryCase(sub_scalar, lambda b: b - 1.5, -2.0, 2.0, 0.02),
    "rsub_scalar": UnaryCase(rsub_scalar, lambda b: 3.0 - b, -2.0, 2.0, 0.02),
    "mul_scalar": UnaryCase(mul_scalar, lambda b: b * 0.5, -2.0, 2.0, 0.01),
    "div_scalar": UnaryCase(div_scalar, lambda b: b / 4.0, -2.0, 2.0, 0.01),
    "scalar_div": UnaryCase(scalar_div, lambda b: 2.0 / b, 0.5, 2.0, 0.03),
    "bcast_cols": UnaryCase(
        sub_rowmax, lambda b: b - b.max(dim=1, keepdim=True).values, -2.0, 2.0, 0.03
    ),
    "bcast_rows": UnaryCase(mul_colsum, lambda b: b * b.sum(dim=0, keepdim=True), 0.0, 1.0, 0.5),
    "bcast_scalar": UnaryCase(div_total, lambda b: b / b.sum(), 0.5, 1.0, 1e-4),
    "fill": UnaryCase(fill_value, lambda b: b + 1.5, -2.0, 2.0, 0.02),
    "zeros": UnaryCase(zeros_plus, lambda b: b, -2.0, 2.0, 0.0),
    "full": UnaryCase(full_times, lambda b: b * -2.0, -2.0, 2.0, 0.0),
}


@pytest.mark.parametrize("fp32_dest", DST_MODES)
@pytest.mark.parametrize("name", list(UNARY_CASES))
def test_unary_operator(name: str, fp32_dest: bool):
    case = UNARY_CASES[name]
    x = random_bf16(SHAPE, case.low, case.high, seed=1)
    out = torch.zeros(SHAPE, dtype=torch.bfloat16)
    unary_kernel(case.expr, fp32_dest=fp32_dest)(x, out)
    expected = blockwise(GRID, case.reference, x.float())
    assert_close(out, expected, max_abs=case.max_abs)


@dataclass(frozen=True)
class BinaryCase:
    expr: Callable
    reference: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
    rhs_low: float
    max_abs: float


BINARY_CASES = {
    "add": BinaryCase(add, torch.add, -2.0, 0.02),
    "sub": BinaryCase(sub, torch.sub, -2.0, 0.02),
    "mul": BinaryCase(mul, torch.mul, -2.0, 0.02),
    "div": BinaryCase(div, torch.div, 0.5, 0.02),
    "maximum": BinaryCase(maximum_of, torch.maximum, -2.0, 0.0),
    # 2x2-tile blocks: K = 64 products of values in [-2, 2], accumulated in DST
    "matmul": BinaryCase(matmul, torch.matmul, -2.0, 0.5),
}


@pytest.mark.parametrize("fp32_dest", DST_MODES)
@pytest.mark.parametrize("name", list(BINARY_CASES))
def test_binary_operator(name: str, fp32_dest: bool):
    case = BINARY_CASES[name]
    a = random_bf16(SHAPE, -2.0, 2.0, seed=2)
    b = random_bf16(SHAPE, case.rhs_low, 2.0, seed=3)
    out = torch.zeros(SHAPE, dtype=torch.bfloat16)
    binary_kernel(case.expr, fp32_dest=fp32_dest)(a, b, out)
    expected = blockwise2(case.reference, a.float(), b.float())
    assert_close(out, expected, max_abs=case.max_abs)


REDUCTIONS = {
    # name: (expression, reference on a block, reduced axis, max-abs)
    # sums of 64 values in [-4, -0.5] are ~ -150, where a bf16 ulp is 1.0; the two
    # tiles of a row accumulate in DST (bf16 in dst16 mode)
    "rowsum": (rowsum, lambda b: b.sum(dim=1, keepdim=True), 1, 1.5),
    "rowmax": (rowmax, lambda b: b.max(dim=1, keepdim=True).values, 1, 0.0),
    "colsum": (colsum, lambda b: b.sum(dim=0, keepdim=True), 0, 1.5),
    "colmax": (colmax, lambda b: b.max(dim=0, keepdim=True).values, 0, 0.0),
}


@pytest.mark.parametrize("fp32_dest", DST_MODES)
@pytest.mark.parametrize("name", list(REDUCTIONS))
def test_reduction(name: str, fp32_dest: bool):
    """A row reduction of a 2x2-tile block is a 2x1-tile block whose tiles hold the
    result in column 0 (row 0 for column reductions); inputs are all negative so that a
    max starting from DST's zeros would show."""
    expr, reference, axis, max_abs = REDUCTIONS[name]
    out_block = (BLOCK[0], 1) if axis == 1 else (1, BLOCK[1])
    out_shape = (GRID[0] * out_block[0] * TILE, GRID[1] * out_block[1] * TILE)
    x = random_bf16(SHAPE, -4.0, -0.5, seed=4)
    out = torch.zeros(out_shape, dtype=torch.bfloat16)
    unary_kernel(expr, out_block=out_block, fp32_dest=fp32_dest)(x, out)
    rows, cols = BLOCK_SHAPE
    for r in range(GRID[0]):
        for c in range(GRID[1]):
            block = x[r * rows : (r + 1) * rows, c * cols : (c + 1) * cols].float()
            expected = reference(block).flatten()
            if axis == 1:
                actual = out[r * rows : (r + 1) * rows, c * TILE]
            else:
                actual = out[r * TILE, c * cols : (c + 1) * cols]
            assert_close(actual, expected, max_abs=max_abs)


@pytest.mark.parametrize("grid", [(1, 3), (3, 1)], ids=["1x3", "3x1"])
def test_grid_shapes(grid):
    """Non-square grids place every core's block."""
    shape = tensor_shape(grid)
    a = random_bf16(shape, -2.0, 2.0, seed=5)
    b = random_bf16(shape, -2.0, 2.0, seed=6)
    out = torch.zeros(shape, dtype=torch.bfloat16)
    binary_kernel(sub, grid=grid)(a, b, out)
    assert_close(out, a.float() - b.float(), max_abs=0.02)


def test_fp32_tensors_with_fp32_dest():
    """f32 tensors and fp32 DST: CBs hold fp32 tiles; add is exact and exp is within a
    few fp32 ulps (the emulator's SFPU computes in fp32)."""
    a = torch.randn(SHAPE, generator=torch.Generator().manual_seed(7))
    b = torch.randn(SHAPE, generator=torch.Generator().manual_seed(8))
    out = torch.zeros(SHAPE)
    binary_kernel(add, fp32_dest=True)(a, b, out)
    assert torch.equal(out, a + b)
    unary_kernel(exp, fp32_dest=True)(a, out)
    assert_close(out, a.exp(), max_abs=1e-5, min_pcc=0.9999)
