// tt-metal's umbrella compute header: the DST protocol, pack, and the SFPU ops that
// older tt-metal declared here (abs_tile, max_tile, ...); includes the rest of the API.
#pragma once

#include "compute_kernel_api/common.h"
#include "compute_kernel_api/reg_api.h"
#include "compute_kernel_api/pack.h"
#include "compute_kernel_api/tile_move_copy.h"
#include "compute_kernel_api/eltwise_unary/eltwise_unary.h"
#include "compute_kernel_api/eltwise_unary/exp.h"
#include "compute_kernel_api/eltwise_unary/recip.h"
#include "compute_kernel_api/eltwise_unary/sqrt.h"
#include "compute_kernel_api/eltwise_unary/rsqrt.h"
#include "compute_kernel_api/eltwise_unary/negative.h"
#include "compute_kernel_api/eltwise_unary/relu.h"
#include "compute_kernel_api/eltwise_unary/fill.h"
#include "compute_kernel_api/eltwise_unary/binop_with_scalar.h"
#include "compute_kernel_api/eltwise_binary_sfpu.h"
#include "compute_kernel_api/binary_max_min.h"

ALWI void abs_tile_init() { ttemu::init(ttemu::InitKind::Sfpu); }
ALWI void abs_tile(uint32_t idst) { ttemu::sfpu_unary(ttemu::SfpuUnary::Abs, idst, 0.0f, false); }
// Older tt-metal: DST[idst0] = max(DST[idst0], DST[idst1]).
ALWI void max_tile_init() { ttemu::init(ttemu::InitKind::Sfpu); }
ALWI void max_tile(uint32_t idst0, uint32_t idst1) {
  ttemu::sfpu_binary(ttemu::SfpuBinary::Max, idst0, idst1, idst0);
}
