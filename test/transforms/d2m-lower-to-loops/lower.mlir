// RUN: %ttlang-opt %s -p d2m-lower-to-loops | FileCheck %s

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>
#id = affine_map<(d0, d1) -> (d0, d1)>

// One section for the whole 2x2 block: the FPU add runs over the four tiles (its own
// loop nest), reading both operands from their CBs; slot 0 holds tile t at index 0*4+t.
// CHECK-LABEL: func.func @fpu_binary
// CHECK:      %[[DST:.*]] = d2m.acquire_dst : memref<8x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dst>>
// CHECK:      scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step
// CHECK:        scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT:     %[[I:.*]] = arith.addi %{{.*}}, %[[R]] : index
// CHECK-NEXT:     %[[J:.*]] = arith.addi %{{.*}}, %[[C]] : index
// CHECK-NEXT:     %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:     %[[ROW:.*]] = arith.muli %[[R]], %[[TWO]] : index
// CHECK-NEXT:     %[[T:.*]] = arith.addi %[[ROW]], %[[C]] : index
// CHECK-NEXT:     %[[A:.*]] = memref.load %lhs[%[[I]], %[[J]]]
// CHECK-NEXT:     %[[B:.*]] = memref.load %rhs[%[[I]], %[[J]]]
// CHECK-NEXT:     %[[S:.*]] = d2m.tile_add %[[A]], %[[B]]
// CHECK-NEXT:     %[[BASE:.*]] = arith.constant 0 : index
// CHECK-NEXT:     %[[INDEX:.*]] = arith.addi %[[BASE]], %[[T]] : index
// CHECK-NEXT:     memref.store %[[S]], %[[DST]][%[[INDEX]]]
// CHECK:      d2m.commit_dst %[[DST]]
// CHECK-NEXT: d2m.wait_dst %[[DST]]
// CHECK:          %[[P:.*]] = memref.load %[[DST]][%{{.*}}]
// CHECK-NEXT:     memref.store %[[P]], %out[%{{.*}}, %{{.*}}]
// CHECK:      d2m.release_dst %[[DST]]
func.func @fpu_binary(%lhs: !blk, %rhs: !blk, %out: !blk) {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%lhs, %rhs : !blk, !blk) outs(%out : !blk) attrs = {d2m.dst_slots = 1 : i64} {
  ^bb0(%a: !tile, %b: !tile, %c: !tile):
    %r = d2m.tile_add %a, %b {d2m.dst_slot = 0 : i64} : !tile
    linalg.yield %r : !tile
  }
  return
}

// 1x2 subblocks: a loop over the two block rows, a section each; the copy (copy_tile)
// and the in-place exp each run over the subblock's two tiles.
// CHECK-LABEL: func.func @subblocks
// CHECK:      scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT:   %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:   %[[DST:.*]] = d2m.acquire_dst
// CHECK:        scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT:     %[[I:.*]] = arith.addi %[[ROW]], %{{.*}} : index
// CHECK-NEXT:     %[[J:.*]] = arith.addi %[[ZERO]], %[[C]] : index
// CHECK:          %[[X:.*]] = memref.load %in[%[[I]], %[[J]]]
// CHECK:          memref.store %[[X]], %[[DST]][%{{.*}}]
// CHECK:        scf.for
// CHECK:          %[[XD:.*]] = memref.load %[[DST]][%{{.*}}]
// CHECK-NEXT:     %[[E:.*]] = d2m.tile_exp %[[XD]]
// CHECK:          memref.store %[[E]], %[[DST]][%{{.*}}]
// CHECK:        d2m.commit_dst %[[DST]]
// CHECK:        d2m.release_dst %[[DST]]
// CHECK-NEXT: }
func.func @subblocks(%in: !blk, %out: !blk) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%in : !blk) outs(%out : !blk) attrs = {d2m.subblock = array<i64: 1, 2>, d2m.dst_slots = 1 : i64} {
  ^bb0(%a: !tile, %c: !tile):
    %x = d2m.tile_copy %a {d2m.dst_slot = 0 : i64, engine = #d2m.engine<fpu>} : !tile
    %e = d2m.tile_exp %x {d2m.dst_slot = 0 : i64} : !tile
    linalg.yield %e : !tile
  }
  return
}

