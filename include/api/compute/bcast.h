// Broadcast binary ops. BroadcastType::ROW: B's row 0 is used for every row;
// COL: B's column 0 for every column; SCALAR: B[0][0] everywhere.
#pragma once

#include "api/compute/eltwise_binary.h"

template <EltwiseBinaryType tBcastOp, BroadcastType tBcastDim>
ALWI void bcast_init(uint32_t icb0, uint32_t icb1) {
  (void)icb0, (void)icb1;
  ttemu::init(ttemu::InitKind::Bcast);
}

template <EltwiseBinaryType tBcastOp, BroadcastType tBcastDim>
ALWI void any_tiles_bcast(uint32_t icb0, uint32_t icb1, uint32_t itile0, uint32_t itile1, uint32_t idst) {
  ttemu::binary_tiles(ttemu_detail::binary_op_of(tBcastOp), ttemu_detail::broadcast_of(tBcastDim), icb0,
                      icb1, itile0, itile1, idst, false);
}

template <BroadcastType tBcastDim>
ALWI void add_tiles_bcast(uint32_t icb0, uint32_t icb1, uint32_t itile0, uint32_t itile1, uint32_t idst) {
  any_tiles_bcast<ELWADD, tBcastDim>(icb0, icb1, itile0, itile1, idst);
}
template <BroadcastType tBcastDim>
ALWI void sub_tiles_bcast(uint32_t icb0, uint32_t icb1, uint32_t itile0, uint32_t itile1, uint32_t idst) {
  any_tiles_bcast<ELWSUB, tBcastDim>(icb0, icb1, itile0, itile1, idst);
}
template <BroadcastType tBcastDim>
ALWI void mul_tiles_bcast(uint32_t icb0, uint32_t icb1, uint32_t itile0, uint32_t itile1, uint32_t idst) {
  any_tiles_bcast<ELWMUL, tBcastDim>(icb0, icb1, itile0, itile1, idst);
}

// add/sub/mul x rows/cols/scalar: <op>_tiles_bcast_<dim> and <op>_bcast_<dim>_init_short.
#define TTEMU_BCAST_FORMS(op, OP, dim, DIM)                                                       \
  ALWI void op##_bcast_##dim##_init(uint32_t icb0, uint32_t icb1) {                               \
    bcast_init<OP, BroadcastType::DIM>(icb0, icb1);                                               \
  }                                                                                               \
  ALWI void op##_tiles_bcast_##dim(uint32_t icb0, uint32_t icb1, uint32_t itile0, uint32_t itile1, \
                                   uint32_t idst) {                                               \
    any_tiles_bcast<OP, BroadcastType::DIM>(icb0, icb1, itile0, itile1, idst);                    \
  }
TTEMU_BCAST_FORMS(add, ELWADD, rows, ROW)
TTEMU_BCAST_FORMS(add, ELWADD, cols, COL)
TTEMU_BCAST_FORMS(add, ELWADD, scalar, SCALAR)
TTEMU_BCAST_FORMS(sub, ELWSUB, rows, ROW)
TTEMU_BCAST_FORMS(sub, ELWSUB, cols, COL)
TTEMU_BCAST_FORMS(sub, ELWSUB, scalar, SCALAR)
TTEMU_BCAST_FORMS(mul, ELWMUL, rows, ROW)
TTEMU_BCAST_FORMS(mul, ELWMUL, cols, COL)
TTEMU_BCAST_FORMS(mul, ELWMUL, scalar, SCALAR)
#undef TTEMU_BCAST_FORMS

template <BroadcastType bcast_type>
ALWI void unary_bcast_init(uint32_t icb) {
  (void)icb;
  ttemu::init(ttemu::InitKind::Bcast);
}
template <BroadcastType bcast_type>
ALWI void unary_bcast(uint32_t icb, uint32_t in_tile_index, uint32_t dst_tile_index) {
  ttemu::unary_bcast(ttemu_detail::broadcast_of(bcast_type), icb, in_tile_index, dst_tile_index);
}
