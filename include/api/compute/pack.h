// pack_tile: DST tile -> CB page, rounded to the CB's data format.
#pragma once

#include "api/compute/common.h"

// With out_of_order_output=false the tile goes to the next sequential page after the
// CB's write pointer (the index is ignored, as in tt-metal); with true, to page
// output_tile_index.
// Packer L1 accumulation: while enabled, pack_tile adds to the page's values.
ALWI void pack_reconfig_l1_acc(const std::uint32_t l1_acc_en) { ttemu::pack_l1_acc(l1_acc_en != 0); }

template <bool out_of_order_output = false>
ALWI void pack_tile(uint32_t ifrom_dst, uint32_t icb, std::uint32_t output_tile_index = 0) {
  ttemu::pack_tile(ifrom_dst, icb, output_tile_index, out_of_order_output);
}
