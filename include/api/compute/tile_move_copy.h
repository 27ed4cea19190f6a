// copy_tile: CB page -> DST tile.
#pragma once

#include "api/compute/common.h"

ALWI void copy_init(uint32_t cbid) { (void)cbid; ttemu::init(ttemu::InitKind::Copy); }
ALWI void copy_tile(uint32_t in_cb_id, uint32_t in_tile_index, uint32_t dst_tile_index) {
  ttemu::copy_tile(in_cb_id, in_tile_index, dst_tile_index);
}
