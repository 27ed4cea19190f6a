// RUN: %ttlang-opt %s -p d2m-lower-to-loops | FileCheck %s

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>
#id = affine_map<(d0, d1) -> (d0, d1)>

// Both operands in CBs: the FPU form reads them straight from L1.
// CHECK-LABEL: func.func @fpu_binary
// CHECK:      scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT:   arith.constant
// CHECK-NEXT:   arith.constant
// CHECK-NEXT:   arith.constant
// CHECK-NEXT:   scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT:     %[[DST:.*]] = d2m.acquire_dst : memref<8x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dst>>
// CHECK-NEXT:     %[[A:.*]] = memref.load %lhs[%[[I]], %[[J]]]
// CHECK-NEXT:     %[[B:.*]] = memref.load %rhs[%[[I]], %[[J]]]
// CHECK-NEXT:     %[[S:.*]] = d2m.tile_add %[[A]], %[[B]]
// CHECK-NEXT:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:     memref.store %[[S]], %[[DST]][%[[C0]]]
// CHECK-NEXT:     d2m.commit_dst %[[DST]]
// CHECK-NEXT:     d2m.wait_dst %[[DST]]
// CHECK-NEXT:     %[[C0B:.*]] = arith.constant 0 : index
// CHECK-NEXT:     %[[R:.*]] = memref.load %[[DST]][%[[C0B]]]
// CHECK-NEXT:     memref.store %[[R]], %out[%[[I]], %[[J]]]
// CHECK-NEXT:     d2m.release_dst %[[DST]]
func.func @fpu_binary(%lhs: !blk, %rhs: !blk, %out: !blk) {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%lhs, %rhs : !blk, !blk) outs(%out : !blk) {
  ^bb0(%a: !tile, %b: !tile, %c: !tile):
    %r = d2m.tile_add %a, %b : !tile
    linalg.yield %r : !tile
  }
  return
}

// An SFPU op: its operand is copied into DST, then computed in place.
// CHECK-LABEL: func.func @sfpu_unary
// CHECK:      %[[DST:.*]] = d2m.acquire_dst
// CHECK-NEXT: %[[A:.*]] = memref.load %in[
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: memref.store %[[A]], %[[DST]][%[[C0]]]
// CHECK-NEXT: %[[C0B:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[AD:.*]] = memref.load %[[DST]][%[[C0B]]]
// CHECK-NEXT: %[[E:.*]] = d2m.tile_exp %[[AD]]
// CHECK-NEXT: %[[C0C:.*]] = arith.constant 0 : index
// CHECK-NEXT: memref.store %[[E]], %[[DST]][%[[C0C]]]
// CHECK-NEXT: d2m.commit_dst
func.func @sfpu_unary(%in: !blk, %out: !blk) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%in : !blk) outs(%out : !blk) {
  ^bb0(%a: !tile, %c: !tile):
    %r = d2m.tile_exp %a : !tile
    linalg.yield %r : !tile
  }
  return
}

// Matmul: the K loop runs inside the section and accumulates in the output's slot.
// CHECK-LABEL: func.func @matmul
// CHECK:      %[[DST:.*]] = d2m.acquire_dst
// CHECK-NOT:  d2m.commit_dst
// CHECK:      scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step
// CHECK:        %[[A:.*]] = memref.load %a[%{{.*}}, %[[K]]]
// CHECK-NEXT:   %[[B:.*]] = memref.load %b[%[[K]], %{{.*}}]
// CHECK-NEXT:   %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:   %[[ACC:.*]] = memref.load %[[DST]][%[[C0]]]
// CHECK-NEXT:   %[[M:.*]] = d2m.tile_matmul %[[A]], %[[B]], %[[ACC]]
// CHECK-NEXT:   %[[C0B:.*]] = arith.constant 0 : index
// CHECK-NEXT:   memref.store %[[M]], %[[DST]][%[[C0B]]]
// CHECK-NEXT: }
// CHECK-NEXT: d2m.commit_dst %[[DST]]
func.func @matmul(%a: !blk, %b: !blk, %out: !blk) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : !blk, !blk) outs(%out : !blk) {
  ^bb0(%x: !tile, %y: !tile, %acc: !tile):
    %r = d2m.tile_matmul %x, %y, %acc : !tile, !tile
    linalg.yield %r : !tile
  }
  return
}

