// RUN: %ttlang-opt %s --split-input-file -p d2m-accumulate-into-dst | FileCheck %s
// RUN: %ttlang-opt %s --split-input-file -p d2m-accumulate-into-dst,d2m-dst-allocate | FileCheck %s --check-prefix=ALLOC
// RUN: %ttlang-opt %s --split-input-file -p d2m-accumulate-into-dst,d2m-dst-allocate,d2m-lower-to-loops | FileCheck %s --check-prefix=LOOPS

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>

// acc * bcast(alpha) + p @ v: the rescaled accumulator is computed first (prologue)
// and the matmul accumulates onto it; the add is gone.
// CHECK-LABEL: func.func @matmul_onto_rescaled
// CHECK:      ^bb0(%[[P:.*]]: !ttcore.tile<32x32, bf16>, %[[V:.*]]: !ttcore.tile<32x32, bf16>, %[[ACC:.*]]: !ttcore.tile<32x32, bf16>, %[[ALPHA:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:   %[[B:.*]] = d2m.tile_bcast <col> %[[ALPHA]] {d2m.prologue}
// CHECK-NEXT:   %[[X:.*]] = d2m.tile_mul %[[ACC]], %[[B]] {d2m.prologue}
// CHECK-NEXT:   %[[M:.*]] = d2m.tile_matmul %[[P]], %[[V]], %[[X]]
// CHECK-NEXT:   linalg.yield %[[M]]
// The section: the prologue's FPU multiply once, then the K loop of matmuls, then
// the pack; no SFPU add, no separate accumulator init.
// LOOPS-LABEL: func.func @matmul_onto_rescaled
// LOOPS:      %[[DST:.*]] = d2m.acquire_dst
// LOOPS:      %[[X:.*]] = d2m.tile_mul
// LOOPS-NEXT: arith.constant 0
// LOOPS-NEXT: %[[XI:.*]] = arith.addi
// LOOPS-NEXT: memref.store %[[X]], %[[DST]][%[[XI]]]
// LOOPS-NEXT: }
// LOOPS-NEXT: }
// LOOPS:      scf.for %[[K:.*]] = %{{.*}} to
// LOOPS:      memref.load %pb[%{{.*}}, %[[K]]]
// LOOPS-NEXT: memref.load %vb[%[[K]], %{{.*}}]
// LOOPS:      %[[ACC:.*]] = memref.load %[[DST]][%[[XI2:.*]]]
// LOOPS-NEXT: d2m.tile_matmul %{{.*}}, %{{.*}}, %[[ACC]]
// LOOPS-NOT:  d2m.tile_add
// LOOPS:      d2m.commit_dst
func.func @matmul_onto_rescaled(%p: !dram, %v: !dram, %acc: !dram, %alpha: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%p, %v, %acc, %alpha : !dram, !dram, !dram, !dram) outs(%out : !dram) {
  ^bb0(%p_cb: !cb, %v_cb: !cb, %acc_cb: !cb, %alpha_cb: !cb, %out_cb: !cb):
    %pb = d2m.wait %p_cb : !cb -> !blk
    %vb = d2m.wait %v_cb : !cb -> !blk
    %ab = d2m.wait %acc_cb : !cb -> !blk
    %cb = d2m.wait %alpha_cb : !cb -> !blk
    %o = d2m.reserve %out_cb : !cb -> !blk
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, 0)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%pb, %vb, %ab, %cb : !blk, !blk, !blk, !blk) outs(%o : !blk) {
    ^bb0(%a: !tile, %b: !tile, %x: !tile, %s: !tile, %out_tile: !tile):
      %m = d2m.tile_matmul %a, %b, %out_tile : !tile, !tile
      %bs = d2m.tile_bcast <col> %s {d2m.epilogue} : !tile
      %r = d2m.tile_mul %x, %bs {d2m.epilogue} : !tile
      %sum = d2m.tile_add %r, %m {d2m.epilogue} : !tile
      linalg.yield %sum : !tile
    }
    d2m.push %out_cb : !cb
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>

