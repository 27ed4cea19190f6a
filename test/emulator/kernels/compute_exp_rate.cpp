// Cost probe: `count` exp_tile calls on one DST tile (the fast approximate exp when the
// program sets math_approx_mode), between one copy_tile in and one pack_tile out; the
// difference of two counts is the modeled cost of exp_tile.
// Compile-time: cb_in, cb_out. Runtime: count.
#include "api/compute/eltwise_unary/eltwise_unary.h"
#include "api/compute/eltwise_unary/exp.h"
#include "api/compute/pack.h"
#include "api/compute/reg_api.h"
#include "api/compute/tile_move_copy.h"

void kernel_main() {
  constexpr uint32_t cb_in = get_compile_time_arg_val(0);
  constexpr uint32_t cb_out = get_compile_time_arg_val(1);
  const uint32_t count = get_arg_val<uint32_t>(0);
  compute_kernel_hw_startup(cb_in, cb_out);
  cb_wait_front(cb_in, 1);
  cb_reserve_back(cb_out, 1);
  tile_regs_acquire();
  copy_init(cb_in);
  copy_tile(cb_in, 0, 0);
  exp_tile_init<APPROX>();
  for (uint32_t i = 0; i < count; ++i) exp_tile<APPROX>(0);
  tile_regs_commit();
  tile_regs_wait();
  pack_tile(0, cb_out);
  tile_regs_release();
  cb_push_back(cb_out, 1);
  cb_pop_front(cb_in, 1);
}
