// negative_tile: DST[idst] = -DST[idst].
#pragma once

#include "api/compute/eltwise_unary/eltwise_unary.h"

ALWI void negative_tile_init() { ttemu::init(ttemu::InitKind::Sfpu); }
ALWI void negative_tile(uint32_t idst) { ttemu::sfpu_unary(ttemu::SfpuUnary::Neg, idst, 0.0f, false); }
