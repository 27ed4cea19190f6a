"""Reduce (with a scaler tile), transpose, column-broadcast subtract, exp and recip,
each a hand-written kernel on one core, against torch."""

import emulator_programs as programs
import pytest
import torch
from emulator_checks import assert_close

from ttlang.runtime import run_program
from ttlang.runtime.program import ComputeConfig

SHAPE = (64, 96)  # 2 x 3 tiles
SUM_TOLERANCE = 3 * 0.0625


def run(program, **tensors):
    tensors["out"] = torch.zeros(program.buffers[-1].shape)
    return run_program(program, tensors).outputs["out"].float()


def bf16_input(seed=0, shape=SHAPE):
    torch.manual_seed(seed)
    return torch.randn(shape).to(torch.bfloat16)


@pytest.mark.parametrize("pool", ["sum", "max"])
def test_row_reduce_with_scaler(pool):
    x = bf16_input()
    out = run(programs.reduce(SHAPE, pool, "row", scaler=0.5), x=x)
    scaled = x.float() * 0.5
    expected = scaled.sum(dim=1) if pool == "sum" else scaled.amax(dim=1)
    # Column 0 of each output row holds the row's result. A max is exact; a sum is
    # rounded to bf16 in DST after each tile: <= 3 half-ulps (0.0625 below |32|).
    assert_close(out[:, 0], expected, min_pcc=0.999, max_abs=SUM_TOLERANCE if pool == "sum" else 0.0)


@pytest.mark.parametrize("pool", ["sum", "max"])
def test_col_reduce_with_scaler(pool):
    x = bf16_input(1)
    out = run(programs.reduce(SHAPE, pool, "col", scaler=2.0), x=x)
    scaled = x.float() * 2.0
    expected = scaled.sum(dim=0) if pool == "sum" else scaled.amax(dim=0)
    # Row 0 of each output column holds the column's result.
    assert_close(out[0, :], expected, min_pcc=0.999, max_abs=SUM_TOLERANCE if pool == "sum" else 0.0)


def test_row_max_of_negative_rows_is_not_clamped_at_zero():
    x = -bf16_input(2).abs() - 1.0
    out = run(programs.reduce(SHAPE, "max", "row", scaler=1.0), x=x)
    assert torch.equal(out[:, 0], x.float().amax(dim=1))


@pytest.mark.parametrize("dim", ["row", "col", "scalar"])
def test_reduce_init_masks_every_pack_until_reduce_uninit(dim):
    # tt-metal's reduce_init sets the packer's edge masks: until reduce_uninit, every
    # pack keeps only the reduction's result position (column 0, row 0 or [0][0]) and
    # writes the rest as zero, whatever DST holds (here a copied tile).
    x = bf16_input(5)
    out = run(programs.reduce_masked_copy(SHAPE, dim), x=x)
    tiles = [t for row in x.float().split(32) for t in row.split(32, dim=1)]
    for i, tile in enumerate(tiles):
        masked, whole = out[32 * i : 32 * (i + 1)].split(32, dim=1)
        kept = torch.zeros(32, 32, dtype=torch.bool)
        kept[:, 0] |= dim == "row"
        kept[0, :] |= dim == "col"
        kept[0, 0] = True
        assert torch.equal(masked, torch.where(kept, tile, torch.zeros_like(tile)))
        assert torch.equal(whole, tile)


def test_transpose():
    x = bf16_input(3)
    out = run(programs.transpose(SHAPE), x=x)
    assert torch.equal(out, x.float().t())


def test_sub_with_column_broadcast():
    a = bf16_input(4)
    b = bf16_input(5, (SHAPE[0], 32))
    out = run(programs.bcast_sub_cols(SHAPE), a=a, b=b)
    expected = (a.float() - b.float()[:, :1]).to(torch.bfloat16).float()
    assert torch.equal(out, expected)


def test_exp_exact():
    x = bf16_input(6)
    out = run(programs.sfpu_unary(SHAPE, "exp"), x=x)
    expected = torch.exp(x.float())
    # One bf16 rounding of an fp32 exp: relative error <= 2^-8 (7 stored mantissa bits).
    assert (out / expected - 1).abs().max().item() <= 2**-8
    assert_close(out, expected, min_pcc=0.9999, max_abs=0.2)


def test_exp_approximate_mode_is_close_but_not_exact():
    x = bf16_input(6)
    exact = run(programs.sfpu_unary(SHAPE, "exp"), x=x)
    approx = run(programs.sfpu_unary(SHAPE, "exp", ComputeConfig(math_approx_mode=True)), x=x)
    relative = (approx / torch.exp(x.float()) - 1).abs().max().item()
    assert relative <= 0.0075, relative  # 3.5e-3 from the approximation + a bf16 rounding
    assert not torch.equal(approx, exact)


def test_exp_without_template_argument_is_exact_in_approximate_mode():
    # tt-metal's exp_tile<approx = false>: math_approx_mode only sets APPROX, which a
    # kernel passes (the compiler emits exp_tile<APPROX>); a bare exp_tile() is exact.
    x = bf16_input(6)
    exact = run(programs.sfpu_unary(SHAPE, "exp"), x=x)
    default = run(programs.sfpu_unary(SHAPE, "exp_default", ComputeConfig(math_approx_mode=True)), x=x)
    assert torch.equal(default, exact)


def test_recip_and_exp_then_recip():
    x = (bf16_input(7).float().abs() + 0.5).to(torch.bfloat16)
    recip = run(programs.sfpu_unary(SHAPE, "recip"), x=x)
    # One bf16 rounding of 1/x: relative error <= 2^-8 (7 stored mantissa bits).
    assert (recip * x.float() - 1).abs().max().item() <= 2**-8
    exp_recip = run(programs.sfpu_unary(SHAPE, "exp_recip"), x=x)
    # DST is bf16: exp is rounded before the recip, so two roundings.
    assert_close(exp_recip, torch.exp(-x.float()), min_pcc=0.9999, max_abs=2**-7)
