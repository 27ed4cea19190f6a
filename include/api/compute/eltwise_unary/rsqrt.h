// rsqrt_tile: DST[idst] = 1 / sqrt(DST[idst]).
#pragma once

#include "api/compute/eltwise_unary/eltwise_unary.h"

template <bool fast_and_approx = false>
ALWI void rsqrt_tile_init() { ttemu::init(ttemu::InitKind::Sfpu); }
template <bool fast_and_approx = false>
ALWI void rsqrt_tile(uint32_t idst) {
  ttemu::sfpu_unary(ttemu::SfpuUnary::Rsqrt, idst, 0.0f, fast_and_approx);
}
