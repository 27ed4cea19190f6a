// Compute: an SFPU op on every tile in DST: op 0 exp, 1 recip, 2 exp then recip, 3 none,
// 4 exp without a template argument (tt-metal's default: exact whatever APPROX is)
// (the tile unpacked and packed again: only the formats' conversions happen to it).
// Compile-time: cb_in, cb_out, tile count, op.
#include "api/compute/eltwise_unary/eltwise_unary.h"
#include "api/compute/eltwise_unary/exp.h"
#include "api/compute/eltwise_unary/recip.h"
#include "api/compute/pack.h"
#include "api/compute/reg_api.h"
#include "api/compute/tile_move_copy.h"

void kernel_main() {
  constexpr uint32_t cb_in = get_compile_time_arg_val(0);
  constexpr uint32_t cb_out = get_compile_time_arg_val(1);
  constexpr uint32_t count = get_compile_time_arg_val(2);
  constexpr uint32_t op = get_compile_time_arg_val(3);

  compute_kernel_hw_startup(cb_in, cb_out);
  for (uint32_t i = 0; i < count; ++i) {
    cb_wait_front(cb_in, 1);
    cb_reserve_back(cb_out, 1);
    tile_regs_acquire();
    copy_init(cb_in);
    copy_tile(cb_in, 0, 0);
    if constexpr (op == 0 || op == 2) {
      exp_tile_init<APPROX>();
      exp_tile<APPROX>(0);
    }
    if constexpr (op == 4) {
      exp_tile_init();
      exp_tile(0);
    }
    if constexpr (op == 1 || op == 2) {
      recip_tile_init();
      recip_tile(0);
    }
    tile_regs_commit();
    tile_regs_wait();
    pack_tile(0, cb_out);
    tile_regs_release();
    cb_push_back(cb_out, 1);
    cb_pop_front(cb_in, 1);
  }
}
