// d2m.tile_where -> where_tile (its three operands copied into DST) in DST's format:
// bf16 with a 16-bit DST, f32 with fp32_dest_acc_en.
// RUN: %ttlang-opt %s --split-input-file -p d2m-tile-subblock,d2m-dst-allocate,d2m-lower-to-loops,convert-d2m-to-ttkernel,ttkernel-place-inits | FileCheck %s

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<1x1x!tile, #ttcore.memory_space<dram>>
!blk = memref<1x1x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>
#id = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @select_compute()
// CHECK:      %[[C:.*]] = ttkernel.get_compile_time_arg_val(0)
// CHECK-NEXT: %[[T:.*]] = ttkernel.get_compile_time_arg_val(1)
// CHECK-NEXT: %[[F:.*]] = ttkernel.get_compile_time_arg_val(2)
// CHECK:      ttkernel.tile_regs_acquire()
// CHECK:      ttkernel.copy_tile(%[[C]], %{{.*}}, %{{.*}})
// CHECK:      ttkernel.copy_tile(%[[T]], %{{.*}}, %{{.*}})
// CHECK:      ttkernel.copy_tile(%[[F]], %{{.*}}, %{{.*}})
// CHECK:      ttkernel.where_tile_init()
// CHECK-NEXT: ttkernel.where_tile <bf16>(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK:      ttkernel.tile_regs_commit()
func.func @select(%c: !dram, %t: !dram, %f: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%c, %t, %f : !dram, !dram, !dram) outs(%out : !dram) {
  ^bb0(%c_cb: !cb, %t_cb: !cb, %f_cb: !cb, %out_cb: !cb):
    %cb = d2m.wait %c_cb : !cb -> !blk
    %tb = d2m.wait %t_cb : !cb -> !blk
    %fb = d2m.wait %f_cb : !cb -> !blk
    %o = d2m.reserve %out_cb : !cb -> !blk
    linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%cb, %tb, %fb : !blk, !blk, !blk) outs(%o : !blk) {
    ^bb0(%x: !tile, %y: !tile, %z: !tile, %r: !tile):
      %w = d2m.tile_where %x, %y, %z : !tile
      linalg.yield %w : !tile
    }
    d2m.pop %c_cb : !cb
    d2m.pop %t_cb : !cb
    d2m.pop %f_cb : !cb
    d2m.push %out_cb : !cb
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<1x1x!tile, #ttcore.memory_space<dram>>
!blk = memref<1x1x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>
#id = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @select_fp32_dst_compute()
// CHECK:      ttkernel.where_tile_init()
// CHECK-NEXT: ttkernel.where_tile <f32>(
func.func @select_fp32_dst(%c: !dram, %t: !dram, %f: !dram, %out: !dram) attributes {ttcore.compute_config = {fp32_dest_acc_en = true}} {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%c, %t, %f : !dram, !dram, !dram) outs(%out : !dram) {
  ^bb0(%c_cb: !cb, %t_cb: !cb, %f_cb: !cb, %out_cb: !cb):
    %cb = d2m.wait %c_cb : !cb -> !blk
    %tb = d2m.wait %t_cb : !cb -> !blk
    %fb = d2m.wait %f_cb : !cb -> !blk
    %o = d2m.reserve %out_cb : !cb -> !blk
    linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%cb, %tb, %fb : !blk, !blk, !blk) outs(%o : !blk) {
    ^bb0(%x: !tile, %y: !tile, %z: !tile, %r: !tile):
      %w = d2m.tile_where %x, %y, %z : !tile
      linalg.yield %w : !tile
    }
    d2m.pop %c_cb : !cb
    d2m.pop %t_cb : !cb
    d2m.pop %f_cb : !cb
    d2m.push %out_cb : !cb
  }
  return
}
