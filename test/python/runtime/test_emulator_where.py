"""where_tile (api/compute/eltwise_unary/where.h) on the hand-written kernel
compute_where.cpp, against torch.where; and its misuse checks."""

import emulator_programs as programs
import pytest
import torch
from ttlang.runtime import EmulatorError, run_program
from ttlang.runtime.program import ComputeConfig

FP32_DST = ComputeConfig(fp32_dest_acc_en=True)


def inputs(shape, dtype, seed=0):
    generator = torch.Generator().manual_seed(seed)
    cond = (torch.rand(shape, generator=generator) < 0.5).float()
    # Some conditions are not 0/1: any nonzero value selects the true side, -0 is zero.
    cond[0, :8] = torch.tensor([2.0, -3.0, 0.5, -0.0, 0.0, float("inf"), 1e-3, -1e-3])
    a = torch.randn(shape, generator=generator).to(dtype)
    b = (torch.randn(shape, generator=generator) * 100).to(dtype)
    return cond.to(dtype), a, b


@pytest.mark.parametrize(
    "data_format, dtype, fp32_where, config",
    [
        ("bf16", torch.bfloat16, False, ComputeConfig()),
        ("bf16", torch.bfloat16, True, FP32_DST),
        ("fp32", torch.float32, True, FP32_DST),
    ],
    ids=["bf16-16bit-dst", "bf16-32bit-dst", "fp32-32bit-dst"],
)
@pytest.mark.parametrize(
    "slots", [(0, 1, 2, 0), (0, 1, 2, 3), (2, 0, 1, 1)], ids=["out=cond", "out=new", "out=true"]
)
def test_where_matches_torch_exactly(data_format, dtype, fp32_where, config, slots):
    shape, grid = (128, 64), (2, 2)  # 8 tiles, 2 per core
    cond, a, b = inputs(shape, dtype)
    program = programs.where(
        shape,
        grid,
        data_format=data_format,
        fp32_where=fp32_where,
        slots=slots,
        compute_config=config,
    )
    out = run_program(program, {"cond": cond, "a": a, "b": b, "out": torch.zeros(shape)}).outputs[
        "out"
    ]
    expected = torch.where(cond != 0, a, b)
    # A select moves values without arithmetic: the result equals torch's bit for bit
    # (a bf16 value survives a bf16 or fp32 DST unchanged, an fp32 value a 32-bit DST).
    assert torch.equal(out.to(dtype), expected), (out.to(dtype) != expected).sum()
    assert (cond != 0).any() and (cond == 0).any()


def test_fp32_values_through_a_16bit_dst_round_to_bf16():
    shape = (32, 32)
    cond, a, b = inputs(shape, torch.float32, seed=1)
    a = a + 1e-3  # not representable in bf16
    out = run_program(
        programs.where(shape, (1, 1), data_format="fp32"),
        {"cond": cond, "a": a, "b": b, "out": torch.zeros(shape)},
    ).outputs["out"]
    expected = (
        torch.where(cond != 0, a, b).to(torch.bfloat16).float()
    )  # copy_tile rounds to a 16-bit DST
    assert torch.equal(out.float(), expected)


def error_of(program) -> str:
    shape = program.buffers[0].shape
    tensors = {
        "cond": torch.ones(shape),
        "a": torch.ones(shape),
        "b": torch.ones(shape),
        "out": torch.zeros(shape),
    }
    with pytest.raises(EmulatorError) as caught:
        run_program(program, tensors)
    return str(caught.value)


def test_float32_where_on_a_16bit_dst_is_an_error():
    message = error_of(programs.where((32, 32), (1, 1), fp32_where=True))
    assert "where_tile<DataFormat::Float32> on a 16-bit DST" in message
    assert "core (0,0) compute [kernel 'compute_where']" in message


def test_float16b_where_on_a_32bit_dst_is_an_error():
    message = error_of(programs.where((32, 32), (1, 1), compute_config=FP32_DST))
    assert "where_tile<DataFormat::Float16_b> on a 32-bit DST" in message


def test_where_dst_index_beyond_capacity_is_an_error():
    # 32-bit DST, half sync: 4 tiles; slot 4 is out of range.
    message = error_of(
        programs.where(
            (32, 32), (1, 1), fp32_where=True, slots=(0, 1, 2, 4), compute_config=FP32_DST
        )
    )
    assert (
        "where_tile: DST index 4 is beyond DST capacity 4 tiles (32-bit DST, half sync)" in message
    )