// Matmul with a fused epilogue: the K loop accumulates in DST inside the section, the
// epilogue (dest-reuse subtract of %c, then exp) runs once after it, before the pack.
// CHECK-LABEL: func.func @matmul_epilogue
// CHECK:      %[[DST:.*]] = d2m.acquire_dst
// CHECK:          memref.load %out[
// CHECK-NOT:  d2m.commit_dst
// CHECK:      scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step
// CHECK:            %[[A:.*]] = memref.load %a[%{{.*}}, %[[K]]]
// CHECK-NEXT:       %[[B:.*]] = memref.load %b[%[[K]], %{{.*}}]
// CHECK:            %[[ACC:.*]] = memref.load %[[DST]]
// CHECK-NEXT:       %[[M:.*]] = d2m.tile_matmul %[[A]], %[[B]], %[[ACC]]
// CHECK:            memref.store %[[M]], %[[DST]]
// CHECK-NOT:  d2m.commit_dst
// CHECK:          %[[MD:.*]] = memref.load %[[DST]]
// CHECK-NEXT:     %[[CT:.*]] = memref.load %c[
// CHECK-NEXT:     %[[S:.*]] = d2m.tile_sub %[[MD]], %[[CT]]
// CHECK:          d2m.tile_exp
// CHECK:      d2m.commit_dst %[[DST]]
func.func @matmul_epilogue(%a: !blk, %b: !blk, %c: !blk, %out: !blk) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b, %c : !blk, !blk, !blk) outs(%out : !blk) attrs = {d2m.dst_slots = 1 : i64} {
  ^bb0(%p: !tile, %q: !tile, %r: !tile, %acc: !tile):
    %m = d2m.tile_matmul %p, %q, %acc {d2m.dst_slot = 0 : i64} : !tile, !tile
    %s = d2m.tile_sub %m, %r {d2m.epilogue, d2m.dst_slot = 0 : i64} : !tile
    %e = d2m.tile_exp %s {d2m.epilogue, d2m.dst_slot = 0 : i64} : !tile
    linalg.yield %e : !tile
  }
  return
}

// A max reduction into a just-reserved block starts from -inf (DST starts at zero).
// CHECK-LABEL: func.func @row_max
// CHECK:      %[[DST:.*]] = d2m.acquire_dst
// CHECK:      %[[INIT:.*]] = d2m.tile_fill 0xff800000
// CHECK:      memref.store %[[INIT]], %[[DST]][%{{.*}}]
// CHECK:      scf.for
// CHECK:        d2m.tile_reduce_max <row>
func.func @row_max(%in: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %x = d2m.wait %in_cb : !cb -> !blk
    %s = d2m.wait %in_cb : !cb -> !blk
    %o = d2m.reserve %out_cb : !cb -> !blk
    linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (0, 0)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%x, %s : !blk, !blk) outs(%o : !blk) attrs = {d2m.dst_slots = 1 : i64} {
    ^bb0(%a: !tile, %sc: !tile, %acc: !tile):
      %r = d2m.tile_reduce_max <row> %a, %sc, %acc {d2m.dst_slot = 0 : i64} : !tile
      linalg.yield %r : !tile
    }
  }
  return
}

