// Loops the pass must leave alone: the IR comes out as it went in.
// RUN: %ttlang-opt %s --split-input-file -p d2m-packer-l1-accumulate | FileCheck %s

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>

// FlashAttention's acc = acc * alpha + p @ v: the accumulator is rescaled every
// iteration, so the packer cannot just add the new product to it.
// CHECK-LABEL: func.func @rescaled
// CHECK-NOT:  d2m.pack_l1_acc
// CHECK-NOT:  d2m.l1_accumulate
// CHECK:      d2m.local_cb : !d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
// CHECK:      scf.for
// CHECK-NEXT: %[[ACC:.*]] = d2m.wait
// CHECK:      d2m.tile_mul %{{.*}}, %{{.*}} {d2m.prologue}
// CHECK-NOT:  d2m.pack_l1_acc
func.func @rescaled(%p: !dram, %v: !dram, %alpha: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%p, %v, %alpha : !dram, !dram, !dram) outs(%out : !dram) {
  ^bb0(%p_cb: !cb, %v_cb: !cb, %alpha_cb: !cb, %out_cb: !cb):
    %acc_cb = d2m.local_cb : !cb
    %r0 = d2m.reserve %acc_cb : !cb -> !blk
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%r0 : !blk) {
    ^bb0(%o: !tile):
      %z = d2m.tile_fill 0.000000e+00 : !tile
      linalg.yield %z : !tile
    }
    d2m.push %acc_cb : !cb
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c1 = arith.constant 1 : index
    scf.for %k = %c0 to %c4 step %c1 {
      %acc = d2m.wait %acc_cb : !cb -> !blk
      %next = d2m.reserve %acc_cb : !cb -> !blk
      %pb = d2m.wait %p_cb : !cb -> !blk
      %vb = d2m.wait %v_cb : !cb -> !blk
      %ab = d2m.wait %alpha_cb : !cb -> !blk
      linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, 0)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%pb, %vb, %acc, %ab : !blk, !blk, !blk, !blk) outs(%next : !blk) {
      ^bb0(%x: !tile, %y: !tile, %s: !tile, %al: !tile, %o: !tile):
        %b = d2m.tile_bcast <col> %al {d2m.prologue} : !tile
        %r = d2m.tile_mul %s, %b {d2m.prologue} : !tile
        %m = d2m.tile_matmul %x, %y, %r : !tile, !tile
        linalg.yield %m : !tile
      }
      d2m.pop %alpha_cb : !cb
      d2m.pop %v_cb : !cb
      d2m.pop %p_cb : !cb
      d2m.push %acc_cb : !cb
      d2m.pop %acc_cb : !cb
    }
    %sum = d2m.wait %acc_cb : !cb -> !blk
    %o = d2m.reserve %out_cb : !cb -> !blk
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%sum : !blk) outs(%o : !blk) {
    ^bb0(%t: !tile, %u: !tile):
      linalg.yield %t : !tile
    }
    d2m.pop %acc_cb : !cb
    d2m.push %out_cb : !cb
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>

