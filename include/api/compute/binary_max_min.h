// SFPU elementwise max/min of two DST tiles: DST[odst] = max(DST[idst0], DST[idst1]).
#pragma once

#include "api/compute/eltwise_unary/eltwise_unary.h"

ALWI void binary_max_tile_init() { ttemu::init(ttemu::InitKind::Sfpu); }
ALWI void binary_max_tile(uint32_t idst0, uint32_t idst1, uint32_t odst) {
  ttemu::sfpu_binary(ttemu::SfpuBinary::Max, idst0, idst1, odst);
}
ALWI void binary_max_tile(uint32_t idst0, uint32_t idst1) {
  ttemu::sfpu_binary(ttemu::SfpuBinary::Max, idst0, idst1, idst0);
}
ALWI void binary_min_tile_init() { ttemu::init(ttemu::InitKind::Sfpu); }
ALWI void binary_min_tile(uint32_t idst0, uint32_t idst1, uint32_t odst) {
  ttemu::sfpu_binary(ttemu::SfpuBinary::Min, idst0, idst1, odst);
}
ALWI void binary_min_tile(uint32_t idst0, uint32_t idst1) {
  ttemu::sfpu_binary(ttemu::SfpuBinary::Min, idst0, idst1, idst0);
}
