"""Coverage of the rest of the compute API (SFPU ops, SFPU binaries, dest reuse, mul and
broadcast forms, unary_bcast), one tile each, against torch."""

import emulator_programs as programs
import pytest
import torch

from ttlang.runtime import run_program

torch.manual_seed(3)
X = (torch.randn(32, 32) * 2).to(torch.bfloat16).float()
Y = (torch.rand(32, 32) + 0.5).to(torch.bfloat16).float()  # in [0.5, 1.5]: safe divisor

EXPECTED = {
    "sqrt": lambda x, y: torch.sqrt(x),
    "rsqrt": lambda x, y: torch.rsqrt(x),
    "neg": lambda x, y: -x,
    "abs": lambda x, y: x.abs(),
    "relu": lambda x, y: x.relu(),
    "fill": lambda x, y: torch.full_like(x, 2.5),
    "add_scalar": lambda x, y: x + 1.5,
    "mul_scalar": lambda x, y: x * -2.0,
    "sub_binary": lambda x, y: x - y,
    "mul_binary": lambda x, y: x * y,
    "div_binary": lambda x, y: x / y,
    "max_binary": lambda x, y: torch.maximum(x, y),
    "min_binary": lambda x, y: torch.minimum(x, y),
    "reuse_sub_srca": lambda x, y: x - y,  # DST (x) op CB (y)
    "reuse_sub_srcb": lambda x, y: y - x,  # CB (y) op DST (x)
    "mul_tiles": lambda x, y: x * y,
    "add_bcast_rows": lambda x, y: x + y[0:1, :],
    "mul_bcast_scalar": lambda x, y: x * y[0, 0],
    "unary_bcast_cols": lambda x, y: y[:, 0:1].expand(32, 32),
}


@pytest.mark.parametrize("op", programs.TILE_OPS)
def test_tile_op_matches_torch(op):
    x = (X.abs() + 0.25).to(torch.bfloat16).float() if op in ("sqrt", "rsqrt") else X
    y = Y
    out = run_program(programs.tile_op(op), {"a": x, "b": y, "out": torch.zeros(32, 32)}).outputs["out"].float()
    expected = EXPECTED[op](x, y)
    # fp32 math on bf16 inputs, one bf16 rounding: relative error <= 2^-8.
    assert torch.allclose(out, expected, rtol=2**-8, atol=0.0), (out - expected).abs().max()
