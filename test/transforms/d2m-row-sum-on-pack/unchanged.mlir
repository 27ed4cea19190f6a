// RUN: %ttlang-opt %s --split-input-file -p d2m-row-sum-on-pack | FileCheck %s

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x3x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x3x!tile, #ttcore.memory_space<l1>>
!col = memref<2x1x!tile, #ttcore.memory_space<l1>>

// Left alone: The tiles come from a CB the reader fills: no generic computes them in DST (the FPU adds them).
// CHECK-LABEL: func.func @from_a_cb
// CHECK:       d2m.tile_accumulate
// CHECK-NOT:   d2m.summed_outputs
// CHECK-NOT:   d2m.pack_l1_acc
func.func @from_a_cb(%xd: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%xd : !dram) outs(%out : !dram) {
  ^bb0(%x_cb: !d2m.cb<!blk>, %o_cb: !d2m.cb<!blk>):
    %l_cb = d2m.local_cb : !d2m.cb<!col>
    %p_cb = d2m.local_cb : !d2m.cb<!blk, 1>
    %l = d2m.wait %l_cb : !d2m.cb<!col> -> !col
    %l_next = d2m.reserve %l_cb : !d2m.cb<!col> -> !col
    %p = d2m.wait %x_cb : !d2m.cb<!blk> -> !blk
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%p, %l : !blk, !col) outs(%l_next : !col) {
    ^bb0(%pt: !tile, %lt: !tile, %out_t: !tile):
      %c = d2m.tile_copy %lt {d2m.prologue} : !tile
      %r = d2m.tile_accumulate %pt, %c : !tile
      linalg.yield %r : !tile
    }
    d2m.pop %x_cb : !d2m.cb<!blk>
    d2m.push %l_cb : !d2m.cb<!col>
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x3x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x3x!tile, #ttcore.memory_space<l1>>
!col = memref<2x1x!tile, #ttcore.memory_space<l1>>

// Left alone: The sum's block is reserved after the generic computing the tiles, and an
// op between them uses the sum's CB (here a wait on its front): the reserve cannot move up.
// CHECK-LABEL: func.func @reserved_after
// CHECK:       d2m.tile_accumulate
// CHECK-NOT:   d2m.summed_outputs
// CHECK-NOT:   d2m.pack_l1_acc
func.func @reserved_after(%xd: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%xd : !dram) outs(%out : !dram) {
  ^bb0(%x_cb: !d2m.cb<!blk>, %o_cb: !d2m.cb<!blk>):
    %l_cb = d2m.local_cb : !d2m.cb<!col>
    %p_cb = d2m.local_cb : !d2m.cb<!blk, 1>
    %l = d2m.wait %l_cb : !d2m.cb<!col> -> !col
    %x = d2m.wait %x_cb : !d2m.cb<!blk> -> !blk
    %pb = d2m.reserve %p_cb : !d2m.cb<!blk, 1> -> !blk
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : !blk) outs(%pb : !blk) {
    ^bb0(%xt: !tile, %o: !tile):
      %e = d2m.tile_exp %xt : !tile
      linalg.yield %e : !tile
    }
    d2m.push %p_cb : !d2m.cb<!blk, 1>
    %p = d2m.wait %p_cb : !d2m.cb<!blk, 1> -> !blk
    %l_again = d2m.wait %l_cb : !d2m.cb<!col> -> !col
    %l_next = d2m.reserve %l_cb : !d2m.cb<!col> -> !col
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%p, %l : !blk, !col) outs(%l_next : !col) {
    ^bb0(%pt: !tile, %lt: !tile, %out_t: !tile):
      %c = d2m.tile_copy %lt {d2m.prologue} : !tile
      %r = d2m.tile_accumulate %pt, %c : !tile
      linalg.yield %r : !tile
    }
    d2m.pop %p_cb : !d2m.cb<!blk, 1>
    d2m.push %l_cb : !d2m.cb<!col>
  }
  return
}
