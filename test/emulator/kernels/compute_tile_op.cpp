// Compute: one tile op, chosen by compile-time arg `op`, on tile x (cb_x) and tile y
// (cb_y), for the API coverage tests. x goes to DST 0 (and y to DST 1) where the op
// works in DST; the result is DST 0, packed to cb_out.
// Compile-time: cb_x, cb_y, cb_out, op (the OP_* values below).
#include "api/compute/compute_kernel_api.h"
#include "api/compute/bcast.h"
#include "api/compute/eltwise_binary.h"

enum : uint32_t {
  OP_SQRT, OP_RSQRT, OP_NEG, OP_ABS, OP_RELU, OP_FILL, OP_ADD_SCALAR, OP_MUL_SCALAR,
  OP_SUB_BINARY, OP_MUL_BINARY, OP_DIV_BINARY, OP_MAX_BINARY, OP_MIN_BINARY,
  OP_REUSE_SUB_SRCA, OP_REUSE_SUB_SRCB, OP_MUL_TILES, OP_ADD_BCAST_ROWS, OP_MUL_BCAST_SCALAR,
  OP_UNARY_BCAST_COLS,
};

void kernel_main() {
  constexpr uint32_t cb_x = get_compile_time_arg_val(0);
  constexpr uint32_t cb_y = get_compile_time_arg_val(1);
  constexpr uint32_t cb_out = get_compile_time_arg_val(2);
  constexpr uint32_t op = get_compile_time_arg_val(3);

  compute_kernel_hw_startup(cb_x, cb_out);
  cb_wait_front(cb_x, 1);
  cb_wait_front(cb_y, 1);
  cb_reserve_back(cb_out, 1);
  tile_regs_acquire();
  if constexpr (op <= OP_REUSE_SUB_SRCB) {
    copy_init(cb_x);
    copy_tile(cb_x, 0, 0);
    copy_tile(cb_y, 0, 1);
  }
  if constexpr (op == OP_SQRT) { sqrt_tile_init(); sqrt_tile(0); }
  if constexpr (op == OP_RSQRT) { rsqrt_tile_init(); rsqrt_tile(0); }
  if constexpr (op == OP_NEG) { negative_tile_init(); negative_tile(0); }
  if constexpr (op == OP_ABS) { abs_tile_init(); abs_tile(0); }
  if constexpr (op == OP_RELU) { relu_tile_init(); relu_tile(0); }
  if constexpr (op == OP_FILL) { fill_tile_init(); fill_tile(0, 2.5f); }
  if constexpr (op == OP_ADD_SCALAR) { binop_with_scalar_tile_init(); add_unary_tile(0, 0x3fc00000u); }  // 1.5
  if constexpr (op == OP_MUL_SCALAR) { binop_with_scalar_tile_init(); mul_unary_tile(0, 0xc0000000u); }  // -2
  if constexpr (op == OP_SUB_BINARY) { sub_binary_tile_init(); sub_binary_tile(0, 1, 0); }
  if constexpr (op == OP_MUL_BINARY) { mul_binary_tile_init(); mul_binary_tile(0, 1, 0); }
  if constexpr (op == OP_DIV_BINARY) { div_binary_tile_init(); div_binary_tile(0, 1, 0); }
  if constexpr (op == OP_MAX_BINARY) { binary_max_tile_init(); binary_max_tile(0, 1, 0); }
  if constexpr (op == OP_MIN_BINARY) { binary_min_tile_init(); binary_min_tile(0, 1, 0); }
  if constexpr (op == OP_REUSE_SUB_SRCA) {
    sub_reuse_dest_init<EltwiseBinaryReuseDestType::DEST_TO_SRCA>(cb_y);
    sub_reuse_dest_tiles<EltwiseBinaryReuseDestType::DEST_TO_SRCA>(cb_y, 0, 0);
  }
  if constexpr (op == OP_REUSE_SUB_SRCB) {
    sub_reuse_dest_init<EltwiseBinaryReuseDestType::DEST_TO_SRCB>(cb_y);
    sub_reuse_dest_tiles<EltwiseBinaryReuseDestType::DEST_TO_SRCB>(cb_y, 0, 0);
  }
  if constexpr (op == OP_MUL_TILES) { mul_init(cb_x, cb_y); mul_tiles(cb_x, cb_y, 0, 0, 0); }
  if constexpr (op == OP_ADD_BCAST_ROWS) { add_bcast_rows_init(cb_x, cb_y); add_tiles_bcast_rows(cb_x, cb_y, 0, 0, 0); }
  if constexpr (op == OP_MUL_BCAST_SCALAR) {
    mul_bcast_scalar_init(cb_x, cb_y);
    mul_tiles_bcast_scalar(cb_x, cb_y, 0, 0, 0);
  }
  if constexpr (op == OP_UNARY_BCAST_COLS) {
    unary_bcast_init<BroadcastType::COL>(cb_y);
    unary_bcast<BroadcastType::COL>(cb_y, 0, 0);
  }
  tile_regs_commit();
  tile_regs_wait();
  pack_tile(0, cb_out);
  tile_regs_release();
  cb_push_back(cb_out, 1);
  cb_pop_front(cb_x, 1);
  cb_pop_front(cb_y, 1);
}
