// Compute: each input tile transposed (rows <-> columns).
// Compile-time: cb_in, cb_out, tile count.
#include "api/compute/pack.h"
#include "api/compute/reg_api.h"
#include "api/compute/transpose.h"

void kernel_main() {
  constexpr uint32_t cb_in = get_compile_time_arg_val(0);
  constexpr uint32_t cb_out = get_compile_time_arg_val(1);
  constexpr uint32_t count = get_compile_time_arg_val(2);

  compute_kernel_hw_startup(cb_in, cb_out);
  transpose_init(cb_in);
  for (uint32_t i = 0; i < count; ++i) {
    cb_wait_front(cb_in, 1);
    cb_reserve_back(cb_out, 1);
    tile_regs_acquire();
    transpose_tile(cb_in, 0, 0);
    tile_regs_commit();
    tile_regs_wait();
    pack_tile(0, cb_out);
    tile_regs_release();
    cb_push_back(cb_out, 1);
    cb_pop_front(cb_in, 1);
  }
}
