// matmul_tiles: DST[idst] += A(in0 tile) @ B(in1 tile), B transposed when asked.
#pragma once

#include "compute_kernel_api/common.h"

ALWI void mm_init(uint32_t in0_cb_id, uint32_t in1_cb_id, uint32_t out_cb_id, const uint32_t transpose = 0) {
  (void)in0_cb_id, (void)in1_cb_id, (void)out_cb_id, (void)transpose;
  ttemu::init(ttemu::InitKind::Matmul);
}
ALWI void mm_init_short(uint32_t in0_cb_id, uint32_t in1_cb_id, const uint32_t transpose = 0) {
  (void)in0_cb_id, (void)in1_cb_id, (void)transpose;
  ttemu::init(ttemu::InitKind::Matmul);
}
ALWI void mm_init_short_with_dt(uint32_t in0_cb_id, uint32_t in1_cb_id, uint32_t c_in_old_srca,
                                const uint32_t transpose = 0) {
  (void)c_in_old_srca;
  mm_init_short(in0_cb_id, in1_cb_id, transpose);
}
ALWI void matmul_tiles(uint32_t in0_cb_id, uint32_t in1_cb_id, uint32_t in0_tile_index,
                       uint32_t in1_tile_index, uint32_t idst, const uint32_t transpose = 0) {
  ttemu::matmul_tiles(in0_cb_id, in1_cb_id, in0_tile_index, in1_tile_index, idst, transpose != 0);
}