// A broadcast without a slot stays on the FPU subtract that reads it: the FPU
// broadcasts the CB tile while unpacking it.
// CHECK-LABEL: func.func @bcast_sub
// CHECK:      %[[X:.*]] = memref.load %x[
// CHECK:      %[[M:.*]] = memref.load %m[%{{.*}}, %{{.*}}]
// CHECK-NEXT: %[[B:.*]] = d2m.tile_bcast <col> %[[M]]
// CHECK-NEXT: %[[D:.*]] = d2m.tile_sub %[[X]], %[[B]]
func.func @bcast_sub(%x: !blk, %m: memref<2x1x!tile, #ttcore.memory_space<l1>>, %out: !blk) {
  linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d0, 0)>, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %m : !blk, memref<2x1x!tile, #ttcore.memory_space<l1>>) outs(%out : !blk) attrs = {d2m.dst_slots = 1 : i64} {
  ^bb0(%a: !tile, %b: !tile, %c: !tile):
    %bb = d2m.tile_bcast <col> %b : !tile
    %r = d2m.tile_sub %a, %bb {d2m.dst_slot = 0 : i64} : !tile
    linalg.yield %r : !tile
  }
  return
}

// A spill ends the section: the spilled slots are packed into a block reserved on
// the spill CB, DST is released, the block is pushed and waited for, a new section
// starts and reads the spilled tiles from that block; the block is popped at the end.
// CHECK-LABEL: func.func @spill
// CHECK:      %[[DST:.*]] = d2m.acquire_dst
// CHECK:      d2m.tile_fill 1.0
// CHECK:      %[[SPILL:.*]] = d2m.reserve %[[CB:.*]] : !d2m.cb<memref<1x4x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>, 1>
// CHECK-NEXT: d2m.commit_dst %[[DST]]
// CHECK-NEXT: d2m.wait_dst %[[DST]]
// CHECK:          %[[V:.*]] = memref.load %[[DST]][%{{.*}}]
// CHECK:          memref.store %[[V]], %[[SPILL]][%{{.*}}, %{{.*}}]
// CHECK:      d2m.release_dst %[[DST]]
// CHECK-NEXT: d2m.push %[[CB]]
// CHECK-NEXT: %[[BACK:.*]] = d2m.wait %[[CB]]
// CHECK-NEXT: %[[DST2:.*]] = d2m.acquire_dst
// CHECK:          d2m.tile_fill 2.0
// CHECK:          %[[A:.*]] = memref.load %[[BACK]][%{{.*}}, %{{.*}}]
// CHECK:          %[[F:.*]] = memref.load %[[DST2]][%{{.*}}]
// CHECK-NEXT:     d2m.tile_add %[[A]], %[[F]]
// CHECK:      d2m.commit_dst %[[DST2]]
// CHECK:      d2m.release_dst %[[DST2]]
// CHECK-NEXT: d2m.pop %[[CB]]
func.func @spill(%out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins() outs(%out : !dram) {
  ^bb0(%out_cb: !cb):
    %spill_cb = d2m.local_cb : !d2m.cb<memref<1x4x!tile, #ttcore.memory_space<l1>>, 1>
    %o = d2m.reserve %out_cb : !cb -> !blk
    linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%o : !blk) attrs = {d2m.dst_slots = 1 : i64} {
    ^bb0(%c: !tile):
      %a = d2m.tile_fill 1.0 {d2m.dst_slot = 0 : i64} : !tile
      %s = d2m.dst_spill %spill_cb, %a : !d2m.cb<memref<1x4x!tile, #ttcore.memory_space<l1>>, 1>, !tile -> !tile
      %b = d2m.tile_fill 2.0 {d2m.dst_slot = 0 : i64} : !tile
      %r = d2m.tile_add %s, %b {d2m.dst_slot = 0 : i64} : !tile
      linalg.yield %r : !tile
    }
    d2m.push %out_cb : !cb
  }
  return
}

// An accumulator whose block already holds data starts from that data.
// CHECK-LABEL: func.func @defined_init
// CHECK:      %[[DST:.*]] = d2m.acquire_dst
// CHECK:      %[[INIT:.*]] = memref.load %out[
// CHECK:      memref.store %[[INIT]], %[[DST]][%{{.*}}]
// CHECK:      d2m.tile_matmul
func.func @defined_init(%a: !blk, %b: !blk, %out: !blk) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : !blk, !blk) outs(%out : !blk) attrs = {d2m.dst_slots = 1 : i64} {
  ^bb0(%p: !tile, %q: !tile, %acc: !tile):
    %m = d2m.tile_matmul %p, %q, %acc {d2m.dst_slot = 0 : i64} : !tile, !tile
    linalg.yield %m : !tile
  }
  return
}

