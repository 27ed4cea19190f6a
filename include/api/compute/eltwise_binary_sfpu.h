// SFPU binary ops on two DST tiles: DST[odst] = DST[idst0] op DST[idst1]
// (the two-argument forms write into idst0, as older tt-metal does).
#pragma once

#include "api/compute/eltwise_unary/eltwise_unary.h"

#define TTEMU_SFPU_BINARY(name, op)                                                     \
  ALWI void name##_binary_tile_init() { ttemu::init(ttemu::InitKind::Sfpu); }           \
  ALWI void name##_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst) {         \
    ttemu::sfpu_binary(op, idst0, idst1, odst);                                         \
  }                                                                                     \
  ALWI void name##_binary_tile(uint32_t idst0, uint32_t idst1) {                        \
    ttemu::sfpu_binary(op, idst0, idst1, idst0);                                        \
  }
TTEMU_SFPU_BINARY(add, ttemu::SfpuBinary::Add)
TTEMU_SFPU_BINARY(sub, ttemu::SfpuBinary::Sub)
TTEMU_SFPU_BINARY(mul, ttemu::SfpuBinary::Mul)
TTEMU_SFPU_BINARY(div, ttemu::SfpuBinary::Div)
#undef TTEMU_SFPU_BINARY
