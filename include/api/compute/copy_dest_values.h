// copy_dest_values<DataFormat>(idst_in, idst_out): DST[idst_out] = DST[idst_in], a tile
// copy inside DST on the SFPU (source first, as in tt-metal 0.81.1's
// api/compute/copy_dest_values.h; the format is DST's). Values move unchanged: NaN
// payloads, -0 and infinities included.
#pragma once

#include "api/compute/eltwise_unary/eltwise_unary.h"

ALWI void copy_dest_values_init() { ttemu::init(ttemu::InitKind::Sfpu); }

template <DataFormat data_format>
ALWI void copy_dest_values(uint32_t idst_in, uint32_t idst_out) {
  static_assert(data_format == DataFormat::Float16_b || data_format == DataFormat::Float32,
                "copy_dest_values: the emulator's DST holds DataFormat::Float16_b or DataFormat::Float32");
  ttemu::copy_dest_values(idst_out, idst_in);
}
