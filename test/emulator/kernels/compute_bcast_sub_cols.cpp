// Compute: out = a - b with b's column 0 broadcast across columns (b: one tile per tile row).
// Compile-time: cb_a, cb_b, cb_out, Ht, Wt.
#include "api/compute/bcast.h"
#include "api/compute/pack.h"
#include "api/compute/reg_api.h"

void kernel_main() {
  constexpr uint32_t cb_a = get_compile_time_arg_val(0);
  constexpr uint32_t cb_b = get_compile_time_arg_val(1);
  constexpr uint32_t cb_out = get_compile_time_arg_val(2);
  constexpr uint32_t Ht = get_compile_time_arg_val(3);
  constexpr uint32_t Wt = get_compile_time_arg_val(4);

  compute_kernel_hw_startup(cb_a, cb_b, cb_out);
  bcast_init<ELWSUB, BroadcastType::COL>(cb_a, cb_b);
  for (uint32_t row = 0; row < Ht; ++row) {
    cb_wait_front(cb_b, 1);
    for (uint32_t col = 0; col < Wt; ++col) {
      cb_wait_front(cb_a, 1);
      cb_reserve_back(cb_out, 1);
      tile_regs_acquire();
      sub_tiles_bcast_cols(cb_a, cb_b, 0, 0, 0);
      tile_regs_commit();
      tile_regs_wait();
      pack_tile(0, cb_out);
      tile_regs_release();
      cb_push_back(cb_out, 1);
      cb_pop_front(cb_a, 1);
    }
    cb_pop_front(cb_b, 1);
  }
}
