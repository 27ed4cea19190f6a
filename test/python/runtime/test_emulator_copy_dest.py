"""copy_dest_values (api/compute/copy_dest_values.h) on the hand-written kernel
compute_copy_dest.cpp: DST[idst_out] = DST[idst_in], source first; and its misuse
checks (DST protocol, capacity)."""

import dataclasses

import emulator_programs as programs
import pytest
import torch
from ttlang.runtime import EmulatorError, run_program
from ttlang.runtime.program import CBConfig, ComputeConfig, DramBuffer, tile_size_bytes

FP32_DST = ComputeConfig(fp32_dest_acc_en=True)
SHAPE, GRID = (64, 64), (1, 2)  # 4 tiles, 2 per core


def copy_dest(to, source, packed, *, data_format="bf16", config=ComputeConfig(), misuse=0, other=0):
    """x -> DST[to], y -> DST[source], copy_dest_values(source, to), pack DST[packed]
    (`misuse`, `other`: see compute_copy_dest.cpp)."""
    program = programs.with_kernel(
        programs.eltwise_add(SHAPE, GRID), "compute", "compute_copy_dest.cpp",
        0, 1, 16, to, source, packed, misuse, other,
    )  # fmt: skip
    page = tile_size_bytes(data_format)
    return dataclasses.replace(
        program,
        cbs=[CBConfig(cb.index, cb.num_pages, page, data_format) for cb in program.cbs],
        buffers=[dataclasses.replace(b, data_format=data_format) for b in program.buffers],
        compute_config=config,
    )


def inputs(dtype):
    generator = torch.Generator().manual_seed(7)
    x = torch.randn(SHAPE, generator=generator).to(dtype)
    y = (torch.randn(SHAPE, generator=generator) * 100).to(dtype)
    # Values a max(y, y) stand-in or an arithmetic path could disturb: NaN, -0, inf.
    y[0, :4] = torch.tensor([float("nan"), -0.0, float("inf"), -float("inf")], dtype=dtype)
    y[33, 40] = float("nan")  # in another core's tiles too
    return x, y


def bits(t):
    return t.view(torch.int16 if t.dtype == torch.bfloat16 else torch.int32)


CASES = [
    ("bf16", torch.bfloat16, ComputeConfig()),
    ("bf16", torch.bfloat16, FP32_DST),
    ("fp32", torch.float32, FP32_DST),
]
CASE_IDS = ["bf16-16bit-dst", "bf16-32bit-dst", "fp32-32bit-dst"]


@pytest.mark.parametrize("data_format, dtype, config", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("to, source", [(0, 1), (1, 0), (3, 2)], ids=["0<-1", "1<-0", "3<-2"])
@pytest.mark.parametrize("packed", ["to", "source"])
def test_copy_moves_the_source_tile_to_the_destination(data_format, dtype, config, to, source, packed):
    x, y = inputs(dtype)
    slot = to if packed == "to" else source
    program = copy_dest(to, source, slot, data_format=data_format, config=config)
    out = run_program(program, {"a": x, "b": y, "out": torch.zeros(SHAPE, dtype=dtype)}).outputs["out"]
    out = out.to(dtype)
    # DST[to] (the copy) and DST[source] (left as it was) both hold y, bit for bit:
    # a copy in the other direction would leave x in both.
    assert torch.equal(bits(out), bits(y)), (bits(out) != bits(y)).sum()
    assert not torch.equal(bits(out), bits(x))


def error_of(program) -> str:
    tensors = {"a": torch.ones(SHAPE), "b": torch.ones(SHAPE), "out": torch.zeros(SHAPE)}
    with pytest.raises(EmulatorError) as caught:
        run_program(program, tensors)
    return str(caught.value)


def test_copy_outside_acquire_is_an_error():
    message = error_of(copy_dest(0, 1, 0, misuse=1))
    assert "copy_dest_values touches DST outside tile_regs_acquire..tile_regs_commit" in message
    assert "compute [kernel 'compute_eltwise_add']" in message


@pytest.mark.parametrize("misuse", [2, 3], ids=["destination", "source"])
def test_copy_dst_index_beyond_capacity_is_an_error(misuse):
    # 32-bit DST, half sync: 4 tiles; x and y go to slots 0 and 1, the copy names slot 4.
    message = error_of(copy_dest(0, 1, 0, config=FP32_DST, misuse=misuse, other=4))
    assert "copy_dest_values: DST index 4 is beyond DST capacity 4 tiles (32-bit DST, half sync)" in message
