// RUN: %ttlang-opt %s --split-input-file -p d2m-packer-l1-accumulate | FileCheck %s
// RUN: %ttlang-opt %s --split-input-file -p d2m-packer-l1-accumulate,d2m-tile-subblock,d2m-dst-allocate,d2m-lower-to-loops | FileCheck %s --check-prefix=LOOPS
// RUN: %ttlang-opt %s --split-input-file -p d2m-packer-l1-accumulate,d2m-tile-subblock,d2m-dst-allocate,d2m-lower-to-loops,convert-d2m-to-ttkernel | FileCheck %s --check-prefix=TTK

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>

// acc = acc + a @ b over 4 K blocks (examples/matmul.py after d2m-accumulate-into-dst):
// one block in a one-block CB, reserved before the loop, summed by the packer. The
// zero fill is gone: the first K step packs over the block, L1 accumulation is switched
// on at the second (as tt-metal's matmul does) and off after the loop.
// CHECK-LABEL: func.func @k_loop
// CHECK:      %[[CB:.*]] = d2m.local_cb : !d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>, 1>
// CHECK-NEXT: %[[R:.*]] = d2m.reserve %[[CB]]
// CHECK-NOT:  d2m.tile_fill
// CHECK:      scf.for %[[K:.*]] = %[[LB:.*]] to %{{.*}} step %[[STEP:.*]] {
// CHECK-NEXT: %[[SECOND:.*]] = arith.addi %[[LB]], %[[STEP]]
// CHECK-NEXT: %[[IS:.*]] = arith.cmpi eq, %[[K]], %[[SECOND]]
// CHECK-NEXT: scf.if %[[IS]] {
// CHECK-NEXT:   %[[ON:.*]] = arith.constant true
// CHECK-NEXT:   d2m.pack_l1_acc %[[ON]]
// CHECK-NEXT: }
// CHECK-NOT:  d2m.wait %[[CB]]
// CHECK-NOT:  d2m.reserve %[[CB]]
// CHECK:      linalg.generic {{.*}} ins(%ab, %bb : {{.*}}) outs(%[[R]] : {{.*}}) attrs = {{ *}}{d2m.l1_accumulate}
// CHECK-NEXT: ^bb0(%[[X:.*]]: !ttcore.tile<32x32, bf16>, %[[Y:.*]]: !ttcore.tile<32x32, bf16>, %[[O:.*]]: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:   %[[M:.*]] = d2m.tile_matmul %[[X]], %[[Y]], %[[O]]
// CHECK-NEXT:   linalg.yield %[[M]]
// CHECK-NOT:  d2m.push %[[CB]]
// CHECK-NOT:  d2m.pop %[[CB]]
// CHECK:      d2m.pop %a_cb
// CHECK-NEXT: }
// CHECK-NEXT: %[[OFF:.*]] = arith.constant false
// CHECK-NEXT: d2m.pack_l1_acc %[[OFF]]
// CHECK-NEXT: d2m.push %[[CB]]
// CHECK-NEXT: %[[SUM:.*]] = d2m.wait %[[CB]]
// CHECK:      ins(%[[SUM]] :
// CHECK:      d2m.pop %[[CB]]
// A K step's section: matmuls from DST's zeros (no copy of the running sum into DST),
// then the pack into the block reserved before the loop.
// LOOPS-LABEL: func.func @k_loop
// LOOPS:      %[[R:.*]] = d2m.reserve
// LOOPS:      scf.for
// LOOPS:      d2m.pack_l1_acc
// LOOPS:      d2m.acquire_dst
// LOOPS-NOT:  memref.load %[[R]]
// LOOPS:      d2m.tile_matmul
// LOOPS:      d2m.wait_dst
// LOOPS:      memref.store %{{.*}}, %[[R]][
// LOOPS:      d2m.release_dst
// The compute kernel: in the K loop, pack_reconfig_l1_acc(1) at the second step and no
// copy_tile; pack_reconfig_l1_acc(0) after the loop, then the block is pushed.
// TTK-LABEL: func.func @k_loop_compute
// TTK:      scf.for
// TTK:      scf.if
// TTK:      arith.constant true
// TTK-NEXT: %[[ONE:.*]] = arith.constant 1 : i32
// TTK-NEXT: ttkernel.pack_reconfig_l1_acc(%[[ONE]])
// TTK-NOT:  ttkernel.copy_tile
// TTK:      ttkernel.matmul_tiles
// TTK:      ttkernel.pack_tile(%{{.*}}, %[[ACC:.*]], %{{.*}})
// TTK:      arith.constant false
// TTK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i32
// TTK-NEXT: ttkernel.pack_reconfig_l1_acc(%[[ZERO]])
// TTK-NEXT: ttkernel.cb_push_back(%[[ACC]],
func.func @k_loop(%a: !dram, %b: !dram, %out: !dram) {
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

// -----

!tile = !ttcore.tile<32x32, f32>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>

// f32 tiles, and another generic in the loop (exp of each K block, packed into its own
// CB): L1 accumulation is switched on around the summing generic only, from the second
// K step on.
// CHECK-LABEL: func.func @other_pack_in_loop
// CHECK:      scf.for %[[K:.*]] = %[[LB:.*]] to
// CHECK:      d2m.tile_exp
// CHECK:      %[[NOT_FIRST:.*]] = arith.cmpi ne, %[[K]], %[[LB]]
// CHECK-NEXT: d2m.pack_l1_acc %[[NOT_FIRST]]
// CHECK-NEXT: linalg.generic {{.*}} attrs = {{ *}}{d2m.l1_accumulate}
// CHECK:      d2m.tile_matmul
// CHECK-NEXT: linalg.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[OFF:.*]] = arith.constant false
// CHECK-NEXT: d2m.pack_l1_acc %[[OFF]]
// CHECK-NEXT: d2m.pop
// CHECK:      }
// CHECK-NEXT: d2m.push
func.func @other_pack_in_loop(%a: !dram, %b: !dram, %out: !dram, %e: !dram) {
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
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%ab : !blk) outs(%eb : !blk) {
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

// acc starts at ones: the fill stays (a normal pack) and every K step accumulates onto
// it, L1 accumulation on before the loop and off after it.
// CHECK-LABEL: func.func @nonzero_init
// CHECK:      %[[R:.*]] = d2m.reserve
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[R]] :
// CHECK-NEXT: ^bb0
// CHECK-NEXT:   d2m.tile_fill 1.0
// CHECK:      %[[ON:.*]] = arith.constant true
// CHECK-NEXT: d2m.pack_l1_acc %[[ON]]
// CHECK-NEXT: scf.for
// CHECK-NOT:  d2m.pack_l1_acc
// CHECK:      attrs = {{ *}}{d2m.l1_accumulate}
// CHECK-NOT:  d2m.pack_l1_acc
// CHECK:      d2m.pop %a_cb
// CHECK-NEXT: }
// CHECK-NEXT: %[[OFF:.*]] = arith.constant false
// CHECK-NEXT: d2m.pack_l1_acc %[[OFF]]
!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>

func.func @nonzero_init(%a: !dram, %b: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%a, %b : !dram, !dram) outs(%out : !dram) {
  ^bb0(%a_cb: !cb, %b_cb: !cb, %out_cb: !cb):
    %acc_cb = d2m.local_cb : !cb
    %r0 = d2m.reserve %acc_cb : !cb -> !blk
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%r0 : !blk) {
    ^bb0(%o: !tile):
      %z = d2m.tile_fill 1.000000e+00 : !tile
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
