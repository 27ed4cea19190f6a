// Compute: every input tile copied through DST and packed twice, first while a
// reduce_init's packer edge masks are in force, then after reduce_uninit cleared them.
// Output tile 2i is tile i as the masks let it through, tile 2i+1 the whole tile.
// Compile-time: cb_in, cb_scaler (reduce_init's operand; never read), cb_out, dim
// (0 ROW, 1 COL, 2 SCALAR), tile count.
#include "api/compute/pack.h"
#include "api/compute/reduce.h"
#include "api/compute/reg_api.h"
#include "api/compute/tile_move_copy.h"

template <ReduceDim dim>
void copy_packed_twice(uint32_t cb_in, uint32_t cb_scaler, uint32_t cb_out, uint32_t count) {
  for (uint32_t i = 0; i < count; ++i) {
    cb_wait_front(cb_in, 1);
    cb_reserve_back(cb_out, 2);
    reduce_init<PoolType::SUM, dim>(cb_in, cb_scaler, cb_out);
    for (int masked = 1; masked >= 0; --masked) {
      if (!masked) reduce_uninit();
      tile_regs_acquire();
      copy_init(cb_in);
      copy_tile(cb_in, 0, 0);
      tile_regs_commit();
      tile_regs_wait();
      pack_tile(0, cb_out);
      tile_regs_release();
    }
    cb_push_back(cb_out, 2);
    cb_pop_front(cb_in, 1);
  }
}

void kernel_main() {
  constexpr uint32_t cb_in = get_compile_time_arg_val(0);
  constexpr uint32_t cb_scaler = get_compile_time_arg_val(1);
  constexpr uint32_t cb_out = get_compile_time_arg_val(2);
  constexpr uint32_t dim = get_compile_time_arg_val(3);
  constexpr uint32_t count = get_compile_time_arg_val(4);

  compute_kernel_hw_startup(cb_in, cb_out);
  if constexpr (dim == 0) copy_packed_twice<ReduceDim::REDUCE_ROW>(cb_in, cb_scaler, cb_out, count);
  if constexpr (dim == 1) copy_packed_twice<ReduceDim::REDUCE_COL>(cb_in, cb_scaler, cb_out, count);
  if constexpr (dim == 2) copy_packed_twice<ReduceDim::REDUCE_SCALAR>(cb_in, cb_scaler, cb_out, count);
}
