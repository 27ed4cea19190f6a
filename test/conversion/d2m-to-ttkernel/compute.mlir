// The compute thread at the loop stage -> a compute kernel of ttkernel calls.
// RUN: %ttlang-opt %s --split-input-file -p d2m-tile-subblock,d2m-dst-allocate,d2m-lower-to-loops,convert-d2m-to-ttkernel,ttkernel-place-inits | FileCheck %s

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>
#id = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @chain_compute() attributes {ttkernel.thread = #ttkernel.thread<compute>}
// CHECK:      %[[IN:.*]] = ttkernel.get_compile_time_arg_val(0)
// CHECK-NEXT: %[[OUT:.*]] = ttkernel.get_compile_time_arg_val(1)
// CHECK-NEXT: ttkernel.binary_op_init_common(%[[IN]], %[[IN]], %[[OUT]])
// CHECK-NEXT: %[[TMP:.*]] = ttkernel.get_compile_time_arg_val(2)
// CHECK-NEXT: %[[FOUR:.*]] = arith.constant 4 : i32
// CHECK-NEXT: ttkernel.cb_wait_front(%[[IN]], %[[FOUR]])
// CHECK-NEXT: ttkernel.cb_reserve_back(%[[OUT]], %[[FOUR]])
// CHECK-NEXT: ttkernel.cb_reserve_back(%[[TMP]], %[[FOUR]])
// The whole 2x2 block is one DST section; each op runs over its four tiles, with its
// init once, hoisted out of the tile loops.
// CHECK:      ttkernel.tile_regs_acquire()
// CHECK:      ttkernel.copy_tile_init(%[[IN]])
// CHECK-NEXT: scf.for
// CHECK:        scf.for
// CHECK:          ttkernel.copy_tile(%[[IN]], %{{.*}}, %{{.*}})
// CHECK:      ttkernel.tile_regs_commit()
// CHECK-NEXT: ttkernel.tile_regs_wait()
// CHECK:          ttkernel.pack_tile(%{{.*}}, %[[TMP]], %{{.*}})
// CHECK:      ttkernel.tile_regs_release()
// CHECK-NEXT: ttkernel.cb_push_back(%[[TMP]], %[[FOUR]])
// CHECK-NEXT: ttkernel.cb_wait_front(%[[TMP]], %[[FOUR]])
// The copy_tile_init of the first section still holds (TMP holds IN's tile type:
// ttkernel-place-inits drops the second).
// CHECK:      ttkernel.tile_regs_acquire()
// CHECK-NOT:  ttkernel.copy_tile_init
// CHECK:          ttkernel.copy_tile(%[[TMP]], %{{.*}}, %{{.*}})
// CHECK:      ttkernel.exp_tile_init()
// CHECK:          ttkernel.exp_tile(%{{.*}})
// CHECK:      ttkernel.binop_with_scalar_tile_init()
// 2.0 as the bits of an f32
// CHECK:      %[[BITS:.*]] = arith.constant 1073741824 : i32
// CHECK:          ttkernel.mul_unary_tile(%{{.*}}, %[[BITS]])
// CHECK:      ttkernel.tile_regs_commit()
// CHECK:          ttkernel.pack_tile(%{{.*}}, %[[OUT]], %{{.*}})
// CHECK:      ttkernel.cb_pop_front(%[[TMP]], %[[FOUR]])
func.func @chain(%in: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %tmp_cb = d2m.local_cb : !d2m.cb<!blk, 1>
    %x = d2m.wait %in_cb : !cb -> !blk
    %o = d2m.reserve %out_cb : !cb -> !blk
    %t = d2m.reserve %tmp_cb : !d2m.cb<!blk, 1> -> !blk
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !blk) outs(%t : !blk) {
    ^bb0(%a: !tile, %c: !tile):
      linalg.yield %a : !tile
    }
    d2m.push %tmp_cb : !d2m.cb<!blk, 1>
    %y = d2m.wait %tmp_cb : !d2m.cb<!blk, 1> -> !blk
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%y : !blk) outs(%o : !blk) {
    ^bb0(%a: !tile, %c: !tile):
      %e = d2m.tile_exp %a : !tile
      %s = d2m.tile_mul_scalar %e, 2.0 : !tile
      linalg.yield %s : !tile
    }
    d2m.pop %tmp_cb : !d2m.cb<!blk, 1>
    d2m.push %out_cb : !cb
    d2m.pop %in_cb : !cb
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>
#id = affine_map<(d0, d1) -> (d0, d1)>

