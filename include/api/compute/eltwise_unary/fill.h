// fill_tile: every element of DST[idst] = value (rounded to DST's format).
#pragma once

#include "api/compute/eltwise_unary/eltwise_unary.h"

ALWI void fill_tile_init() { ttemu::init(ttemu::InitKind::Sfpu); }
ALWI void fill_tile(uint32_t idst, float param0) { ttemu::fill_tile(idst, param0); }
ALWI void fill_tile_bitcast(uint32_t idst, uint32_t param0) {
  ttemu::fill_tile(idst, ttemu_detail::bits_float(param0));
}
