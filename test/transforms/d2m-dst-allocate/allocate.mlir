// RUN: %ttlang-opt %s -p d2m-dst-allocate | FileCheck %s
// RUN: %ttlang-opt %s -p 'd2m-dst-allocate{report=true}' 2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT

!tile = !ttcore.tile<32x32, bf16>
!blk = memref<1x1x!tile, #ttcore.memory_space<l1>>
!blk2 = memref<2x2x!tile, #ttcore.memory_space<l1>>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!cb = !d2m.cb<!blk2>
#id = affine_map<(d0, d1) -> (d0, d1)>

// A slot is reused once its value is dead: the chain needs two slots, not five.
// The CB tile is copied into DST once; exp and sqrt run in place; the add reads %y
// from its CB and overwrites the DST operand (dest reuse).
// CHECK-LABEL: func.func @slot_reuse
// CHECK:      linalg.generic {{.*}} attrs = {{ *}}{d2m.dst_slots = 2 : i64}
// CHECK:      ^bb0(%[[X:.*]]: !ttcore.tile<32x32, bf16>, %[[Y:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:   %[[C:.*]] = d2m.tile_copy %[[X]] {d2m.dst_slot = 0 : i64, engine = #d2m.engine<fpu>}
// CHECK-NEXT:   %[[E:.*]] = d2m.tile_exp %[[C]] {d2m.dst_slot = 0 : i64, engine = #d2m.engine<sfpu>}
// CHECK-NEXT:   %[[Q:.*]] = d2m.tile_sqrt %[[E]] {d2m.dst_slot = 0 : i64, engine = #d2m.engine<sfpu>}
// CHECK-NEXT:   %[[A:.*]] = d2m.tile_add %[[Q]], %[[Y]] {d2m.dst_slot = 0 : i64, engine = #d2m.engine<dest_to_srca>}
// CHECK-NEXT:   %[[F:.*]] = d2m.tile_fill 2.000000e+00 {d2m.dst_slot = 1 : i64, engine = #d2m.engine<sfpu>}
// CHECK-NEXT:   %[[M:.*]] = d2m.tile_mul %[[A]], %[[F]] {d2m.dst_slot = 0 : i64, engine = #d2m.engine<sfpu>}
// CHECK-NEXT:   %[[F2:.*]] = d2m.tile_fill 3.000000e+00 {d2m.dst_slot = 1 : i64, engine = #d2m.engine<sfpu>}
// CHECK-NEXT:   %[[D:.*]] = d2m.tile_div %[[M]], %[[F2]] {d2m.dst_slot = 0 : i64, engine = #d2m.engine<sfpu>}
// CHECK-NEXT:   linalg.yield %[[D]]
// CHECK-NEXT: }
// REPORT: dst-report: generic [tile_copy, tile_exp, tile_sqrt, tile_add, tile_fill, tile_mul, tile_fill, tile_div]: subblock 1x1 (1 per block), peak 2/8 DST tiles, spills 0 tiles, sync sections 1
func.func @slot_reuse(%x: !blk, %y: !blk, %out: !blk) {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %y : !blk, !blk) outs(%out : !blk) {
  ^bb0(%a: !tile, %b: !tile, %c: !tile):
    %e = d2m.tile_exp %a : !tile
    %q = d2m.tile_sqrt %e : !tile
    %s = d2m.tile_add %q, %b : !tile
    %two = d2m.tile_fill 2.0 : !tile
    %m = d2m.tile_mul %s, %two : !tile
    %three = d2m.tile_fill 3.0 : !tile
    %d = d2m.tile_div %m, %three : !tile
    linalg.yield %d : !tile
  }
  return
}

// The same operand used twice is read once: from its CB by the FPU (S * S), and
// copied into DST once for the SFPU (S / S).
// CHECK-LABEL: func.func @same_operand_twice
// CHECK:      ^bb0(%[[S:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:   %[[SQ:.*]] = d2m.tile_mul %[[S]], %[[S]] {d2m.dst_slot = 0 : i64, engine = #d2m.engine<fpu>}
// CHECK-NEXT:   %[[C:.*]] = d2m.tile_copy %[[S]] {d2m.dst_slot = 1 : i64, engine = #d2m.engine<fpu>}
// CHECK-NEXT:   %[[ONE:.*]] = d2m.tile_div %[[C]], %[[C]] {d2m.dst_slot = 1 : i64, engine = #d2m.engine<sfpu>}
// CHECK-NEXT:   %[[R:.*]] = d2m.tile_sub %[[SQ]], %[[ONE]] {d2m.dst_slot = 0 : i64, engine = #d2m.engine<sfpu>}
// CHECK-NEXT:   linalg.yield %[[R]]
// CHECK-NEXT: }
func.func @same_operand_twice(%x: !blk, %out: !blk) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !blk) outs(%out : !blk) {
  ^bb0(%s: !tile, %c: !tile):
    %sq = d2m.tile_mul %s, %s : !tile
    %one = d2m.tile_div %s, %s : !tile
    %r = d2m.tile_sub %sq, %one : !tile
    linalg.yield %r : !tile
  }
  return
}

