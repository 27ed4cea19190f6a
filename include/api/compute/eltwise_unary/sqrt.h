// sqrt_tile: DST[idst] = sqrt(DST[idst]).
#pragma once

#include "api/compute/eltwise_unary/eltwise_unary.h"

ALWI void sqrt_tile_init() { ttemu::init(ttemu::InitKind::Sfpu); }
ALWI void sqrt_tile(uint32_t idst) { ttemu::sfpu_unary(ttemu::SfpuUnary::Sqrt, idst, 0.0f, false); }
