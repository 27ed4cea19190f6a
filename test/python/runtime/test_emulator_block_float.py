"""bfp8_b on the emulator: the unpacker and packer convert as the hardware does.

The reference below is written from tt-isa-documentation (WormholeB0 FloatBitPatterns.md
"BFP8ToBF16"; Packers/FormatConversion.md) and tt-metal issue #17237 (the packer rounds
ties away from zero) / PR #14822 (by default it rounds twice: to E8M6, then to the shared
exponent), one value at a time in Python integers."""

import struct

import emulator_programs as programs
import pytest
import torch

from ttlang.device import load_device
from ttlang.runtime import block_float, run_program, tiles
from ttlang.runtime.program import ComputeConfig, DramBuffer

SHAPE = (64, 64)
FP32_DST = ComputeConfig(fp32_dest_acc_en=True)


def fp32_bits(value: float) -> int:
    return struct.unpack("<I", struct.pack("<f", value))[0]


def device_pack_group(values: list[float]) -> list[float]:
    """What 16 DST values read back as after the packer wrote them as bfp8_b."""
    rounded = []  # (exponent, 7-bit magnitude, sign) after the early conversion to E8M6
    for value in values:
        bits = fp32_bits(value)
        exponent, sign = (bits >> 23) & 0xFF, bits >> 31
        if exponent == 0:
            rounded.append((0, 0, 0))
            continue
        magnitude = 64 + ((bits & 0x7FFFFF) + (1 << 16)) // (1 << 17)  # half up: ties away
        if exponent == 0xFF:
            magnitude = 64  # NaN becomes infinity
        elif magnitude == 128:
            exponent, magnitude = exponent + 1, 64
        rounded.append((exponent, magnitude, sign))
    shared = max(e for e, _, _ in rounded)
    out = []
    for exponent, magnitude, sign in rounded:
        shift = shared - exponent
        if shift:
            magnitude = (magnitude + 2 ** (shift - 1)) // 2**shift if shift <= 7 else 0
        if shared == 0xFF:
            out.append((-1) ** sign * float("inf") if magnitude == 64 and shift == 0 else 0.0)
        else:
            out.append((-1) ** sign * magnitude * 2.0 ** (shared - 127 - 6) if magnitude else 0.0)
    return out


def device_pack(x: torch.Tensor) -> torch.Tensor:
    pages = tiles.tilize(x.float())
    flat = pages.reshape(-1, 16).tolist()
    packed = torch.tensor([device_pack_group(group) for group in flat], dtype=torch.float32)
    return tiles.untilize(packed.reshape(pages.shape), tuple(x.shape))


def varied_inputs(seed: int) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(SHAPE, generator=generator) * torch.exp2(torch.randint(-12, 12, SHAPE, generator=generator).float())
    x[0, :6] = torch.tensor([0.0, -0.0, 1.0 + 1 / 128, 2.0, -(1.0 + 3 / 128), 1.0 - 2**-10])
    x[1, :3] = torch.tensor([float("inf"), 1.0, -3.0])
    x[2, :2] = torch.tensor([float("nan"), 5.0])
    return x


def test_unpack_reads_the_host_packed_values_exactly():
    x = varied_inputs(0)[3:, :].contiguous()  # finite values only
    x = torch.cat([x, x[:3]])  # back to 64 rows
    out = torch.zeros(SHAPE, dtype=torch.bfloat16)
    run_program(programs.copy(SHAPE, ("bfp8_b", "bf16")), {"x": x, "out": out})
    quantized = tiles.from_page_bytes(tiles.to_page_bytes(x, DramBuffer("x", SHAPE, "bfp8_b")), DramBuffer("x", SHAPE, "bfp8_b"))
    assert torch.equal(out.float(), quantized)