// A fill makes the same tile everywhere: it is filled once, into the first tile of its
// slot (no loop over the subblock), and every tile of the block is packed from there,
// and so is an op reading it (here the add, from DST index 4 + 0 for every tile; it
// writes slot 0, not the fill's). A fill generic (nothing but a fill) is one section
// whatever its subblock: it fills one DST tile.
// CHECK-LABEL: func.func @fill_once
// CHECK:      %[[DST:.*]] = d2m.acquire_dst
// CHECK-NEXT: %[[F:.*]] = d2m.tile_fill -3.0
// CHECK-NEXT: %[[I:.*]] = arith.constant 0 : index
// CHECK-NEXT: memref.store %[[F]], %[[DST]][%[[I]]]
// CHECK-NOT:  d2m.tile_fill
// CHECK:      d2m.commit_dst %[[DST]]
// CHECK-NEXT: d2m.wait_dst %[[DST]]
// CHECK:        scf.for
// CHECK:          arith.muli
// CHECK-NEXT:     arith.addi
// CHECK-NEXT:     %[[I2:.*]] = arith.constant 0 : index
// CHECK-NEXT:     %[[P:.*]] = memref.load %[[DST]][%[[I2]]]
// CHECK-NEXT:     memref.store %[[P]], %out[%{{.*}}, %{{.*}}]
// CHECK:      d2m.release_dst %[[DST]]
// CHECK-NOT:  d2m.acquire_dst
// CHECK-LABEL: func.func @fill_read
// CHECK:      d2m.tile_fill 2.0
// CHECK-NOT:  d2m.tile_fill
// CHECK:          %[[A:.*]] = memref.load %in[
// CHECK-NEXT:     %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:     %[[B:.*]] = arith.constant 4 : index
// CHECK-NEXT:     %[[I:.*]] = arith.addi %[[B]], %[[Z]] : index
// CHECK-NEXT:     %[[F:.*]] = memref.load %{{.*}}[%[[I]]]
// CHECK-NEXT:     d2m.tile_add %[[A]], %[[F]]
func.func @fill_once(%out: !blk) {
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%out : !blk) attrs = {d2m.subblock = array<i64: 1, 2>, d2m.dst_slots = 1 : i64} {
  ^bb0(%c: !tile):
    %f = d2m.tile_fill -3.0 {d2m.dst_slot = 0 : i64} : !tile
    linalg.yield %f : !tile
  }
  return
}
func.func @fill_read(%in: !blk, %out: !blk) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%in : !blk) outs(%out : !blk) attrs = {d2m.dst_slots = 2 : i64} {
  ^bb0(%a: !tile, %c: !tile):
    %f = d2m.tile_fill 2.0 {d2m.dst_slot = 1 : i64} : !tile
    %r = d2m.tile_add %a, %f {d2m.dst_slot = 0 : i64} : !tile
    linalg.yield %r : !tile
  }
  return
}

// An op using the fill in place (its result in the fill's slot) would overwrite the one
// tile before reading it for the next: that fill is filled per tile.
// CHECK-LABEL: func.func @fill_in_place
// CHECK:      d2m.acquire_dst
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: arith.constant 2 : index
// CHECK-NEXT: arith.constant 1 : index
// CHECK-NEXT: scf.for
// CHECK:          d2m.tile_fill 2.0
// CHECK:      d2m.tile_exp
func.func @fill_in_place(%out: !blk) {
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%out : !blk) attrs = {d2m.dst_slots = 1 : i64} {
  ^bb0(%c: !tile):
    %f = d2m.tile_fill 2.0 {d2m.dst_slot = 0 : i64} : !tile
    %e = d2m.tile_exp %f {d2m.dst_slot = 0 : i64} : !tile
    linalg.yield %e : !tile
  }
  return
}

