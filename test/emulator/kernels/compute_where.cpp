// Compute: out = where(cond, if_true, if_false), tile by tile, through where_tile.
// The three inputs are copied to DST slots c, t, f; where_tile writes slot o (which may
// be one of them), packed to cb_out.
// Runtime args: tile count. Compile-time: cb_cond, cb_true, cb_false, cb_out,
// fp32 (1: where_tile<DataFormat::Float32>, 0: <DataFormat::Float16_b>), c, t, f, o.
#include "api/compute/eltwise_unary/eltwise_unary.h"
#include "api/compute/eltwise_unary/where.h"
#include "api/compute/pack.h"
#include "api/compute/reg_api.h"
#include "api/compute/tile_move_copy.h"

void kernel_main() {
  const uint32_t count = get_arg_val<uint32_t>(0);
  constexpr uint32_t cb_cond = get_compile_time_arg_val(0);
  constexpr uint32_t cb_true = get_compile_time_arg_val(1);
  constexpr uint32_t cb_false = get_compile_time_arg_val(2);
  constexpr uint32_t cb_out = get_compile_time_arg_val(3);
  constexpr bool fp32 = get_compile_time_arg_val(4) != 0;
  constexpr uint32_t c = get_compile_time_arg_val(5);
  constexpr uint32_t t = get_compile_time_arg_val(6);
  constexpr uint32_t f = get_compile_time_arg_val(7);
  constexpr uint32_t o = get_compile_time_arg_val(8);
  constexpr DataFormat format = fp32 ? DataFormat::Float32 : DataFormat::Float16_b;

  compute_kernel_hw_startup(cb_cond, cb_out);
  for (uint32_t i = 0; i < count; ++i) {
    cb_wait_front(cb_cond, 1);
    cb_wait_front(cb_true, 1);
    cb_wait_front(cb_false, 1);
    cb_reserve_back(cb_out, 1);
    tile_regs_acquire();
    copy_init(cb_cond);
    copy_tile(cb_cond, 0, c);
    copy_tile(cb_true, 0, t);
    copy_tile(cb_false, 0, f);
    where_tile_init();
    where_tile<format>(c, t, f, o);
    tile_regs_commit();
    tile_regs_wait();
    pack_tile(o, cb_out);
    tile_regs_release();
    cb_push_back(cb_out, 1);
    cb_pop_front(cb_cond, 1);
    cb_pop_front(cb_true, 1);
    cb_pop_front(cb_false, 1);
  }
}
