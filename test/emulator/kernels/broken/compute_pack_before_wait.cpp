// BROKEN (DST protocol): packs after tile_regs_commit without tile_regs_wait.
#include "api/compute/eltwise_binary.h"
#include "api/compute/pack.h"
#include "api/compute/reg_api.h"

void kernel_main() {
  constexpr uint32_t cb_a = get_compile_time_arg_val(0);
  constexpr uint32_t cb_b = get_compile_time_arg_val(1);
  constexpr uint32_t cb_out = get_compile_time_arg_val(2);
  compute_kernel_hw_startup(cb_a, cb_b, cb_out);
  add_init(cb_a, cb_b);
  cb_wait_front(cb_a, 1);
  cb_wait_front(cb_b, 1);
  cb_reserve_back(cb_out, 1);
  tile_regs_acquire();
  add_tiles(cb_a, cb_b, 0, 0, 0);
  tile_regs_commit();
  pack_tile(0, cb_out);
}
