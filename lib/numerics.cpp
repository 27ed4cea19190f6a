#include "numerics.h"

#include <cmath>

namespace ttemu {

bool is_supported_format(DataFormat format) {
  return format == DataFormat::Float16_b || format == DataFormat::Float32;
}

const char* format_name(DataFormat format) {
  switch (format) {
    case DataFormat::Float16_b: return "bf16";
    case DataFormat::Float32: return "fp32";
    default: return "unsupported";
  }
}

uint32_t format_element_bytes(DataFormat format) { return format == DataFormat::Float32 ? 4 : 2; }

void unpack_tile(const uint8_t* page, DataFormat format, float* row_major) {
  for (int face = 0; face < 4; ++face) {
    int row0 = (face / 2) * kFaceRows;
    int col0 = (face % 2) * kFaceCols;
    for (int r = 0; r < kFaceRows; ++r) {
      float* out = row_major + (row0 + r) * kTileCols + col0;
      int first = face * kFaceRows * kFaceCols + r * kFaceCols;
      if (format == DataFormat::Float32) {
        std::memcpy(out, page + first * 4, kFaceCols * 4);
      } else {
        const uint8_t* in = page + first * 2;
        for (int c = 0; c < kFaceCols; ++c) {
          uint16_t bits;
          std::memcpy(&bits, in + 2 * c, 2);
          out[c] = bf16_to_float(bits);
        }
      }
    }
  }
}

void pack_tile_page(const float* row_major, DataFormat format, uint8_t* page) {
  for (int face = 0; face < 4; ++face) {
    int row0 = (face / 2) * kFaceRows;
    int col0 = (face % 2) * kFaceCols;
    for (int r = 0; r < kFaceRows; ++r) {
      const float* in = row_major + (row0 + r) * kTileCols + col0;
      int first = face * kFaceRows * kFaceCols + r * kFaceCols;
      if (format == DataFormat::Float32) {
        std::memcpy(page + first * 4, in, kFaceCols * 4);
      } else {
        uint8_t* out = page + first * 2;
        for (int c = 0; c < kFaceCols; ++c) {
          uint16_t bits = float_to_bf16(in[c]);
          std::memcpy(out + 2 * c, &bits, 2);
        }
      }
    }
  }
}

void round_tile_to_bf16(float* values, int count) {
  for (int i = 0; i < count; ++i) values[i] = round_to_bf16(values[i]);
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