// The running sum is also read inside the loop (exp(acc) written out every K step):
// it must be in its CB's front every iteration.
// CHECK-LABEL: func.func @read_in_loop
// CHECK-NOT:  d2m.pack_l1_acc
// CHECK-NOT:  d2m.l1_accumulate
// CHECK:      d2m.tile_copy %{{.*}} {d2m.prologue}
// CHECK-NOT:  d2m.pack_l1_acc
func.func @read_in_loop(%a: !dram, %b: !dram, %out: !dram, %e: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%a, %b : !dram, !dram) outs(%out, %e : !dram, !dram) {
  ^bb0(%a_cb: !cb, %b_cb: !cb, %out_cb: !cb, %e_cb: !cb):
    %acc_cb = d2m.local_cb : !cb
    %r0 = d2m.reserve %acc_cb : !cb -> !blk
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%r0 : !blk) {
    ^bb0(%o: !tile):
      %z = d2m.tile_fill 0.000000e+00 : !tile
      linalg.yield %z : !tile
    }
    d2m.push %acc_cb : !cb
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c1 = arith.constant 1 : index
    scf.for %k = %c0 to %c4 step %c1 {
      %acc = d2m.wait %acc_cb : !cb -> !blk
      %next = d2m.reserve %acc_cb : !cb -> !blk
      %ab = d2m.wait %a_cb : !cb -> !blk
      %bb = d2m.wait %b_cb : !cb -> !blk
      %eb = d2m.reserve %e_cb : !cb -> !blk
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%acc : !blk) outs(%eb : !blk) {
      ^bb0(%t: !tile, %u: !tile):
        %x = d2m.tile_exp %t : !tile
        linalg.yield %x : !tile
      }
      d2m.push %e_cb : !cb
      linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ab, %bb, %acc : !blk, !blk, !blk) outs(%next : !blk) {
      ^bb0(%x: !tile, %y: !tile, %s: !tile, %o: !tile):
        %c = d2m.tile_copy %s {d2m.prologue} : !tile
        %m = d2m.tile_matmul %x, %y, %c : !tile, !tile
        linalg.yield %m : !tile
      }
      d2m.pop %b_cb : !cb
      d2m.pop %a_cb : !cb
      d2m.push %acc_cb : !cb
      d2m.pop %acc_cb : !cb
    }
    %sum = d2m.wait %acc_cb : !cb -> !blk
    %o = d2m.reserve %out_cb : !cb -> !blk
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%sum : !blk) outs(%o : !blk) {
    ^bb0(%t: !tile, %u: !tile):
      linalg.yield %t : !tile
    }
    d2m.pop %acc_cb : !cb
    d2m.push %out_cb : !cb
  }
  return
}

// -----

// A block-float accumulator: its pages share exponents, the packer cannot add into them.
// CHECK-LABEL: func.func @bfp8_b_sum
// CHECK-NOT:  d2m.pack_l1_acc
// CHECK-NOT:  d2m.l1_accumulate
// CHECK:      d2m.tile_copy %{{.*}} {d2m.prologue}
// CHECK-NOT:  d2m.pack_l1_acc
!tile = !ttcore.tile<32x32, bfp8_b>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>

func.func @bfp8_b_sum(%a: !dram, %b: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%a, %b : !dram, !dram) outs(%out : !dram) {
  ^bb0(%a_cb: !cb, %b_cb: !cb, %out_cb: !cb):
    %acc_cb = d2m.local_cb : !cb
    %r0 = d2m.reserve %acc_cb : !cb -> !blk
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%r0 : !blk) {
    ^bb0(%o: !tile):
      %z = d2m.tile_fill 0.000000e+00 : !tile
      linalg.yield %z : !tile
    }
    d2m.push %acc_cb : !cb
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c1 = arith.constant 1 : index
    scf.for %k = %c0 to %c4 step %c1 {
      %acc = d2m.wait %acc_cb : !cb -> !blk
      %next = d2m.reserve %acc_cb : !cb -> !blk
      %ab = d2m.wait %a_cb : !cb -> !blk
      %bb = d2m.wait %b_cb : !cb -> !blk
      linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ab, %bb, %acc : !blk, !blk, !blk) outs(%next : !blk) {
      ^bb0(%x: !tile, %y: !tile, %s: !tile, %o: !tile):
        %c = d2m.tile_copy %s {d2m.prologue} : !tile
        %m = d2m.tile_matmul %x, %y, %c : !tile, !tile
        linalg.yield %m : !tile
      }
      d2m.pop %b_cb : !cb
      d2m.pop %a_cb : !cb
      d2m.push %acc_cb : !cb
      d2m.pop %acc_cb : !cb
    }
    %sum = d2m.wait %acc_cb : !cb -> !blk
    %o = d2m.reserve %out_cb : !cb -> !blk
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%sum : !blk) outs(%o : !blk) {
    ^bb0(%t: !tile, %u: !tile):
      linalg.yield %t : !tile
    }
    d2m.pop %acc_cb : !cb
    d2m.push %out_cb : !cb
  }
  return
}