// A max reduction into a just-reserved block starts from -inf (DST starts at zero).
// CHECK-LABEL: func.func @row_max
// CHECK:      %[[DST:.*]] = d2m.acquire_dst
// CHECK-NEXT: %{{.*}} = arith.constant 0 : index
// CHECK-NEXT: %[[INIT:.*]] = d2m.tile_fill 0xff800000
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: memref.store %[[INIT]], %[[DST]][%[[C0]]]
// CHECK:      scf.for
// CHECK:        d2m.tile_reduce_max <row>
func.func @row_max(%in: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %x = d2m.wait %in_cb : !cb -> !blk
    %o = d2m.reserve %out_cb : !cb -> !blk
    linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (0, 0)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%x, %x : !blk, !blk) outs(%o : !blk) {
    ^bb0(%a: !tile, %s: !tile, %acc: !tile):
      %r = d2m.tile_reduce_max <row> %a, %s, %acc : !tile
      linalg.yield %r : !tile
    }
  }
  return
}

// A broadcast CB tile feeding an FPU subtract stays unplaced: the FPU reads both
// operands from their CBs and broadcasts the second while unpacking it.
// CHECK-LABEL: func.func @bcast_sub
// CHECK:      %[[DST:.*]] = d2m.acquire_dst
// CHECK:      %[[X:.*]] = memref.load %x[
// CHECK:      %[[M:.*]] = memref.load %m[%{{.*}}, %{{.*}}]
// CHECK-NEXT: %[[B:.*]] = d2m.tile_bcast <col> %[[M]]
// CHECK-NEXT: %[[D:.*]] = d2m.tile_sub %[[X]], %[[B]]
// CHECK-NEXT: %[[S0:.*]] = arith.constant 0 : index
// CHECK-NEXT: memref.store %[[D]], %[[DST]][%[[S0]]]
func.func @bcast_sub(%x: !blk, %m: memref<2x1x!tile, #ttcore.memory_space<l1>>, %out: !blk) {
  linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d0, 0)>, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %m : !blk, memref<2x1x!tile, #ttcore.memory_space<l1>>) outs(%out : !blk) {
  ^bb0(%a: !tile, %b: !tile, %c: !tile):
    %bb = d2m.tile_bcast <col> %b : !tile
    %r = d2m.tile_sub %a, %bb : !tile
    linalg.yield %r : !tile
  }
  return
}

// Broadcast then SFPU divide: the broadcast tile goes from its CB into a new slot, the
// other operand is copied into DST, the quotient goes to a third slot.
// CHECK-LABEL: func.func @bcast_div
// CHECK:      %[[DST:.*]] = d2m.acquire_dst
// CHECK:      %[[M:.*]] = memref.load %m[%{{.*}}, %{{.*}}]
// CHECK-NEXT: %[[B:.*]] = d2m.tile_bcast <col> %[[M]]
// CHECK-NEXT: %[[S0:.*]] = arith.constant 0 : index
// CHECK-NEXT: memref.store %[[B]], %[[DST]][%[[S0]]]
// CHECK-NEXT: %[[X:.*]] = memref.load %x[
// CHECK-NEXT: %[[S1:.*]] = arith.constant 1 : index
// CHECK-NEXT: memref.store %[[X]], %[[DST]][%[[S1]]]
// CHECK:      %[[XD:.*]] = memref.load %[[DST]]
// CHECK:      %[[BD:.*]] = memref.load %[[DST]]
// CHECK-NEXT: %[[Q:.*]] = d2m.tile_div %[[XD]], %[[BD]]
// CHECK-NEXT: %[[S2:.*]] = arith.constant 2 : index
// CHECK-NEXT: memref.store %[[Q]], %[[DST]][%[[S2]]]
func.func @bcast_div(%x: !blk, %m: memref<2x1x!tile, #ttcore.memory_space<l1>>, %out: !blk) {
  linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d0, 0)>, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %m : !blk, memref<2x1x!tile, #ttcore.memory_space<l1>>) outs(%out : !blk) {
  ^bb0(%a: !tile, %b: !tile, %c: !tile):
    %bb = d2m.tile_bcast <col> %b : !tile
    %r = d2m.tile_div %a, %bb : !tile
    linalg.yield %r : !tile
  }
  return
}

// An accumulator whose block already holds data starts from that data.
// CHECK-LABEL: func.func @defined_init
// CHECK:      %[[DST:.*]] = d2m.acquire_dst
// CHECK-NEXT: %[[INIT:.*]] = memref.load %out[
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: memref.store %[[INIT]], %[[DST]][%[[C0]]]
// CHECK:      d2m.tile_matmul
func.func @defined_init(%a: !blk, %b: !blk, %out: !blk) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : !blk, !blk) outs(%out : !blk) {
  ^bb0(%x: !tile, %y: !tile, %acc: !tile):
    %r = d2m.tile_matmul %x, %y, %acc : !tile, !tile
    linalg.yield %r : !tile
  }
  return
}
