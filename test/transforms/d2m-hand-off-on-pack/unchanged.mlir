// RUN: %ttlang-opt %s --split-input-file -p d2m-hand-off-on-pack | FileCheck %s

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>

// Left alone: the copied block comes from a CB the reader fills (no generic computes it
// in DST).
// CHECK-LABEL: func.func @from_the_reader
// CHECK:       linalg.generic {{.*}} ins(%x : {{.*}}) outs(%next : {{.*}})
// CHECK-NEXT:  ^bb0(%[[I:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:    linalg.yield %[[I]]
func.func @from_the_reader(%xd: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%xd : !dram) outs(%out : !dram) {
  ^bb0(%x_cb: !d2m.cb<!blk>, %o_cb: !d2m.cb<!blk>):
    %next = d2m.reserve %o_cb : !d2m.cb<!blk> -> !blk
    %x = d2m.wait %x_cb : !d2m.cb<!blk> -> !blk
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : !blk) outs(%next : !blk) {
    ^bb0(%i: !tile, %n: !tile):
      linalg.yield %i : !tile
    }
    d2m.pop %x_cb : !d2m.cb<!blk>
    d2m.push %o_cb : !d2m.cb<!blk>
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>

// Left alone: the target block is reserved after the generic computing the copied
// block (that generic could not pack into it).
// CHECK-LABEL: func.func @reserved_after
// CHECK:       linalg.generic {{.*}} outs(%w : {{.*}})
// CHECK:       linalg.generic {{.*}} ins(%t : {{.*}}) outs(%next : {{.*}})
// CHECK-NEXT:  ^bb0(%[[I:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:    linalg.yield %[[I]]
func.func @reserved_after(%xd: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%xd : !dram) outs(%out : !dram) {
  ^bb0(%x_cb: !d2m.cb<!blk>, %o_cb: !d2m.cb<!blk>):
    %t_cb = d2m.local_cb : !d2m.cb<!blk, 1>
    %x = d2m.wait %x_cb : !d2m.cb<!blk> -> !blk
    %w = d2m.reserve %t_cb : !d2m.cb<!blk, 1> -> !blk
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : !blk) outs(%w : !blk) {
    ^bb0(%xt: !tile, %o: !tile):
      %e = d2m.tile_exp %xt : !tile
      linalg.yield %e : !tile
    }
    d2m.push %t_cb : !d2m.cb<!blk, 1>
    %t = d2m.wait %t_cb : !d2m.cb<!blk, 1> -> !blk
    %next = d2m.reserve %o_cb : !d2m.cb<!blk> -> !blk
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t : !blk) outs(%next : !blk) {
    ^bb0(%i: !tile, %n: !tile):
      linalg.yield %i : !tile
    }
    d2m.pop %t_cb : !d2m.cb<!blk, 1>
    d2m.pop %x_cb : !d2m.cb<!blk>
    d2m.push %o_cb : !d2m.cb<!blk>
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>

// Left alone: the generic's packs add onto its block (d2m.l1_accumulate), so the block
// holds more than the generic computes: a second pack would hand off only its part.
// CHECK-LABEL: func.func @l1_accumulating
// CHECK:       linalg.generic {{.*}} outs(%w : {{.*}}) attrs = {{ *}}{d2m.l1_accumulate}
// CHECK:       linalg.generic {{.*}} ins(%t : {{.*}}) outs(%next : {{.*}})
// CHECK-NEXT:  ^bb0(%[[I:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:    linalg.yield %[[I]]
func.func @l1_accumulating(%xd: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%xd : !dram) outs(%out : !dram) {
  ^bb0(%x_cb: !d2m.cb<!blk>, %o_cb: !d2m.cb<!blk>):
    %t_cb = d2m.local_cb : !d2m.cb<!blk, 1>
    %next = d2m.reserve %o_cb : !d2m.cb<!blk> -> !blk
    %x = d2m.wait %x_cb : !d2m.cb<!blk> -> !blk
    %w = d2m.reserve %t_cb : !d2m.cb<!blk, 1> -> !blk
    %on = arith.constant true
    d2m.pack_l1_acc %on
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : !blk) outs(%w : !blk) attrs = {d2m.l1_accumulate} {
    ^bb0(%xt: !tile, %o: !tile):
      %e = d2m.tile_exp %xt : !tile
      linalg.yield %e : !tile
    }
    %off = arith.constant false
    d2m.pack_l1_acc %off
    d2m.push %t_cb : !d2m.cb<!blk, 1>
    %t = d2m.wait %t_cb : !d2m.cb<!blk, 1> -> !blk
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t : !blk) outs(%next : !blk) {
    ^bb0(%i: !tile, %n: !tile):
      linalg.yield %i : !tile
    }
    d2m.pop %t_cb : !d2m.cb<!blk, 1>
    d2m.pop %x_cb : !d2m.cb<!blk>
    d2m.push %o_cb : !d2m.cb<!blk>
  }
  return
}