// Adjacent fill generics (only reserves between them) share one section: the reserves
// move before the first, each distinct value is filled once into a DST tile of its own,
// +0.0 first (tile 0; -5.0 and 2.0 after it), and every block is packed from its
// value's tile, in the generics' order. The f32 fill (another tile type), the push and
// the generic reading a block end runs: each gets its own section.
// CHECK-LABEL: func.func @fill_run
// CHECK:      %[[RA:.*]] = d2m.reserve %[[A:[a-z]+]] :
// CHECK-NEXT: %[[RB:.*]] = d2m.reserve %[[B:[a-z]+]] :
// CHECK-NEXT: %[[RC:.*]] = d2m.reserve %[[C:[a-z]+]] :
// CHECK-NEXT: %[[RD:.*]] = d2m.reserve %[[D:[a-z]+]] :
// CHECK-NEXT: %[[DST:.*]] = d2m.acquire_dst
// CHECK-NEXT: %[[Z:.*]] = d2m.tile_fill 0.0
// CHECK-NEXT: %[[I0:.*]] = arith.constant 0 : index
// CHECK-NEXT: memref.store %[[Z]], %[[DST]][%[[I0]]]
// CHECK-NEXT: %[[N:.*]] = d2m.tile_fill -5.0
// CHECK-NEXT: %[[I1:.*]] = arith.constant 1 : index
// CHECK-NEXT: memref.store %[[N]], %[[DST]][%[[I1]]]
// CHECK-NEXT: %[[T:.*]] = d2m.tile_fill 2.0
// CHECK-NEXT: %[[I2:.*]] = arith.constant 2 : index
// CHECK-NEXT: memref.store %[[T]], %[[DST]][%[[I2]]]
// CHECK-NEXT: d2m.commit_dst %[[DST]]
// CHECK-NEXT: d2m.wait_dst %[[DST]]
// CHECK:          arith.muli
// CHECK-NEXT:     arith.addi
// CHECK-NEXT:     %[[J1:.*]] = arith.constant 1 : index
// CHECK-NEXT:     %[[P1:.*]] = memref.load %[[DST]][%[[J1]]]
// CHECK-NEXT:     memref.store %[[P1]], %[[RA]][
// CHECK:          arith.muli
// CHECK-NEXT:     arith.addi
// CHECK-NEXT:     %[[J0:.*]] = arith.constant 0 : index
// CHECK-NEXT:     %[[P0:.*]] = memref.load %[[DST]][%[[J0]]]
// CHECK-NEXT:     memref.store %[[P0]], %[[RB]][
// CHECK:          arith.muli
// CHECK-NEXT:     arith.addi
// CHECK-NEXT:     %[[J2:.*]] = arith.constant 2 : index
// CHECK-NEXT:     %[[P2:.*]] = memref.load %[[DST]][%[[J2]]]
// CHECK-NEXT:     memref.store %[[P2]], %[[RC]][
// CHECK:          arith.muli
// CHECK-NEXT:     arith.addi
// CHECK-NEXT:     %[[J3:.*]] = arith.constant 2 : index
// CHECK-NEXT:     %[[P3:.*]] = memref.load %[[DST]][%[[J3]]]
// CHECK-NEXT:     memref.store %[[P3]], %[[RD]][
// CHECK:      d2m.release_dst %[[DST]]
// CHECK-NEXT: d2m.reserve %f
// CHECK-NEXT: d2m.acquire_dst : memref<8x!ttcore.tile<32x32, f32>
// CHECK:      d2m.release_dst
// CHECK-NEXT: d2m.push %[[A]]
// CHECK-NEXT: d2m.acquire_dst
// CHECK:      d2m.release_dst
// CHECK:      d2m.reserve %e
// CHECK:      d2m.acquire_dst
// CHECK:      d2m.tile_exp
// CHECK:      d2m.release_dst
// CHECK-NOT:  d2m.acquire_dst
!ftile = !ttcore.tile<32x32, f32>
!fblk = memref<2x2x!ftile, #ttcore.memory_space<l1>>
!fcb = !d2m.cb<!fblk>
func.func @fill_run(%a: !cb, %b: !cb, %c: !cb, %d: !cb, %e: !cb, %f: !fcb) {
  %ra = d2m.reserve %a : !cb -> !blk
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%ra : !blk) attrs = {d2m.dst_slots = 1 : i64} {
  ^bb0(%o: !tile):
    %v = d2m.tile_fill -5.0 {d2m.dst_slot = 0 : i64} : !tile
    linalg.yield %v : !tile
  }
  %rb = d2m.reserve %b : !cb -> !blk
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%rb : !blk) attrs = {d2m.dst_slots = 1 : i64} {
  ^bb0(%o: !tile):
    %v = d2m.tile_fill 0.0 {d2m.dst_slot = 0 : i64} : !tile
    linalg.yield %v : !tile
  }
  %rc = d2m.reserve %c : !cb -> !blk
  %rd = d2m.reserve %d : !cb -> !blk
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} outs(%rc, %rd : !blk, !blk) attrs = {d2m.dst_slots = 1 : i64} {
  ^bb0(%o: !tile, %o2: !tile):
    %v = d2m.tile_fill 2.0 {d2m.dst_slot = 0 : i64} : !tile
    linalg.yield %v, %v : !tile, !tile
  }
  %rf = d2m.reserve %f : !fcb -> !fblk
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%rf : !fblk) attrs = {d2m.dst_slots = 1 : i64} {
  ^bb0(%o: !ftile):
    %v = d2m.tile_fill 0.0 {d2m.dst_slot = 0 : i64} : !ftile
    linalg.yield %v : !ftile
  }
  d2m.push %a : !cb
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%ra : !blk) attrs = {d2m.dst_slots = 1 : i64} {
  ^bb0(%o: !tile):
    %v = d2m.tile_fill 1.0 {d2m.dst_slot = 0 : i64} : !tile
    linalg.yield %v : !tile
  }
  %x = d2m.wait %b : !cb -> !blk
  %re = d2m.reserve %e : !cb -> !blk
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%re : !blk) attrs = {d2m.dst_slots = 1 : i64} {
  ^bb0(%o: !tile):
    %v = d2m.tile_fill 1.0 {d2m.dst_slot = 0 : i64} : !tile
    %w = d2m.tile_exp %v {d2m.dst_slot = 0 : i64} : !tile
    linalg.yield %w : !tile
  }
  return
}

