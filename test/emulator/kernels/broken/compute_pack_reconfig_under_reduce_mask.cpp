// BROKEN (packer state): reconfigures the packer while reduce_init's edge masks are on
// (tt-llk asserts this never happens: reduce_uninit must come first).
#include "api/compute/pack.h"
#include "api/compute/reconfig_data_format.h"
#include "api/compute/reduce.h"

void kernel_main() {
  constexpr uint32_t cb_a = get_compile_time_arg_val(0);
  constexpr uint32_t cb_b = get_compile_time_arg_val(1);
  constexpr uint32_t cb_out = get_compile_time_arg_val(2);
  compute_kernel_hw_startup(cb_a, cb_b, cb_out);
  reduce_init<PoolType::SUM, ReduceDim::REDUCE_ROW>(cb_a, cb_b, cb_out);
  pack_reconfig_data_format(cb_out);
}
