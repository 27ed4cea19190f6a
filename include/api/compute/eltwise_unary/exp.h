// exp_tile: DST[idst] = exp(DST[idst]); exact unless approx (kernels pass APPROX, the
// program's math_approx_mode, as on tt-metal, whose default is exact too).
#pragma once

#include "api/compute/eltwise_unary/eltwise_unary.h"

template <bool approx = false, bool fast_and_approx = true, uint32_t scale = 0x3F800000>
ALWI void exp_tile_init() {
  ttemu::init(ttemu::InitKind::Sfpu);
}
template <bool approx = false, bool fast_and_approx = true>
ALWI void exp_tile(uint32_t idst, int vector_mode = (int)VectorMode::RC) {
  (void)vector_mode;
  ttemu::sfpu_unary(ttemu::SfpuUnary::Exp, idst, 0.0f, approx);
}