// An in-place op whose operand is used again works on a copy: a DST-to-DST copy of
// the computed %m (the CB tile %s would simply be copied again from its CB).
// CHECK-LABEL: func.func @in_place_on_live_value
// CHECK:        %[[M:.*]] = d2m.tile_mul %{{.*}}, %{{.*}} {d2m.dst_slot = 0 : i64, engine = #d2m.engine<fpu>}
// CHECK-NEXT:   %[[C:.*]] = d2m.tile_copy %[[M]] {d2m.dst_slot = 1 : i64, engine = #d2m.engine<sfpu>}
// CHECK-NEXT:   %[[E:.*]] = d2m.tile_exp %[[C]] {d2m.dst_slot = 1 : i64, engine = #d2m.engine<sfpu>}
// CHECK-NEXT:   %[[R:.*]] = d2m.tile_mul %[[M]], %[[E]] {d2m.dst_slot = 0 : i64, engine = #d2m.engine<sfpu>}
func.func @in_place_on_live_value(%x: !blk, %out: !blk) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !blk) outs(%out : !blk) {
  ^bb0(%s: !tile, %c: !tile):
    %m = d2m.tile_mul %s, %s : !tile
    %e = d2m.tile_exp %m : !tile
    %r = d2m.tile_mul %m, %e : !tile
    linalg.yield %r : !tile
  }
  return
}

// An in-place op on a CB tile that is already copied to DST and used again takes a
// copy of its own from the CB (FPU copy_tile of %s), not a DST-to-DST copy of the CB
// tile (the fuzzer found maximum(x, -0.5) - (3.0 - x) emitting an SFPU copy of %s).
// CHECK-LABEL: func.func @in_place_on_copied_cb_tile
// CHECK:      ^bb0(%[[S:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:   %[[F:.*]] = d2m.tile_fill -5.000000e-01 {d2m.dst_slot = 0 : i64, engine = #d2m.engine<sfpu>}
// CHECK-NEXT:   %[[C1:.*]] = d2m.tile_copy %[[S]] {d2m.dst_slot = 1 : i64, engine = #d2m.engine<fpu>}
// CHECK-NEXT:   %[[M:.*]] = d2m.tile_maximum %[[C1]], %[[F]] {d2m.dst_slot = 0 : i64, engine = #d2m.engine<sfpu>}
// CHECK-NEXT:   %[[C2:.*]] = d2m.tile_copy %[[S]] {d2m.dst_slot = 2 : i64, engine = #d2m.engine<fpu>}
// CHECK-NEXT:   %[[R:.*]] = d2m.tile_rsub_scalar %[[C2]], 3.000000e+00 {d2m.dst_slot = 2 : i64, engine = #d2m.engine<sfpu>}
// CHECK-NEXT:   %[[D:.*]] = d2m.tile_sub %[[M]], %[[R]] {d2m.dst_slot = 0 : i64, engine = #d2m.engine<sfpu>}
// CHECK-NEXT:   %[[P:.*]] = d2m.tile_mul %[[D]], %[[S]] {d2m.dst_slot = 0 : i64, engine = #d2m.engine<dest_to_srca>}
func.func @in_place_on_copied_cb_tile(%x: !blk, %out: !blk) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !blk) outs(%out : !blk) {
  ^bb0(%s: !tile, %c: !tile):
    %f = d2m.tile_fill -0.5 : !tile
    %m = d2m.tile_maximum %s, %f : !tile
    %r = d2m.tile_rsub_scalar %s, 3.0 : !tile
    %d = d2m.tile_sub %m, %r : !tile
    %p = d2m.tile_mul %d, %s : !tile
    linalg.yield %p : !tile
  }
  return
}

