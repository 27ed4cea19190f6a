// tt-metal's matmul: matmul_init(in0, in1, transpose) configures unpacker and math, and
// its `transpose` (transpose each B tile as it is unpacked) holds for every matmul_tiles
// until the next init; matmul_tiles accumulates A[in0_tile] @ B[in1_tile] into DST.
#pragma once

#include "api/compute/common.h"

ALWI void matmul_init(uint32_t in0_cb_id, uint32_t in1_cb_id, const uint32_t transpose = 0) {
  (void)in0_cb_id, (void)in1_cb_id;
  ttemu::init(ttemu::InitKind::Matmul);
  ttemu::set_matmul_transpose(transpose != 0);
}
ALWI void matmul_tiles(uint32_t in0_cb_id, uint32_t in1_cb_id, uint32_t in0_tile_index,
                       uint32_t in1_tile_index, uint32_t idst) {
  ttemu::matmul_tiles(in0_cb_id, in1_cb_id, in0_tile_index, in1_tile_index, idst,
                      ttemu::matmul_transpose());
}
