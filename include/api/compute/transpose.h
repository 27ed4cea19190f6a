// transpose_tile: DST[idst] = transpose of a CB tile (rows <-> columns), after
// transpose_init.
#pragma once

#include "api/compute/common.h"

ALWI void transpose_init(uint32_t icb) { (void)icb; ttemu::init(ttemu::InitKind::Transpose); }
ALWI void transpose_tile(uint32_t icb, uint32_t itile, uint32_t idst) { ttemu::transpose_wh_tile(icb, itile, idst); }