// maximum(m, rowmax(s)) with m read from a CB: m is copied into DST (prologue) and the
// reduction takes the maximum onto it: no -inf fill, no SFPU maximum.
// CHECK-LABEL: func.func @max_onto_cb_tile
// CHECK:      ^bb0(%[[S:.*]]: !ttcore.tile<32x32, bf16>, %[[SC:.*]]: !ttcore.tile<32x32, bf16>, %[[M:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:   %[[C:.*]] = d2m.tile_copy %[[M]] {d2m.prologue}
// CHECK-NEXT:   %[[R:.*]] = d2m.tile_reduce_max <row> %[[S]], %[[SC]], %[[C]]
// CHECK-NEXT:   linalg.yield %[[R]]
// LOOPS-LABEL: func.func @max_onto_cb_tile
// LOOPS-NOT:  d2m.tile_fill
// LOOPS-NOT:  d2m.tile_maximum
// LOOPS:      d2m.tile_reduce_max
// LOOPS-NOT:  d2m.tile_maximum
// LOOPS:      d2m.commit_dst
func.func @max_onto_cb_tile(%s: !dram, %m: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%s, %m : !dram, !dram) outs(%out : !dram) {
  ^bb0(%s_cb: !cb, %m_cb: !cb, %out_cb: !cb):
    %sb = d2m.wait %s_cb : !cb -> !blk
    %mb = d2m.wait %m_cb : !cb -> !blk
    %o = d2m.reserve %out_cb : !cb -> !blk
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, 0)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%sb, %sb, %mb : !blk, !blk, !blk) outs(%o : !blk) {
    ^bb0(%a: !tile, %scale: !tile, %old: !tile, %out_tile: !tile):
      %r = d2m.tile_reduce_max <row> %a, %scale, %out_tile : !tile
      %new = d2m.tile_maximum %old, %r {d2m.epilogue} : !tile
      linalg.yield %new : !tile
    }
    d2m.push %out_cb : !cb
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>

// x * 0.5 + a @ b: the scalar multiply moves to the prologue; the copy of x that
// d2m-dst-allocate adds for it (an in-place SFPU op) runs in the prologue too, and the
// matmul accumulates in the same slot.
// CHECK-LABEL: func.func @matmul_onto_scaled
// CHECK:      %[[X:.*]] = d2m.tile_mul_scalar %{{.*}}, 5.000000e-01 {d2m.prologue}
// CHECK-NEXT: d2m.tile_matmul %{{.*}}, %{{.*}}, %[[X]]
// ALLOC-LABEL: func.func @matmul_onto_scaled
// ALLOC:      %[[C:.*]] = d2m.tile_copy %{{.*}} {d2m.dst_slot = 0 : i64, d2m.prologue, engine = #d2m.engine<fpu>}
// ALLOC-NEXT: %[[X:.*]] = d2m.tile_mul_scalar %[[C]], 5.000000e-01 {d2m.prologue, d2m.dst_slot = 0 : i64, engine = #d2m.engine<sfpu>}
// ALLOC-NEXT: d2m.tile_matmul %{{.*}}, %{{.*}}, %[[X]] {d2m.dst_slot = 0 : i64, engine = #d2m.engine<fpu>}
// ALLOC:      d2m.dst_slots = 1 : i64
func.func @matmul_onto_scaled(%a: !dram, %b: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%a, %b : !dram, !dram) outs(%out : !dram) {
  ^bb0(%a_cb: !cb, %b_cb: !cb, %out_cb: !cb):
    %ab = d2m.wait %a_cb : !cb -> !blk
    %bb = d2m.wait %b_cb : !cb -> !blk
    %o = d2m.reserve %out_cb : !cb -> !blk
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ab, %bb, %ab : !blk, !blk, !blk) outs(%o : !blk) {
    ^bb0(%x: !tile, %y: !tile, %z: !tile, %out_tile: !tile):
      %m = d2m.tile_matmul %x, %y, %out_tile : !tile, !tile
      %z2 = d2m.tile_mul_scalar %z, 0.5 {d2m.epilogue} : !tile
      %s = d2m.tile_add %z2, %m {d2m.epilogue} : !tile
      linalg.yield %s : !tile
    }
    d2m.push %out_cb : !cb
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>

