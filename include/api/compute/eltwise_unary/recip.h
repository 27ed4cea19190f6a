// recip_tile: DST[idst] = 1 / DST[idst].
#pragma once

#include "api/compute/eltwise_unary/eltwise_unary.h"

template <bool legacy_compat = true>
ALWI void recip_tile_init() { ttemu::init(ttemu::InitKind::Sfpu); }
template <bool legacy_compat = true>
ALWI void recip_tile(uint32_t idst, int vector_mode = (int)VectorMode::RC) {
  (void)vector_mode;
  ttemu::sfpu_unary(ttemu::SfpuUnary::Recip, idst, 0.0f, false);
}
