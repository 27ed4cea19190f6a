"""bfp8_b host conversion (ttlang.runtime.block_float) against a per-value reference
written from tt-metal's packing rules (blockfloat_common.cpp), independently of the
vectorized code: Python integers, floor division for the alignment shift and
`round(Fraction)` (ties to even) for the rounding."""

import math
import struct
from fractions import Fraction

import numpy as np
import pytest
import torch

from ttlang.runtime import block_float, tiles
from ttlang.runtime.program import DramBuffer, tile_size_bytes


def fp32_bits(value: float) -> int:
    return struct.unpack("<I", struct.pack("<f", value))[0]


def bits_fp32(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def reference_pack_group(values: list[float]) -> tuple[int, list[int]]:
    """(shared exponent, 16 codes) of one face row, following the rules one value at a time."""
    fields = [fp32_bits(v) for v in values]
    shared = max((f >> 23) & 0xFF for f in fields)
    codes = []
    for f in fields:
        if f & 0x7FFFFFFF == 0:
            codes.append(0)
            continue
        significand = (f & 0x7FFFFF) | (1 << 23)
        aligned = significand // 2 ** (shared - ((f >> 23) & 0xFF))  # shifted-out bits are dropped
        magnitude = min(round(Fraction(aligned, 2**17)), 127)  # 24 -> 7 bits, ties to even
        sign = f >> 31 if magnitude else 0
        codes.append(sign << 7 | magnitude)
    return shared, codes


def reference_value(shared: int, code: int) -> float:
    """What a code reads back as, for groups whose exponent keeps every value normal."""
    magnitude = code & 0x7F
    if magnitude == 0:
        return -0.0 if code >> 7 else 0.0
    return (-1) ** (code >> 7) * math.ldexp(magnitude, shared - 127 - 6)


def pack_one_tile(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    data = np.frombuffer(block_float.pack_bfp8_b(values.reshape(1, 1024)), dtype=np.uint8)
    return data[:64], data[64:]


def random_tile_values(seed: int) -> np.ndarray:
    """Values whose magnitudes span 2^-20..2^20 within and across face rows, both signs,
    with zeros mixed in."""
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(1024) * np.exp2(rng.integers(-20, 20, size=1024))
    values[rng.random(1024) < 0.05] = 0.0
    values[rng.random(1024) < 0.02] = -0.0
    return values.astype(np.float32)


@pytest.mark.parametrize("seed", range(4))
def test_pack_matches_the_reference_value_by_value(seed):
    values = random_tile_values(seed)
    exponents, codes = pack_one_tile(values)
    for group in range(64):
        shared, expected = reference_pack_group(values[group * 16 : (group + 1) * 16].tolist())
        assert exponents[group] == shared, f"group {group}"
        assert codes[group * 16 : (group + 1) * 16].tolist() == expected, f"group {group}"


@pytest.mark.parametrize("seed", range(4))
def test_unpack_matches_the_reference_value_by_value(seed):
    values = random_tile_values(seed)
    data = block_float.pack_bfp8_b(values.reshape(1, 1024))
    exponents, codes = pack_one_tile(values)
    decoded = block_float.unpack_bfp8_b(data)[0]
    for i in range(1024):
        expected = reference_value(int(exponents[i // 16]), int(codes[i]))
        assert fp32_bits(decoded[i]) == fp32_bits(expected), f"element {i}"


def group_with(first: float, *rest: float) -> np.ndarray:
    """One tile whose first face row starts with these values (the rest zero)."""
    values = np.zeros(1024, dtype=np.float32)
    values[: 1 + len(rest)] = [first, *rest]
    return values


@pytest.mark.parametrize(
    "value, code",
    [
        (1.0 + 1 / 128, 64),  # halfway between 64/64 and 65/64: ties to even, down
        (1.0 + 3 / 128, 66),  # halfway between 65/64 and 66/64: ties to even, up
        (1.0 + 1 / 128 + 2**-20, 65),  # above the tie
        (-(1.0 + 3 / 128), 0x80 | 66),
        (0.5 + 1 / 256, 32),  # one exponent below the group's: shift, then a tie
        (1.0 - 2**-24, 64),  # rounds up to 64/64 under the group exponent 127 (from 2.0)
    ],
)
def test_rounding_is_to_nearest_with_ties_to_even(value, code):
    exponents, codes = pack_one_tile(group_with(1.5, value))
    assert exponents[0] == 127
    assert codes[1] == code


def test_a_round_up_past_127_saturates_instead_of_bumping_the_exponent():
    exponents, codes = pack_one_tile(group_with(1.9999, -1.9999))
    assert exponents[0] == 127
    assert codes[:2].tolist() == [127, 0x80 | 127]
    decoded = block_float.unpack_bfp8_b(block_float.pack_bfp8_b(group_with(1.9999).reshape(1, 1024)))
    assert decoded[0, 0] == 127 / 64


def test_zeros_and_values_that_vanish_carry_no_sign():
    exponents, codes = pack_one_tile(group_with(1000.0, -0.0, 0.0, -1e-3, 1e-3))
    assert exponents[0] == 127 + 9
    assert codes[:5].tolist() == [125, 0, 0, 0, 0]  # 1000 = 125/64 * 2^9; 1e-3 is below 2^(9-6)/2
    decoded = block_float.unpack_bfp8_b(block_float.pack_bfp8_b(group_with(-0.0).reshape(1, 1024)))
    assert fp32_bits(decoded[0, 0]) == 0  # -0.0 packs to +0


def test_a_sign_with_magnitude_zero_reads_back_as_minus_zero():
    data = bytearray(block_float.BFP8_B_TILE_BYTES)
    data[0] = 127
    data[64] = 0x80
    assert fp32_bits(block_float.unpack_bfp8_b(bytes(data))[0, 0]) == 0x80000000


def test_inf_and_nan_take_the_group_and_flush_its_other_values():
    exponents, codes = pack_one_tile(group_with(float("inf"), 3.0, float("-inf")))
    assert exponents[0] == 255
    decoded = block_float.unpack_bfp8_b(block_float.pack_bfp8_b(group_with(float("inf"), 3.0, float("-inf")).reshape(1, 1024)))
    assert decoded[0, 0] == float("inf") and decoded[0, 2] == float("-inf")
    assert decoded[0, 1] == 0.0
    nan = block_float.unpack_bfp8_b(block_float.pack_bfp8_b(group_with(float("nan"), 1.0).reshape(1, 1024)))
    assert math.isnan(nan[0, 0]) and nan[0, 1] == 0.0


def test_a_denormal_input_keeps_the_hidden_bit_and_reads_back_as_zero():
    denormal = bits_fp32(1)  # exponent field 0: packed as if it were 1.0 * 2^-127
    exponents, codes = pack_one_tile(group_with(denormal))
    assert (exponents[0], codes[0]) == (0, 64)
    decoded = block_float.unpack_bfp8_b(block_float.pack_bfp8_b(group_with(denormal).reshape(1, 1024)))
    assert fp32_bits(decoded[0, 0]) == 0


def test_exponent_underflow_on_unpack_wraps_as_the_host_code_does():
    data = bytearray(block_float.BFP8_B_TILE_BYTES)
    data[0] = 3  # shared exponent 3, magnitude 1: the exponent would be 3 - 6
    data[64] = 0x01
    # (3 - 6) mod 2^32 shifted into bits 23..31: 0xFFFFFFFD << 23 = 0xFE800000.
    assert fp32_bits(block_float.unpack_bfp8_b(bytes(data))[0, 0]) == 0xFE800000


def test_page_layout_is_exponents_by_face_row_then_values_in_face_layout():
    # Element (r, c) = 2^(r mod 8) * (1 + c / 64): face row r of face f has exponent 127 + r mod 8.
    rows = torch.arange(64).reshape(64, 1) % 8
    cols = torch.arange(32).reshape(1, 32)
    x = torch.exp2(rows.float()) * (1 + cols.float() / 64)
    buffer = DramBuffer("x", (64, 32), data_format="bfp8_b")
    data = np.frombuffer(tiles.to_page_bytes(x, buffer), dtype=np.uint8).reshape(2, 1088)
    assert buffer.page_size == tile_size_bytes("bfp8_b") == 1088
    for page in range(2):
        for face in range(4):
            for row in range(16):
                tile_row = (face // 2) * 16 + row
                assert data[page, face * 16 + row] == 127 + (page * 32 + tile_row) % 8
        # Face 1 (columns 16..31) of row 0: magnitudes 64 + c.
        assert data[page, 64 + 256 : 64 + 256 + 16].tolist() == [64 + c for c in range(16, 32)]
    assert torch.equal(tiles.from_page_bytes(bytes(data), buffer), x)


def test_values_on_the_bfp8_grid_round_trip_exactly_and_packing_is_idempotent():
    torch.manual_seed(0)
    x = torch.randn(2, 64, 96) * 8
    buffer = DramBuffer("x", (2, 64, 96), data_format="bfp8_b")
    once = tiles.from_page_bytes(tiles.to_page_bytes(x, buffer), buffer)
    assert once.dtype == torch.float32
    assert tiles.to_page_bytes(once, buffer) == tiles.to_page_bytes(x, buffer)
    assert torch.equal(tiles.from_page_bytes(tiles.to_page_bytes(once, buffer), buffer), once)
    # bfp8_b values fit bf16 exactly, so a bf16 tensor takes them without rounding.
    assert torch.equal(once.to(torch.bfloat16).float(), once)


def test_quantization_error_is_below_one_step_of_the_group_exponent():
    torch.manual_seed(1)
    x = torch.randn(64, 64)
    buffer = DramBuffer("x", (64, 64), data_format="bfp8_b")
    q = tiles.from_page_bytes(tiles.to_page_bytes(x, buffer), buffer)
    groups = tiles.tilize(x).reshape(-1, 16)
    step = torch.exp2(torch.floor(torch.log2(groups.abs().amax(dim=1))) - 6)  # one magnitude unit
    error = (tiles.tilize(q) - tiles.tilize(x)).reshape(-1, 16).abs()
    assert bool((error <= step[:, None]).all())
