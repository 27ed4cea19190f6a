// RUN: %ttlang-opt %s -p d2m-generate-datamovement | FileCheck %s

!tile = !ttcore.tile<32x32, bf16>
!cb = !d2m.cb<memref<1x1x!tile, #ttcore.memory_space<l1>>>
!dram = memref<4x1x!tile, #ttcore.memory_space<dram>>

// A triangular iteration space: out block i = a block i + b blocks 0..i (loop dims
// (i, j), j bounded by i + 1), i dealt serpentine over a 1x2 grid: core x's blocks are
// 3 - x, then x (round r = 1 - n: block 2r + (x if r is even, else 1 - x)). The
// compute thread's `d2m.block_index` and the reader's loops get the same arithmetic;
// b is read by each core (its loop bound differs per core: no multicast).
// CHECK-LABEL: func.func @serpentine_triangle
// CHECK:       ^bb0(%{{.*}}: !d2m.cb<{{.*}}>, %{{.*}}: !d2m.cb<{{.*}}>, %{{.*}}: !d2m.cb<{{.*}}>):
// CHECK:         scf.for %[[N:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NOT:       d2m.block_index
// CHECK:           %[[Y:.*]] = d2m.core_index(0)
// CHECK-NEXT:      %[[X:.*]] = d2m.core_index(1)
// CHECK-NEXT:      %[[LAST:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[R:.*]] = arith.subi %[[LAST]], %[[N]] : index
// CHECK-NEXT:      %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[ODD:.*]] = arith.remui %[[R]], %[[TWO]] : index
// CHECK-NEXT:      %[[G1:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[MIRROR:.*]] = arith.subi %[[G1]], %[[X]] : index
// CHECK-NEXT:      %[[D:.*]] = arith.subi %[[MIRROR]], %[[X]] : index
// CHECK-NEXT:      %[[FLIP:.*]] = arith.muli %[[ODD]], %[[D]] : index
// CHECK-NEXT:      %[[POS:.*]] = arith.addi %[[X]], %[[FLIP]] : index
// CHECK-NEXT:      %[[G:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[BASE:.*]] = arith.muli %[[R]], %[[G]] : index
// CHECK-NEXT:      %[[I:.*]] = arith.addi %[[BASE]], %[[POS]] : index
// CHECK-NEXT:      %{{.*}} = arith.addi %[[I]], %{{.*}} : index
// The reader: per n, a block i, then b blocks 0 .. i (its bound, i + 1)
// CHECK:       }, {
// CHECK:         %[[RX:.*]] = d2m.core_index(1)
// CHECK:         scf.for %[[RN:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           %[[A_BLK:.*]] = d2m.reserve
// CHECK:           arith.remui
// CHECK-NEXT:      arith.subi
// CHECK-NEXT:      arith.subi
// CHECK-NEXT:      arith.muli
// CHECK-NEXT:      arith.addi
// CHECK-NEXT:      arith.muli
// CHECK-NEXT:      %[[RI:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:      %[[ROW:.*]] = arith.muli %[[RI]], %{{.*}} : index
// CHECK:           d2m.dma_read %a[%[[ROW]], %{{.*}}], %[[A_BLK]]
// CHECK:           arith.remui
// CHECK-NEXT:      arith.subi
// CHECK-NEXT:      arith.subi
// CHECK-NEXT:      arith.muli
// CHECK-NEXT:      arith.addi
// CHECK-NEXT:      arith.muli
// CHECK-NEXT:      %[[RI2:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:      %[[END:.*]] = arith.addi %[[RI2]], %{{.*}} : index
// CHECK-NEXT:      scf.for %[[J:.*]] = %{{.*}} to %[[END]] step %{{.*}} {
// CHECK-NEXT:        %[[B_BLK:.*]] = d2m.reserve
// CHECK-NEXT:        %[[BROW:.*]] = arith.muli %[[J]], %{{.*}} : index
// CHECK-NEXT:        %[[TX:.*]] = d2m.dma_read %b[%[[BROW]], %{{.*}}], %[[B_BLK]]
// CHECK-NOT:         d2m.dma_mcast
// CHECK:       }, {
// CHECK:         d2m.dma_write
func.func @serpentine_triangle(%a: !dram, %b: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x2>, block_factors = [1, 1], threads = [#d2m.thread<compute>], indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d1, 0)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = [#ttcore.iterator_type<parallel>, #ttcore.iterator_type<reduction>], loop_bounds = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0 + 1)>], deal = "serpentine"} ins(%a, %b : !dram, !dram) outs(%out : !dram) {
  ^bb0(%a_cb: !cb, %b_cb: !cb, %out_cb: !cb):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    scf.for %n = %c0 to %c2 step %c1 {
      %x = d2m.wait %a_cb : !cb -> tensor<1x1x!tile>
      %i = d2m.block_index(0) %n
      %end = arith.addi %i, %c1 : index
      scf.for %j = %c0 to %end step %c1 {
        %y = d2m.wait %b_cb : !cb -> tensor<1x1x!tile>
        d2m.pop %b_cb : !cb
      }
      d2m.pop %a_cb : !cb
      %o = d2m.reserve %out_cb : !cb -> tensor<1x1x!tile>
      d2m.store %o, %x : tensor<1x1x!tile>, tensor<1x1x!tile>
      d2m.push %out_cb : !cb
    }
  }
  return
}
