// tt-metal's umbrella compute header: the DST protocol, pack, and the SFPU ops that
// older tt-metal declared here (abs_tile, max_tile, ...); includes the rest of the API.
#pragma once

#include "api/compute/common.h"
#include "api/compute/reg_api.h"
#include "api/compute/pack.h"
#include "api/compute/tile_move_copy.h"
#include "api/compute/eltwise_unary/eltwise_unary.h"
#include "api/compute/eltwise_unary/exp.h"
#include "api/compute/eltwise_unary/recip.h"
#include "api/compute/eltwise_unary/sqrt.h"
#include "api/compute/eltwise_unary/rsqrt.h"
#include "api/compute/eltwise_unary/negative.h"
#include "api/compute/eltwise_unary/relu.h"
#include "api/compute/eltwise_unary/fill.h"
#include "api/compute/eltwise_unary/binop_with_scalar.h"
#include "api/compute/eltwise_binary_sfpu.h"
#include "api/compute/binary_max_min.h"

ALWI void abs_tile_init() { ttemu::init(ttemu::InitKind::Sfpu); }
ALWI void abs_tile(uint32_t idst) { ttemu::sfpu_unary(ttemu::SfpuUnary::Abs, idst, 0.0f, false); }
// Older tt-metal: DST[idst0] = max(DST[idst0], DST[idst1]).
ALWI void max_tile_init() { ttemu::init(ttemu::InitKind::Sfpu); }
ALWI void max_tile(uint32_t idst0, uint32_t idst1) {
  ttemu::sfpu_binary(ttemu::SfpuBinary::Max, idst0, idst1, idst0);
}
