// Compute: reduce (a * scaler) over groups of `inner` tiles into one output tile each,
// accumulating the group in DST tile 0 (ROW: one group per tile row, COL: per tile column).
// Compile-time: cb_in, cb_scaler, cb_out, pool (0 SUM, 2 MAX), dim (0 ROW, 1 COL), groups, inner.
#include "api/compute/pack.h"
#include "api/compute/reduce.h"
#include "api/compute/reg_api.h"

void kernel_main() {
  constexpr uint32_t cb_in = get_compile_time_arg_val(0);
  constexpr uint32_t cb_scaler = get_compile_time_arg_val(1);
  constexpr uint32_t cb_out = get_compile_time_arg_val(2);
  constexpr PoolType pool = static_cast<PoolType>(get_compile_time_arg_val(3));
  constexpr ReduceDim dim = static_cast<ReduceDim>(get_compile_time_arg_val(4));
  constexpr uint32_t groups = get_compile_time_arg_val(5);
  constexpr uint32_t inner = get_compile_time_arg_val(6);

  reduce_init<pool, dim>(cb_in, cb_scaler, cb_out);
  cb_wait_front(cb_scaler, 1);
  for (uint32_t group = 0; group < groups; ++group) {
    tile_regs_acquire();
    for (uint32_t i = 0; i < inner; ++i) {
      cb_wait_front(cb_in, 1);
      reduce_tile<pool, dim>(cb_in, cb_scaler, 0, 0, 0);
      cb_pop_front(cb_in, 1);
    }
    tile_regs_commit();
    cb_reserve_back(cb_out, 1);
    tile_regs_wait();
    pack_tile(0, cb_out);
    tile_regs_release();
    cb_push_back(cb_out, 1);
  }
  reduce_uninit();
}