// An operand read through a sum of dimensions and constants (tril()'s mask band: tile
// d1 - d0 + 1 of a 1x3 band for a 2x2 block): the index is computed per tile.
!band = memref<1x3x!tile, #ttcore.memory_space<l1>>
// CHECK-LABEL: func.func @band_operand
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:             %[[ROW:.*]] = arith.addi %{{.*}}, %[[I]] : index
// CHECK:             %[[COL:.*]] = arith.addi %{{.*}}, %[[J]] : index
// CHECK:             %[[ZERO:.*]] = arith.constant 0 : index
// CHECK:             %[[MINUS:.*]] = arith.constant -1 : index
// CHECK:             %[[NEG_ROW:.*]] = arith.muli %[[ROW]], %[[MINUS]] : index
// CHECK:             %[[DIFF:.*]] = arith.addi %[[COL]], %[[NEG_ROW]] : index
// CHECK:             %[[ONE:.*]] = arith.constant 1 : index
// CHECK:             %[[TILE:.*]] = arith.addi %[[DIFF]], %[[ONE]] : index
// CHECK:             memref.load %{{.*}}[%[[ZERO]], %[[TILE]]] : memref<1x3x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
func.func @band_operand(%in: !band, %out: !blk) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (0, d1 - d0 + 1)>, #id], iterator_types = ["parallel", "parallel"]} ins(%in : !band) outs(%out : !blk) attrs = {d2m.dst_slots = 1 : i64} {
  ^bb0(%a: !tile, %c: !tile):
    %x = d2m.tile_copy %a {d2m.dst_slot = 0 : i64, engine = #d2m.engine<fpu>} : !tile
    linalg.yield %x : !tile
  }
  return
}

