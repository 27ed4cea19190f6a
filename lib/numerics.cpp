#include "numerics.h"

#include <cmath>

#include "block_float.h"

namespace ttemu {

bool is_supported_format(DataFormat format) {
  return format == DataFormat::Float16_b || format == DataFormat::Float32 || format == DataFormat::Bfp8_b;
}

uint32_t format_tile_bytes(DataFormat format) {
  if (format == DataFormat::Bfp8_b) return kBfp8TileBytes;
  return kTileElements * (format == DataFormat::Float32 ? 4 : 2);
}

namespace {
// 16 lanes: one face row (GCC/Clang vector extensions, so the conversions vectorize).
typedef uint32_t Wide16 __attribute__((vector_size(64)));
typedef uint16_t Narrow16 __attribute__((vector_size(32)));

// One face row: bf16 bits -> fp32.
inline void bf16_row_to_float(const uint8_t* in, float* out) {
  Narrow16 bits;
  std::memcpy(&bits, in, sizeof bits);
  Wide16 wide = __builtin_convertvector(bits, Wide16) << 16;
  std::memcpy(out, &wide, sizeof wide);
}

// One face row: fp32 -> bf16 bits, round to nearest even, NaN kept quiet (float_to_bf16).
inline void float_row_to_bf16(const float* in, uint8_t* out) {
  Wide16 wide;
  std::memcpy(&wide, in, sizeof wide);
  Wide16 rounded = (wide + 0x7fffu + ((wide >> 16) & 1u)) >> 16;
  Wide16 quiet_nan = (wide >> 16) | 0x40u;
  Wide16 is_nan = (Wide16)((wide & 0x7fffffffu) > 0x7f800000u);
  Narrow16 bits = __builtin_convertvector((rounded & ~is_nan) | (quiet_nan & is_nan), Narrow16);
  std::memcpy(out, &bits, sizeof bits);
}
}  // namespace

void unpack_tile(const uint8_t* page, DataFormat format, float* row_major) {
  if (format == DataFormat::Bfp8_b) return unpack_bfp8_b_tile(page, row_major);
  const uint32_t bytes = format == DataFormat::Float32 ? 4 : 2;
  for (int face = 0; face < 4; ++face) {
    int row0 = (face / 2) * kFaceRows;
    int col0 = (face % 2) * kFaceCols;
    for (int r = 0; r < kFaceRows; ++r) {
      float* out = row_major + (row0 + r) * kTileCols + col0;
      const uint8_t* in = page + (face * kFaceRows * kFaceCols + r * kFaceCols) * bytes;
      if (format == DataFormat::Float32)
        std::memcpy(out, in, kFaceCols * 4);
      else
        bf16_row_to_float(in, out);
    }
  }
}

void pack_tile_page(const float* row_major, DataFormat format, uint8_t* page) {
  if (format == DataFormat::Bfp8_b) return pack_bfp8_b_tile(row_major, page);
  const uint32_t bytes = format == DataFormat::Float32 ? 4 : 2;
  for (int face = 0; face < 4; ++face) {
    int row0 = (face / 2) * kFaceRows;
    int col0 = (face % 2) * kFaceCols;
    for (int r = 0; r < kFaceRows; ++r) {
      const float* in = row_major + (row0 + r) * kTileCols + col0;
      uint8_t* out = page + (face * kFaceRows * kFaceCols + r * kFaceCols) * bytes;
      if (format == DataFormat::Float32)
        std::memcpy(out, in, kFaceCols * 4);
      else
        float_row_to_bf16(in, out);
    }
  }
}

void round_tile_to_bf16(float* values, int count) {
  for (int i = 0; i < count; i += kFaceCols) round_sixteen_to_bf16(values + i);
}

float exp_approximate(float x) {
  float t = x * 1.44269504f;  // log2(e)
  if (t < -126.0f) return 0.0f;
  if (t > 127.99f) return INFINITY;
  float whole = std::floor(t);
  float f = t - whole;
  // 2^f on [0,1) ~ 1 + f (0.65651 + 0.34349 f): max relative error ~3.2e-3.
  float mantissa = 1.0f + f * (0.65651f + 0.34349f * f);
  return std::ldexp(mantissa, static_cast<int>(whole));
}

}  // namespace ttemu
