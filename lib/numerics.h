// Tensix number formats and the tile byte layout.
//
// A 32x32 tile page is four 16x16 faces (face 0: rows 0-15 x cols 0-15, face 1: rows
// 0-15 x cols 16-31, face 2: rows 16-31 x cols 0-15, face 3: rows 16-31 x cols 16-31),
// each row-major, as on hardware. Math in the emulator works on row-major fp32 tiles;
// unpack/pack convert between the two. bf16 rounding is round-to-nearest-even (see
// docs/emulator.md for why, against tensix.md's "nearest, ties away or truncate").
#pragma once

#include <cstdint>
#include <cstring>

#include "ttemu/kernel_bridge.h"

namespace ttemu {

constexpr int kTileRows = 32;
constexpr int kTileCols = 32;
constexpr int kTileElements = kTileRows * kTileCols;
constexpr int kFaceRows = 16;
constexpr int kFaceCols = 16;

inline uint32_t float_bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}
inline float bits_float(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// fp32 -> bf16 bits, round to nearest even; NaN stays a (quiet) NaN.
inline uint16_t float_to_bf16(float value) {
  uint32_t bits = float_bits(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}
inline float bf16_to_float(uint16_t bits) { return bits_float(static_cast<uint32_t>(bits) << 16); }
inline float round_to_bf16(float value) { return bf16_to_float(float_to_bf16(value)); }

// Index of element (row, col) of a tile in the face layout.
inline int face_layout_index(int row, int col) {
  int face = (row / kFaceRows) * 2 + col / kFaceCols;
  return face * kFaceRows * kFaceCols + (row % kFaceRows) * kFaceCols + col % kFaceCols;
}

bool is_supported_format(DataFormat format);
// Bytes of one 32x32 tile page of `format` (bfp8_b: lib/block_float.h).
uint32_t format_tile_bytes(DataFormat format);

// A face-layout page of `format` -> row-major fp32 values.
void unpack_tile(const uint8_t* page, DataFormat format, float* row_major);
// Row-major fp32 values -> a face-layout page of `format` (bf16: round to nearest even;
// bfp8_b: the packer's rounding, lib/block_float.h).
void pack_tile_page(const float* row_major, DataFormat format, uint8_t* page);
// Round 16 consecutive values to bf16 in place (float_to_bf16, without branches so it
// vectorizes).
inline void round_sixteen_to_bf16(float* values) {
  typedef uint32_t Wide16 __attribute__((vector_size(64)));
  Wide16 wide;
  std::memcpy(&wide, values, sizeof wide);
  Wide16 rounded = (wide + 0x7fffu + ((wide >> 16) & 1u)) & 0xffff0000u;
  Wide16 is_nan = (Wide16)((wide & 0x7fffffffu) > 0x7f800000u);
  wide = (rounded & ~is_nan) | ((wide | 0x400000u) & 0xffff0000u & is_nan);
  std::memcpy(values, &wide, sizeof wide);
}

// Round every value to bf16 in place (a 16-bit DST); count is a multiple of 16.
void round_tile_to_bf16(float* values, int count);

// Tensix's approximate exp (math_approx_mode): 2^(x log2 e) from the exponent bits and a
// quadratic fit of 2^f on [0, 1); relative error below 3.5e-3.
float exp_approximate(float x);

}  // namespace ttemu
