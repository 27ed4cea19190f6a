// bfp8_b tiles as the Tensix unpacker and packer see them.
//
// A bfp8_b page is 64 shared exponents (one byte per face row of 16 values; face 0 rows
// 0..15, then faces 1, 2, 3) followed by 1024 sign-magnitude bytes in face layout:
// value = (-1)^sign * magnitude / 64 * 2^(exponent - 127), magnitude 7 bits with no
// hidden bit. 1088 bytes per tile.
//
// Unpack (tt-isa-documentation WormholeB0 FloatBitPatterns.md, "BFP8ToBF16"): each
// value becomes a bf16 exactly (the unpacker normalizes the magnitude and lowers the
// exponent by the shift, in 8-bit arithmetic); a sign with magnitude 0 is -infinity.
//
// Pack (Packers/FormatConversion.md; tt-metal issue #17237: ties away from zero, never to
// even; tt-metal PR #14822 and issue #52155: the default packer rounds twice): with
// tt-metal's default bfp8_pack_precise = false the packer's early conversion rounds each
// DST value to E8M6 (own exponent, 6 mantissa bits; denormals and -0 to +0, NaN to
// infinity), then the late conversion takes the largest exponent of each face row as the
// shared exponent and rounds every magnitude, shifted to it, again. Both roundings are to
// nearest with ties away from zero. A value whose magnitude rounds to 0 is +0.
#pragma once

#include <cstdint>

namespace ttemu {

constexpr uint32_t kBfp8ExponentBytes = 64;
constexpr uint32_t kBfp8TileBytes = kBfp8ExponentBytes + 1024;

// A bfp8_b page -> row-major fp32 values (each exactly a bf16).
void unpack_bfp8_b_tile(const uint8_t* page, float* row_major);
// Row-major fp32 DST values -> a bfp8_b page, rounding as the packer does.
void pack_bfp8_b_tile(const float* row_major, uint8_t* page);

}  // namespace ttemu