@pytest.mark.parametrize(
    "in_format, config",
    [("bf16", ComputeConfig()), ("bf16", FP32_DST), ("fp32", FP32_DST)],
    ids=["bf16-16bit-dst", "bf16-32bit-dst", "fp32-32bit-dst"],
)
def test_pack_rounds_like_the_packer(in_format, config):
    x = varied_inputs(1)
    if in_format == "bf16":
        x = x.to(torch.bfloat16)
    result = run_program(programs.copy(SHAPE, (in_format, "bfp8_b"), config), {"x": x, "out": torch.zeros(SHAPE)})
    out = result.outputs["out"]
    expected = device_pack(x)
    same = (out == expected) | (out.isnan() & expected.isnan())
    assert bool(same.all()), f"{int((~same).sum())} values differ, first at {(~same).nonzero()[0].tolist()}"
    assert out[1, 0] == float("inf") and out[2, 0].abs() == float("inf")  # NaN packs as infinity


def test_pack_rounds_twice_where_the_host_rounds_once():
    # Group exponent 128 (from 2.0); 1 + 1/128 is 32.25 units of 2^-5. The host rounds it
    # once, to 32; the packer first rounds it to E8M6 (1 + 1/64, ties away), then 32.5
    # units to 33.
    x = torch.zeros(SHAPE)
    x[0, :2] = torch.tensor([2.0, 1.0 + 1 / 128])
    result = run_program(programs.copy(SHAPE, ("fp32", "bfp8_b"), FP32_DST), {"x": x, "out": torch.zeros(SHAPE)})
    host = tiles.from_page_bytes(tiles.to_page_bytes(x, DramBuffer("x", SHAPE, "bfp8_b")), DramBuffer("x", SHAPE, "bfp8_b"))
    assert host[0, 1] == 32 / 32
    assert result.outputs["out"][0, 1] == 33 / 32


def test_bfp8_tiles_move_through_dram_and_l1_as_1088_byte_pages():
    x = varied_inputs(2)[3:, :].contiguous()
    x = torch.cat([x, x[:3]])
    result = run_program(programs.copy(SHAPE, ("bfp8_b", "bfp8_b")), {"x": x, "out": torch.zeros(SHAPE)})
    buffer = DramBuffer("x", SHAPE, "bfp8_b")
    quantized = tiles.from_page_bytes(tiles.to_page_bytes(x, buffer), buffer)
    # Values already on the bfp8_b grid survive the packer's roundings unchanged.
    assert torch.equal(result.outputs["out"], quantized)
    assert block_float.BFP8_B_TILE_BYTES == 1088


@pytest.mark.parametrize("fidelity, phases", [("LoFi", 1), ("HiFi2", 2)])
def test_a_bfp8_matmul_tile_costs_at_least_its_floor(fidelity, phases):
    """matmul_tiles costs max(16 per fidelity phase, its operands' format floor), the
    floors of the device description (fitted on GEMM_FLOPS' rows; docs/cost_model.md)."""
    cost = load_device("n150").costs
    floors = {f: int(cost[f"matmul_tile_floor_{f}"]) for f in ("bf16", "bfp8_b")}
    config = ComputeConfig(math_fidelity=fidelity)
    a, b = torch.randn(64, 64), torch.randn(64, 64)
    busy = {}
    for in_format in ("bf16", "bfp8_b"):
        program = programs.matmul(64, 64, 64, (1, 1), subblock=(2, 2), compute_config=config, in_format=in_format)
        report = run_program(program, {"a": a, "b": b, "out": torch.zeros(64, 64)}).report
        (compute,) = [t for t in report.cores[0].threads if t.thread == "compute"]
        busy[in_format] = compute.busy
    matmul_tiles = 2 * 2 * 2  # 2x2 output tiles, 2 K tiles each
    engine = 16 * phases
    expected = matmul_tiles * (max(engine, floors["bfp8_b"]) - max(engine, floors["bf16"]))
    assert busy["bfp8_b"] - busy["bf16"] == expected
    assert expected < 0  # bfp8_b's floor is the lower one
