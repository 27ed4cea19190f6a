"""bfp8_b tile pages on the host: float32 <-> bytes, bit-exact with tt-metal's host packer.

A bfp8_b value is a sign bit and a 7-bit magnitude with no hidden bit; a group of 16
values (one row of a 16x16 face) shares one 8-bit exponent, read like an fp32 exponent:
value = (-1)^sign * magnitude / 64 * 2^(exponent - 127). A 32x32 tile page is

    64 exponent bytes   (face 0 rows 0..15, face 1 rows 0..15, face 2 ..., face 3 ...)
    1024 value bytes    (the tile's elements in face layout, as `tiles.tilize` orders them)

= 1088 bytes; the exponent section needs no padding since 64 bytes is a multiple of
the 16-byte L1 alignment. Rules (tt-metal tt_metal/impl/data_format/blockfloat_common.cpp,
`pack_fp32_vec_as_bfp_tiles<Bfp8_b>` and `convert_u32_to_bfp`, ties-to-even since
tt-metal PR #16997; the reverse is `unpack_bfp8_tiles_into_float_vec`):

- pack: the shared exponent is the largest fp32 exponent field of the 16 values (zeros
  count as 0, inf/NaN as 255). A value that is +-0 packs to 0. Otherwise its 24-bit
  significand (hidden 1 added even when the exponent field is 0) is shifted right by
  (shared - own exponent), dropping the shifted-out bits, then rounded from 24 to 7 bits
  to nearest with ties to even, saturating at 127 (a round-up never bumps the shared
  exponent). A magnitude of 0 drops the sign.
- unpack: magnitude 0 is a zero carrying the sign bit (0x80 reads back as -0.0);
  otherwise the magnitude is normalized (shifted left until bit 6 is set, the shift
  subtracted from the exponent) and the rest becomes the fp32 mantissa. The exponent
  arithmetic wraps in 32 bits as the host code's does, so a group whose shared exponent
  is below 7 can read back garbage for its smallest values, exactly like ttnn.to_torch.

The device packer and unpacker round differently (ties away from zero, and twice);
the emulator implements those (lib/block_float.cpp, docs/emulator.md).
"""

from __future__ import annotations

import numpy as np

GROUP = 16  # values sharing one exponent: one face row
TILE_ELEMENTS = 1024
EXPONENTS_PER_TILE = TILE_ELEMENTS // GROUP
BFP8_B_TILE_BYTES = EXPONENTS_PER_TILE + TILE_ELEMENTS

_MAGNITUDE_BITS = 7
_DROPPED_BITS = 24 - _MAGNITUDE_BITS  # significand bits below the kept magnitude
_TIE = np.uint32(1 << (_DROPPED_BITS - 1))
_DROPPED_MASK = np.uint32((1 << _DROPPED_BITS) - 1)


def pack_bfp8_b(pages: np.ndarray) -> bytes:
    """(pages, 1024) float32 values in face layout -> bfp8_b page bytes."""
    bits = np.ascontiguousarray(pages, dtype=np.float32).view(np.uint32).reshape(-1, EXPONENTS_PER_TILE, GROUP)
    exponent = (bits >> 23) & np.uint32(0xFF)
    shared = exponent.max(axis=2)
    significand = (bits & np.uint32(0x7FFFFF)) | np.uint32(1 << 23)
    shift = shared[:, :, None] - exponent
    # Shifts of 24 or more leave nothing (the host code shifts in steps of at most 31).
    aligned = np.where(shift >= 24, np.uint32(0), significand >> np.minimum(shift, 31))
    dropped = aligned & _DROPPED_MASK
    magnitude = aligned >> np.uint32(_DROPPED_BITS)
    round_up = (dropped > _TIE) | ((dropped == _TIE) & ((magnitude & np.uint32(1)) == 1))
    magnitude = np.minimum(magnitude + round_up, np.uint32(127))
    sign = np.where(magnitude == 0, np.uint32(0), bits >> np.uint32(31))
    is_zero = (bits & np.uint32(0x7FFFFFFF)) == 0
    code = np.where(is_zero, np.uint32(0), (sign << np.uint32(7)) | magnitude).astype(np.uint8)
    out = np.empty((bits.shape[0], BFP8_B_TILE_BYTES), dtype=np.uint8)
    out[:, :EXPONENTS_PER_TILE] = shared.astype(np.uint8)
    out[:, EXPONENTS_PER_TILE:] = code.reshape(-1, TILE_ELEMENTS)
    return out.tobytes()


def unpack_bfp8_b(data: bytes) -> np.ndarray:
    """bfp8_b page bytes -> (pages, 1024) float32 values in face layout."""
    raw = np.frombuffer(data, dtype=np.uint8)
    if raw.size % BFP8_B_TILE_BYTES:
        raise ValueError(f"{raw.size} bytes is not a whole number of {BFP8_B_TILE_BYTES}-byte bfp8_b tiles")
    raw = raw.reshape(-1, BFP8_B_TILE_BYTES)
    shared = raw[:, :EXPONENTS_PER_TILE].astype(np.uint32)
    code = raw[:, EXPONENTS_PER_TILE:].astype(np.uint32).reshape(-1, EXPONENTS_PER_TILE, GROUP)
    sign = code >> np.uint32(7)
    magnitude = code & np.uint32(0x7F)
    # Left shifts that bring the magnitude's leading 1 to bit 6 (0..6; 0 for magnitude 0).
    leading = np.floor(np.log2(np.maximum(magnitude, 1))).astype(np.uint32)
    normalize = np.uint32(6) - leading
    mantissa = (magnitude << (normalize + np.uint32(1))) & np.uint32(0x7F)
    exponent = shared[:, :, None] - normalize  # wraps in uint32, as the host code's does
    value = (sign << np.uint32(31)) | (exponent << np.uint32(23)) | (mantissa << np.uint32(16))
    value = np.where(magnitude == 0, sign << np.uint32(31), value)
    return value.astype(np.uint32).view(np.float32).reshape(-1, TILE_ELEMENTS)
