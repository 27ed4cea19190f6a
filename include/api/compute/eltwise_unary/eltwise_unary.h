// Setup for SFPU (unary) work on DST tiles.
#pragma once

#include "api/compute/common.h"

// tt-metal's APPROX follows ComputeConfig.math_approx_mode; the emulator's launcher
// passes it as TTEMU_MATH_APPROX_MODE when it compiles a compute kernel.
#ifndef TTEMU_MATH_APPROX_MODE
#define TTEMU_MATH_APPROX_MODE 0
#endif
constexpr bool APPROX = TTEMU_MATH_APPROX_MODE != 0;

namespace ckernel {
enum class VectorMode : int { None = 0, R = 1, C = 2, RC = 4 };
}  // namespace ckernel

namespace ttemu_detail {
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
}  // namespace ttemu_detail
