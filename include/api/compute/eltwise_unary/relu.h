// relu_tile: DST[idst] = max(DST[idst], 0).
#pragma once

#include "api/compute/eltwise_unary/eltwise_unary.h"

ALWI void relu_tile_init() { ttemu::init(ttemu::InitKind::Sfpu); }
ALWI void relu_tile(uint32_t idst) { ttemu::sfpu_unary(ttemu::SfpuUnary::Relu, idst, 0.0f, false); }
