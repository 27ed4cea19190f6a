// where_tile: DST[odst] = DST[idst0] != 0 ? DST[idst1] : DST[idst2], elementwise
// (condition, true value, false value, output; odst may be any of the three).
// `data_format` is the format the SFPU reads DST in: DataFormat::Float16_b for a
// 16-bit DST, DataFormat::Float32 with fp32_dest_acc_en (the emulator checks the
// match). tt-metal also takes Int32/UInt32, which the emulator has no DST for.
#pragma once

#include "api/compute/eltwise_unary/eltwise_unary.h"

ALWI void where_tile_init() { ttemu::init(ttemu::InitKind::Sfpu); }

template <DataFormat data_format>
ALWI void where_tile(uint32_t idst0, uint32_t idst1, uint32_t idst2, uint32_t odst) {
  static_assert(data_format == DataFormat::Float16_b || data_format == DataFormat::Float32,
                "where_tile: the emulator supports DataFormat::Float16_b and DataFormat::Float32");
  ttemu::sfpu_where(idst0, idst1, idst2, odst, data_format);
}
