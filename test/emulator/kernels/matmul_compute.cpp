// Matmul compute (tt-metal's large-block scheme): the core's Mt x Nt output is computed
// in out blocks of OBH x OBW tiles (row-major; each a full pass over K: tt-metal's
// num_out_blocks_h/w), each in subblocks of SBH x SBW tiles that fit DST; partial sums
// of every subblock go to an intermediate CB after each K block and are reloaded for the
// next one; the last K block packs to the output CB (subblock by subblock, tiles
// row-major within one).
// With L1_ACC (tt-metal's packer_l1_acc) the packer adds each K block's sums to the
// subblock's partial-sum pages instead (the pages are popped and reserved again: the
// CB holds the whole out block, so they come back at the same place), and only the last
// K block reloads them, to pack the result to the output CB.
// Compile-time: cb_in0, cb_in1, cb_out, cb_partial, Mt, Nt, Kt, Kb, SBH, SBW, L1_ACC,
// OBH, OBW.
#include "api/compute/matmul.h"
#include "api/compute/pack.h"
#include "api/compute/reg_api.h"
#include "api/compute/tile_move_copy.h"

void kernel_main() {
  constexpr uint32_t cb_in0 = get_compile_time_arg_val(0);
  constexpr uint32_t cb_in1 = get_compile_time_arg_val(1);
  constexpr uint32_t cb_out = get_compile_time_arg_val(2);
  constexpr uint32_t cb_partial = get_compile_time_arg_val(3);
  constexpr uint32_t Mt = get_compile_time_arg_val(4);
  constexpr uint32_t Nt = get_compile_time_arg_val(5);
  constexpr uint32_t Kt = get_compile_time_arg_val(6);
  constexpr uint32_t Kb = get_compile_time_arg_val(7);
  constexpr uint32_t SBH = get_compile_time_arg_val(8);
  constexpr uint32_t SBW = get_compile_time_arg_val(9);
  constexpr bool l1_acc = get_compile_time_arg_val(10) == 1;
  constexpr uint32_t OBH = get_compile_time_arg_val(11);
  constexpr uint32_t OBW = get_compile_time_arg_val(12);
  constexpr uint32_t subblock_tiles = SBH * SBW;
  constexpr uint32_t num_blocks = Kt / Kb;

  compute_kernel_hw_startup(cb_in0, cb_in1, cb_out);
  matmul_init(cb_in0, cb_in1);
  for (uint32_t out_block = 0; out_block < (Mt / OBH) * (Nt / OBW); ++out_block) {
    for (uint32_t block = 0; block < num_blocks; ++block) {
      const bool last = block == num_blocks - 1;
      const bool accumulate = l1_acc && block > 0 && !last;
      if (l1_acc && (block == 1 || last)) pack_reconfig_l1_acc(accumulate);
      cb_wait_front(cb_in0, OBH * Kb);
      cb_wait_front(cb_in1, Kb * OBW);
      for (uint32_t sb_row = 0; sb_row < OBH / SBH; ++sb_row) {
        for (uint32_t sb_col = 0; sb_col < OBW / SBW; ++sb_col) {
          tile_regs_acquire();
          if (block > 0 && !accumulate) {
            copy_init(cb_partial);
            cb_wait_front(cb_partial, subblock_tiles);
            for (uint32_t i = 0; i < subblock_tiles; ++i) copy_tile(cb_partial, i, i);
            cb_pop_front(cb_partial, subblock_tiles);
            matmul_init(cb_in0, cb_in1);
          }
          for (uint32_t h = 0; h < SBH; ++h)
            for (uint32_t w = 0; w < SBW; ++w)
              for (uint32_t k = 0; k < Kb; ++k)
                matmul_tiles(cb_in0, cb_in1, (sb_row * SBH + h) * Kb + k, k * OBW + sb_col * SBW + w, h * SBW + w);
          tile_regs_commit();
          const uint32_t cb_target = last ? cb_out : cb_partial;
          if (accumulate) {  // the packer adds onto the previous block's pages of this subblock
            cb_wait_front(cb_partial, subblock_tiles);
            cb_pop_front(cb_partial, subblock_tiles);
          }
          cb_reserve_back(cb_target, subblock_tiles);
          tile_regs_wait();
          for (uint32_t i = 0; i < subblock_tiles; ++i) pack_tile(i, cb_target);
          tile_regs_release();
          cb_push_back(cb_target, subblock_tiles);
        }
      }
      cb_pop_front(cb_in0, OBH * Kb);
      cb_pop_front(cb_in1, Kb * OBW);
    }
  }
}