// tril(q @ k^T, 0, -inf): the mask add (read from a CB) becomes the matmul's start, a
// prologue copy that keeps the tril diagonal (d2m-cb-start-as-add turns it back into
// an add, which d2m-lower-to-loops then runs on the diagonal's tiles only).
// CHECK-LABEL: func.func @masked_scores
// CHECK:        %[[C:.*]] = d2m.tile_copy %{{.*}} {d2m.prologue, d2m.tril_diagonal = 0 : i64}
// CHECK-NEXT:   d2m.tile_matmul %{{.*}}, %{{.*}}, %[[C]]
// CHECK-NOT:    d2m.tile_add
func.func @masked_scores(%a: !dram, %b: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%a, %b : !dram, !dram) outs(%out : !dram) {
  ^bb0(%a_cb: !cb, %b_cb: !cb, %out_cb: !cb):
    %ab = d2m.wait %a_cb : !cb -> !blk
    %bb = d2m.wait %b_cb : !cb -> !blk
    %o = d2m.reserve %out_cb : !cb -> !blk
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ab, %bb, %ab : !blk, !blk, !blk) outs(%o : !blk) {
    ^bb0(%x: !tile, %y: !tile, %mask: !tile, %out_tile: !tile):
      %m = d2m.tile_matmul %x, %y, %out_tile : !tile, !tile
      %s = d2m.tile_add %m, %mask {d2m.tril_diagonal = 0 : i64, d2m.epilogue} : !tile
      linalg.yield %s : !tile
    }
    d2m.push %out_cb : !cb
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>

// Left alone: x - a @ b (a matmul accumulates by adding); x * 2 read again after the
// add (the accumulation would overwrite it); a matmul into a block already written.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:  d2m.prologue
// CHECK:      d2m.tile_sub
// CHECK:      d2m.tile_add
// CHECK:      d2m.tile_mul
// CHECK:      d2m.tile_add
func.func @left_alone(%a: !dram, %b: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%a, %b : !dram, !dram) outs(%out : !dram) {
  ^bb0(%a_cb: !cb, %b_cb: !cb, %out_cb: !cb):
    %ab = d2m.wait %a_cb : !cb -> !blk
    %bb = d2m.wait %b_cb : !cb -> !blk
    %o = d2m.reserve %out_cb : !cb -> !blk
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ab, %bb, %ab : !blk, !blk, !blk) outs(%o : !blk) {
    ^bb0(%x: !tile, %y: !tile, %z: !tile, %out_tile: !tile):
      %m = d2m.tile_matmul %x, %y, %out_tile : !tile, !tile
      %d = d2m.tile_sub %z, %m {d2m.epilogue} : !tile
      linalg.yield %d : !tile
    }
    %o2 = d2m.reserve %out_cb : !cb -> !blk
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ab, %bb, %ab : !blk, !blk, !blk) outs(%o2 : !blk) {
    ^bb0(%x: !tile, %y: !tile, %z: !tile, %out_tile: !tile):
      %m = d2m.tile_matmul %x, %y, %out_tile : !tile, !tile
      %z2 = d2m.tile_mul_scalar %z, 2.0 {d2m.epilogue} : !tile
      %s = d2m.tile_add %z2, %m {d2m.epilogue} : !tile
      %t = d2m.tile_mul %s, %z2 {d2m.epilogue} : !tile
      linalg.yield %t : !tile
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ab, %bb, %ab : !blk, !blk, !blk) outs(%o2 : !blk) {
    ^bb0(%x: !tile, %y: !tile, %z: !tile, %out_tile: !tile):
      %m = d2m.tile_matmul %x, %y, %out_tile : !tile, !tile
      %s = d2m.tile_add %z, %m {d2m.epilogue} : !tile
      linalg.yield %s : !tile
    }
    d2m.push %out_cb : !cb
  }
  return
}
