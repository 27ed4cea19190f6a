#include "block_float.h"

#include "numerics.h"

namespace ttemu {

namespace {

constexpr int kGroup = kFaceCols;  // values sharing an exponent: one face row

// The unpacker's BFP8 -> BF16 (tt-isa-documentation FloatBitPatterns.md).
uint16_t bfp8_to_bf16(uint8_t code, uint8_t exponent) {
  uint8_t sign = code >> 7;
  uint8_t magnitude = static_cast<uint8_t>(code << 1);
  if (magnitude == 0) return sign ? 0xff80 : 0;
  int leading_zeros = __builtin_clz(magnitude) - 24;
  magnitude = static_cast<uint8_t>(magnitude << leading_zeros);
  exponent = static_cast<uint8_t>(exponent - leading_zeros);
  return static_cast<uint16_t>((sign << 15) | (exponent << 7) | (magnitude & 0x7e));
}

// The packer's early conversion to E8M6: (exponent, 7-bit magnitude with the leading 1,
// sign); magnitude 0 for zeros and flushed denormals.
struct E8M6 {
  uint32_t exponent;
  uint32_t magnitude;
  uint32_t sign;
};

E8M6 round_to_e8m6(float value) {
  uint32_t bits = float_bits(value);
  uint32_t exponent = (bits >> 23) & 0xff;
  uint32_t sign = bits >> 31;
  if (exponent == 0) return {0, 0, 0};        // zero or denormal: +0
  if (exponent == 0xff) return {0xff, 64, sign};  // infinity, and NaN becomes infinity
  // 23 mantissa bits -> 6, to nearest with ties away from zero (add half, truncate).
  uint32_t mantissa = ((bits & 0x7fffff) + (1u << 16)) >> 17;
  if (mantissa == 64) {  // carried into the exponent
    mantissa = 0;
    ++exponent;
  }
  return {exponent, 64 | mantissa, sign};
}

}  // namespace

void unpack_bfp8_b_tile(const uint8_t* page, float* row_major) {
  const uint8_t* codes = page + kBfp8ExponentBytes;
  for (int group = 0; group < static_cast<int>(kBfp8ExponentBytes); ++group) {
    int face = group / kFaceRows;
    int row = (face / 2) * kFaceRows + group % kFaceRows;
    float* out = row_major + row * kTileCols + (face % 2) * kFaceCols;
    for (int i = 0; i < kGroup; ++i) out[i] = bf16_to_float(bfp8_to_bf16(codes[group * kGroup + i], page[group]));
  }
}

void pack_bfp8_b_tile(const float* row_major, uint8_t* page) {
  uint8_t* codes = page + kBfp8ExponentBytes;
  for (int group = 0; group < static_cast<int>(kBfp8ExponentBytes); ++group) {
    int face = group / kFaceRows;
    int row = (face / 2) * kFaceRows + group % kFaceRows;
    const float* in = row_major + row * kTileCols + (face % 2) * kFaceCols;
    E8M6 values[kGroup];
    uint32_t shared = 0;
    for (int i = 0; i < kGroup; ++i) {
      values[i] = round_to_e8m6(in[i]);
      if (values[i].exponent > shared) shared = values[i].exponent;
    }
    page[group] = static_cast<uint8_t>(shared);
    for (int i = 0; i < kGroup; ++i) {
      const E8M6& v = values[i];
      uint32_t shift = shared - v.exponent;
      uint32_t magnitude = v.magnitude == 0 ? 0
                           : shift == 0     ? v.magnitude
                           : shift > 7      ? 0
                                            : (v.magnitude + (1u << (shift - 1))) >> shift;  // ties away
      codes[group * kGroup + i] = static_cast<uint8_t>(magnitude == 0 ? 0 : (v.sign << 7) | magnitude);
    }
  }
}

}  // namespace ttemu
