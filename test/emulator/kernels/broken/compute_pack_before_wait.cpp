// BROKEN (DST protocol): packs after tile_regs_commit without tile_regs_wait.
#include "compute_kernel_api/eltwise_binary.h"
#include "compute_kernel_api/pack.h"
#include "compute_kernel_api/reg_api.h"

namespace NAMESPACE {
void MAIN {
  constexpr uint32_t cb_a = get_compile_time_arg_val(0);
  constexpr uint32_t cb_b = get_compile_time_arg_val(1);
  constexpr uint32_t cb_out = get_compile_time_arg_val(2);
  binary_op_init_common(cb_a, cb_b, cb_out);
  add_tiles_init(cb_a, cb_b);
  cb_wait_front(cb_a, 1);
  cb_wait_front(cb_b, 1);
  cb_reserve_back(cb_out, 1);
  tile_regs_acquire();
  add_tiles(cb_a, cb_b, 0, 0, 0);
  tile_regs_commit();
  pack_tile(0, cb_out);
}
}  // namespace NAMESPACE
