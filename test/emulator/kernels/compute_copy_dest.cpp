// Compute: copy_dest_values on tile pairs. x goes to DST slot `to`, y to slot `from`;
// copy_dest_values<Float16_b>(from, to) makes DST[to] = y; slot `packed` goes to cb_out (`to`: the
// copy, y; `from`: the source, still y; a swapped copy would leave x in `to` and in `from`).
// Runtime args: tile count. Compile-time: cb_x, cb_y, cb_out, to, from, packed,
// misuse (1: the copy comes before tile_regs_acquire; 2: it copies to slot `other`
// instead of `to`; 3: from slot `other` instead of `from`), other.
#include "api/compute/copy_dest_values.h"
#include "api/compute/eltwise_unary/eltwise_unary.h"
#include "api/compute/pack.h"
#include "api/compute/reg_api.h"
#include "api/compute/tile_move_copy.h"

void kernel_main() {
  const uint32_t count = get_arg_val<uint32_t>(0);
  constexpr uint32_t cb_x = get_compile_time_arg_val(0);
  constexpr uint32_t cb_y = get_compile_time_arg_val(1);
  constexpr uint32_t cb_out = get_compile_time_arg_val(2);
  constexpr uint32_t to = get_compile_time_arg_val(3);
  constexpr uint32_t from = get_compile_time_arg_val(4);
  constexpr uint32_t packed = get_compile_time_arg_val(5);
  constexpr uint32_t misuse = get_compile_time_arg_val(6);
  constexpr uint32_t other = get_compile_time_arg_val(7);
  constexpr uint32_t copy_to = misuse == 2 ? other : to;
  constexpr uint32_t copy_from = misuse == 3 ? other : from;

  compute_kernel_hw_startup(cb_x, cb_out);
  for (uint32_t i = 0; i < count; ++i) {
    cb_wait_front(cb_x, 1);
    cb_wait_front(cb_y, 1);
    cb_reserve_back(cb_out, 1);
    if constexpr (misuse == 1) copy_dest_values<DataFormat::Float16_b>(from, to);
    tile_regs_acquire();
    copy_init(cb_x);
    copy_tile(cb_x, 0, to);
    copy_tile(cb_y, 0, from);
    copy_dest_values_init();
    copy_dest_values<DataFormat::Float16_b>(copy_from, copy_to);
    tile_regs_commit();
    tile_regs_wait();
    pack_tile(packed, cb_out);
    tile_regs_release();
    cb_push_back(cb_out, 1);
    cb_pop_front(cb_x, 1);
    cb_pop_front(cb_y, 1);
  }
}