// Skipped iterations (`d2m.triangles`, d2m-skip-masked-tiles): a section whose every
// output tile lies above the diagonal is not run at all (its lowest, leftmost tile
// (i, 0) is compared); within a section every tile's work and pack is guarded by
// `col - row <= diagonal`; a reduction over the cols dim skips its tiles past the row's
// diagonal.
!col = memref<2x1x!tile, #ttcore.memory_space<l1>>
!one = memref<1x1x!tile, #ttcore.memory_space<l1>>
// CHECK-LABEL: func.func @skipped_tiles
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           %[[FIRST_COL:.*]] = arith.constant 0 : index
// CHECK:           %[[LAST_ROW:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK:           %[[OFF:.*]] = arith.subi %[[FIRST_COL]], %[[LAST_ROW]] : index
// CHECK:           %[[SECTION:.*]] = arith.cmpi sle, %[[OFF]], %{{.*}} : index
// CHECK:           scf.if %[[SECTION]] {
// CHECK:             d2m.acquire_dst
// CHECK:             scf.for
// CHECK:               %[[ROW:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK:               %[[COL:.*]] = arith.addi %[[FIRST_COL]], %{{.*}} : index
// CHECK:               %[[TILE_OFF:.*]] = arith.subi %[[COL]], %[[ROW]] : index
// CHECK:               %[[KEPT:.*]] = arith.cmpi sle, %[[TILE_OFF]], %{{.*}} : index
// CHECK:               scf.if %[[KEPT]] {
// CHECK:                 memref.load %{{.*}}[%[[ROW]], %[[COL]]]
// CHECK:               scf.if
// CHECK:                 d2m.tile_exp
// CHECK:             d2m.wait_dst
// CHECK:               scf.if
// CHECK:                 memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<2x2x
// CHECK:             d2m.release_dst
func.func @skipped_tiles(%in: !blk, %out: !blk) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%in : !blk) outs(%out : !blk) attrs = {d2m.dst_slots = 1 : i64, d2m.subblock = array<i64: 1, 2>, d2m.triangles = [#d2m.triangle<rows = 0, cols = 1, diagonal = 0>]} {
  ^bb0(%a: !tile, %c: !tile):
    %x = d2m.tile_copy %a {d2m.dst_slot = 0 : i64, engine = #d2m.engine<fpu>} : !tile
    %e = d2m.tile_exp %x {d2m.dst_slot = 0 : i64, engine = #d2m.engine<sfpu>} : !tile
    linalg.yield %e : !tile
  }
  return
}
// CHECK-LABEL: func.func @shorter_reduction
// CHECK:         memref.load %out
// CHECK:         scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:             %[[ROW:.*]] = arith.addi %{{.*}}, %[[T]] : index
// CHECK:             %[[OFF:.*]] = arith.subi %[[K]], %[[ROW]] : index
// CHECK:             %[[KEPT:.*]] = arith.cmpi sle, %[[OFF]], %{{.*}} : index
// CHECK:             scf.if %[[KEPT]] {
// CHECK:               d2m.tile_reduce_sum <row>
func.func @shorter_reduction(%in: !blk, %ones: !one, %out: !col) {
  linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (0, 0)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%in, %ones : !blk, !one) outs(%out : !col) attrs = {d2m.dst_slots = 1 : i64, d2m.triangles = [#d2m.triangle<rows = 0, cols = 1, diagonal = 0>]} {
  ^bb0(%a: !tile, %s: !tile, %acc: !tile):
    %r = d2m.tile_reduce_sum <row> %a, %s, %acc {d2m.dst_slot = 0 : i64, engine = #d2m.engine<fpu>} : !tile
    linalg.yield %r : !tile
  }
  return
}