// Matmul into its output CB (mm_init names it), reductions with their scaler CB,
// broadcasts and transposes from CBs, fills into DST.
// CHECK-LABEL: func.func @engines_compute()
// CHECK:      %[[A:.*]] = ttkernel.get_compile_time_arg_val(0)
// CHECK:      %[[B:.*]] = ttkernel.get_compile_time_arg_val(1)
// CHECK:      %[[O:.*]] = ttkernel.get_compile_time_arg_val(2)
// CHECK:      %[[NO:.*]] = arith.constant 0 : i32
// CHECK:      ttkernel.mm_init(%[[A]], %[[B]], %[[O]], %[[NO]])
// CHECK:      ttkernel.matmul_tiles(%[[A]], %[[B]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK:      ttkernel.fill_tile_init()
// CHECK:      %[[NEG_INF:.*]] = arith.constant 0xff800000 : f32
// CHECK:      ttkernel.fill_tile(%{{.*}}, %[[NEG_INF]])
// CHECK:      ttkernel.reduce_init<max, row> (%[[A]], %[[B]], %[[O]])
// CHECK:      ttkernel.reduce_tile<max, row> (%[[A]], %[[B]], %{{.*}}, %{{.*}}, %{{.*}})
// A reduction reconfigured the packer: its own packs keep the configuration, the
// next section packing something else clears it at its start.
// CHECK:      ttkernel.pack_tile
// CHECK-NOT:  ttkernel.reduce_uninit
// CHECK:      ttkernel.tile_regs_acquire()
// CHECK-NEXT: ttkernel.reduce_uninit()
// CHECK-NOT:  ttkernel.reduce_uninit
// CHECK:      ttkernel.transpose_wh_init(%[[A]], %[[O]])
// CHECK:      ttkernel.transpose_wh_tile(%[[A]], %{{.*}}, %{{.*}})
// The broadcast row tile and the copied operand are divided on the SFPU (the slots
// are pinned by the d2m-lower-to-loops tests).
// CHECK:      ttkernel.unary_bcast_init<row> (%[[B]], %[[O]])
// CHECK:      ttkernel.unary_bcast<row> (%[[B]], %{{.*}}, %{{.*}})
// CHECK:      ttkernel.copy_tile_init(%[[A]])
// CHECK:      ttkernel.copy_tile(%[[A]], %{{.*}}, %{{.*}})
// CHECK:      ttkernel.div_binary_tile_init()
// CHECK:      ttkernel.div_binary_tile(%{{.*}}, %{{.*}}, %{{.*}})
// A broadcast feeding a subtract is done by the FPU from both CBs.
// CHECK:      ttkernel.init_bcast<sub, col> (%[[A]], %[[B]], %[[O]])
// CHECK:      ttkernel.sub_tiles_bcast<col> (%[[A]], %[[B]], %{{.*}}, %{{.*}}, %{{.*}})
func.func @engines(%a: !dram, %b: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%a, %b : !dram, !dram) outs(%out : !dram) {
  ^bb0(%a_cb: !cb, %b_cb: !cb, %out_cb: !cb):
    %x = d2m.wait %a_cb : !cb -> !blk
    %y = d2m.wait %b_cb : !cb -> !blk
    %o = d2m.reserve %out_cb : !cb -> !blk
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %y : !blk, !blk) outs(%o : !blk) {
    ^bb0(%p: !tile, %q: !tile, %acc: !tile):
      %r = d2m.tile_matmul %p, %q, %acc : !tile, !tile
      linalg.yield %r : !tile
    }
    %o2 = d2m.reserve %out_cb : !cb -> !blk
    linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (0, 0)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%x, %y : !blk, !blk) outs(%o2 : !blk) {
    ^bb0(%p: !tile, %s: !tile, %acc: !tile):
      %r = d2m.tile_reduce_max <row> %p, %s, %acc : !tile
      linalg.yield %r : !tile
    }
    %o3 = d2m.reserve %out_cb : !cb -> !blk
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !blk) outs(%o3 : !blk) {
    ^bb0(%p: !tile, %c: !tile):
      %r = d2m.tile_transpose %p : !tile
      linalg.yield %r : !tile
    }
    %o4 = d2m.reserve %out_cb : !cb -> !blk
    linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (0, d1)>, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %y : !blk, !blk) outs(%o4 : !blk) {
    ^bb0(%p: !tile, %q: !tile, %c: !tile):
      %bq = d2m.tile_bcast <row> %q : !tile
      %r = d2m.tile_div %p, %bq : !tile
      linalg.yield %r : !tile
    }
    %o5 = d2m.reserve %out_cb : !cb -> !blk
    linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d0, 0)>, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %y : !blk, !blk) outs(%o5 : !blk) {
    ^bb0(%p: !tile, %q: !tile, %c: !tile):
      %bq = d2m.tile_bcast <col> %q : !tile
      %r = d2m.tile_sub %p, %bq : !tile
      linalg.yield %r : !tile
    }
  }
  return
}