// A 2x2 block in one section: each slot holds four tiles, so 8 DST tiles give two
// slots; the body needs three at once: the section spills %a and %b to an L1 CB
// (two values x four tiles) and reads them back from there, the FPU directly.
// CHECK-LABEL: func.func @spill
// CHECK:      %[[SPILL_CB:.*]] = d2m.local_cb : !d2m.cb<memref<2x4x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>, 1>
// CHECK:      ^bb0(%{{.*}}: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:   %[[A:.*]] = d2m.tile_fill 1.000000e+00 {d2m.dst_slot = 0 : i64, engine = #d2m.engine<sfpu>}
// CHECK-NEXT:   %[[B:.*]] = d2m.tile_fill 2.000000e+00 {d2m.dst_slot = 1 : i64, engine = #d2m.engine<sfpu>}
// CHECK-NEXT:   %[[SA:.*]], %[[SB:.*]] = d2m.dst_spill %[[SPILL_CB]], %[[A]], %[[B]]
// CHECK-NEXT:   %[[C:.*]] = d2m.tile_fill 3.000000e+00 {d2m.dst_slot = 0 : i64, engine = #d2m.engine<sfpu>}
// CHECK-NEXT:   %[[AB:.*]] = d2m.tile_add %[[SA]], %[[SB]] {d2m.dst_slot = 1 : i64, engine = #d2m.engine<fpu>}
// CHECK-NEXT:   %[[ABC:.*]] = d2m.tile_add %[[AB]], %[[C]] {d2m.dst_slot = 1 : i64, engine = #d2m.engine<sfpu>}
// CHECK-NEXT:   %[[R:.*]] = d2m.tile_mul %[[ABC]], %[[SA]] {d2m.dst_slot = 1 : i64, engine = #d2m.engine<dest_to_srca>}
// CHECK-NEXT:   linalg.yield %[[R]]
// CHECK-NEXT: }
// REPORT: dst-report: generic [tile_fill, tile_fill, dst_spill, tile_fill, tile_add, tile_add, tile_mul]: subblock 2x2 (1 per block), peak 8/8 DST tiles, spills 8 tiles, sync sections 2
func.func @spill(%out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins() outs(%out : !dram) {
  ^bb0(%out_cb: !cb):
    %o = d2m.reserve %out_cb : !cb -> !blk2
    linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%o : !blk2) {
    ^bb0(%c: !tile):
      %a = d2m.tile_fill 1.0 : !tile
      %b = d2m.tile_fill 2.0 : !tile
      %c3 = d2m.tile_fill 3.0 : !tile
      %ab = d2m.tile_add %a, %b : !tile
      %abc = d2m.tile_add %ab, %c3 : !tile
      %r = d2m.tile_mul %abc, %a : !tile
      linalg.yield %r : !tile
    }
    d2m.push %out_cb : !cb
  }
  return
}

// Column vectors (`d2m.column_vectors`, the frontend's (R, 1) blocks): a sub with both
// operands from CBs reads its rhs column-broadcast (engine fpu_bcast_col); unmarked,
// the same sub is a plain FPU sub; marked but with the lhs computed in DST, the sub
// stays dest reuse (the broadcast form needs both operands from CBs).
// CHECK-LABEL: func.func @column_vectors
// CHECK:      ^bb0(%[[M:.*]]: !ttcore.tile<32x32, bf16>, %[[N:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:   %[[D:.*]] = d2m.tile_sub %[[M]], %[[N]] {d2m.column_vectors, d2m.dst_slot = 0 : i64, engine = #d2m.engine<fpu_bcast_col>}
// CHECK-NEXT:   %[[P:.*]] = d2m.tile_sub %[[M]], %[[N]] {d2m.dst_slot = 1 : i64, engine = #d2m.engine<fpu>}
// CHECK-NEXT:   %[[E:.*]] = d2m.tile_exp %[[D]] {d2m.dst_slot = 0 : i64, engine = #d2m.engine<sfpu>}
// CHECK-NEXT:   %[[R:.*]] = d2m.tile_sub %[[E]], %[[N]] {d2m.column_vectors, d2m.dst_slot = 0 : i64, engine = #d2m.engine<dest_to_srca>}
func.func @column_vectors(%m: !blk, %n: !blk, %out: !blk) {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%m, %n : !blk, !blk) outs(%out : !blk) {
  ^bb0(%a: !tile, %b: !tile, %c: !tile):
    %d = d2m.tile_sub %a, %b {d2m.column_vectors} : !tile
    %p = d2m.tile_sub %a, %b : !tile
    %e = d2m.tile_exp %d : !tile
    %r = d2m.tile_sub %e, %b {d2m.column_vectors} : !tile
    %s = d2m.tile_add %r, %p : !tile
    linalg.yield %s : !tile
  }
  return
}
