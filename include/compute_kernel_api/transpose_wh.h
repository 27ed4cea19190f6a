// transpose_wh_tile: DST[idst] = transpose of a CB tile (rows <-> columns).
#pragma once

#include "compute_kernel_api/common.h"

ALWI void transpose_wh_init(uint32_t icb, uint32_t ocb) {
  (void)icb, (void)ocb;
  ttemu::init(ttemu::InitKind::Transpose);
}
ALWI void transpose_wh_init_short(uint32_t icb) { (void)icb; ttemu::init(ttemu::InitKind::Transpose); }
ALWI void transpose_wh_tile(uint32_t icb, uint32_t itile, uint32_t idst) { ttemu::transpose_wh_tile(icb, itile, idst); }
