// RUN: %ttlang-opt %s --split-input-file -p d2m-row-sum-on-pack | FileCheck %s
// RUN: %ttlang-opt %s --split-input-file -p d2m-row-sum-on-pack,d2m-tile-subblock,d2m-dst-allocate,d2m-lower-to-loops | FileCheck %s --check-prefix=LOOPS

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x3x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x3x!tile, #ttcore.memory_space<l1>>
!col = memref<2x1x!tile, #ttcore.memory_space<l1>>

// A step of a softmax denominator after d2m-deferred-row-sum and d2m-accumulate-into-dst:
// p = exp(x - bcast(m)) is computed in DST, then L' = L * bcast(a) + p's tiles. The
// generic computing p packs each tile onto L' too (output 1, summed); the update keeps
// the rescale, all-parallel over L's tiles, its packs added onto the block by the packer.
// CHECK-LABEL: func.func @denominator
// CHECK:      %[[LN:.*]] = d2m.reserve %[[LCB:.*]] :
// CHECK:      %[[PB:.*]] = d2m.reserve %[[PCB:.*]] :
// CHECK-NEXT: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "parallel"]} ins(%x, %m : {{.*}}) outs(%[[PB]], %[[LN]] : {{.*}}) attrs = {{ *}}{d2m.summed_outputs = array<i64: 1>}
// CHECK-NEXT: ^bb0(%{{.*}}: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
// CHECK:        %[[E:.*]] = d2m.tile_exp
// CHECK-NEXT:   linalg.yield %[[E]], %[[E]] : !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>
// CHECK:      d2m.push %[[PCB]]
// CHECK-NEXT: %[[P:.*]] = d2m.wait %[[PCB]]
// CHECK-NEXT: %[[ON:.*]] = arith.constant true
// CHECK-NEXT: d2m.pack_l1_acc %[[ON]]
// CHECK-NEXT: linalg.generic {indexing_maps = [affine_map<(d0) -> (d0, 0)>, affine_map<(d0) -> (d0, 0)>, affine_map<(d0) -> (d0, 0)>], iterator_types = ["parallel"]} ins(%l, %a : {{.*}}) outs(%[[LN]] : {{.*}}) attrs = {{ *}}{d2m.l1_accumulate}
// CHECK-NEXT: ^bb0(%[[LT:.*]]: !ttcore.tile<32x32, bf16>, %[[AT:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:   %[[B:.*]] = d2m.tile_bcast <col> %[[AT]] : !ttcore.tile<32x32, bf16>
// CHECK-NEXT:   %[[R:.*]] = d2m.tile_mul %[[LT]], %[[B]] : !ttcore.tile<32x32, bf16>
// CHECK-NEXT:   linalg.yield %[[R]]
// CHECK:      %[[OFF:.*]] = arith.constant false
// CHECK-NEXT: d2m.pack_l1_acc %[[OFF]]
// CHECK-NOT:  d2m.tile_accumulate
// Each pack onto the sum adds, but each tile's first (its column index 0); L1 accumulation
// off after the section's packs. The rescale's section packs with it on.
// LOOPS-LABEL: func.func @denominator
// LOOPS:      d2m.tile_exp
// LOOPS:      d2m.wait_dst
// LOOPS:      memref.store %{{.*}}, %[[PB:.*]][
// LOOPS:      %[[FIRST:.*]] = arith.cmpi ne, %[[J:.*]], %{{.*}} : index
// LOOPS-NEXT: d2m.pack_l1_acc %[[FIRST]]
// LOOPS:      memref.store %{{.*}}, %[[LN:.*]][%{{.*}}, %{{.*}}] : memref<2x1x
// LOOPS:      %[[OFF:.*]] = arith.constant false
// LOOPS-NEXT: d2m.pack_l1_acc %[[OFF]]
// LOOPS-NEXT: d2m.release_dst
// LOOPS:      d2m.pack_l1_acc
// LOOPS:      d2m.acquire_dst
// LOOPS:      d2m.tile_mul
// LOOPS:      memref.store %{{.*}}, %[[LN]][
// LOOPS:      d2m.release_dst
// LOOPS-NEXT: %[[OFF2:.*]] = arith.constant false
// LOOPS-NEXT: d2m.pack_l1_acc %[[OFF2]]
func.func @denominator(%xd: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%xd : !dram) outs(%out : !dram) {
  ^bb0(%x_cb: !d2m.cb<!blk>, %o_cb: !d2m.cb<!blk>):
    %l_cb = d2m.local_cb : !d2m.cb<!col>
    %m_cb = d2m.local_cb : !d2m.cb<!col, 1>
    %a_cb = d2m.local_cb : !d2m.cb<!col, 1>
    %p_cb = d2m.local_cb : !d2m.cb<!blk, 1>
    %l = d2m.wait %l_cb : !d2m.cb<!col> -> !col
    %l_next = d2m.reserve %l_cb : !d2m.cb<!col> -> !col
    %x = d2m.wait %x_cb : !d2m.cb<!blk> -> !blk
    %m = d2m.wait %m_cb : !d2m.cb<!col, 1> -> !col
    %a = d2m.wait %a_cb : !d2m.cb<!col, 1> -> !col
    %pb = d2m.reserve %p_cb : !d2m.cb<!blk, 1> -> !blk
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %m : !blk, !col) outs(%pb : !blk) {
    ^bb0(%xt: !tile, %mt: !tile, %o: !tile):
      %b = d2m.tile_bcast <col> %mt : !tile
      %d = d2m.tile_sub %xt, %b : !tile
      %e = d2m.tile_exp %d : !tile
      linalg.yield %e : !tile
    }
    d2m.push %p_cb : !d2m.cb<!blk, 1>
    %p = d2m.wait %p_cb : !d2m.cb<!blk, 1> -> !blk
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%p, %l, %a : !blk, !col, !col) outs(%l_next : !col) {
    ^bb0(%pt: !tile, %lt: !tile, %at: !tile, %out_t: !tile):
      %ab = d2m.tile_bcast <col> %at {d2m.prologue} : !tile
      %s = d2m.tile_mul %lt, %ab {d2m.prologue} : !tile
      %r = d2m.tile_accumulate %pt, %s : !tile
      linalg.yield %r : !tile
    }
    d2m.pop %p_cb : !d2m.cb<!blk, 1>
    d2m.pop %a_cb : !d2m.cb<!col, 1>
    d2m.pop %m_cb : !d2m.cb<!col, 1>
    d2m.pop %x_cb : !d2m.cb<!blk>
    d2m.push %l_cb : !d2m.cb<!col>
    d2m.pop %l_cb : !d2m.cb<!col>
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram16 = memref<1x16x!tile, #ttcore.memory_space<dram>>
!row16 = memref<1x16x!tile, #ttcore.memory_space<l1>>
!one = memref<1x1x!tile, #ttcore.memory_space<l1>>

// A row of 16 tiles summed onto one tile, two sections of 8 (DST holds 8 bf16 tiles):
// each section packs onto that one tile, so only its first pack may be the tile's first.
// Accumulation is set for it from the section's origin (on unless the section starts the
// row) and switched on after it: three switches a section, as tt-metal's SDPA, not one
// per pack.
// LOOPS-LABEL: func.func @one_row
// LOOPS:      d2m.wait_dst
// LOOPS:      memref.store %{{.*}}, %[[PB:.*]][
// LOOPS:      %[[STARTS:.*]] = arith.cmpi ne, %[[J:.*]], %{{.*}} : index
// LOOPS-NEXT: d2m.pack_l1_acc %[[STARTS]]
// LOOPS:      scf.for
// LOOPS:        %[[SECOND:.*]] = arith.cmpi eq, %[[T:.*]], %{{.*}} : index
// LOOPS-NEXT:   scf.if %[[SECOND]] {
// LOOPS-NEXT:     %[[ON:.*]] = arith.constant true
// LOOPS-NEXT:     d2m.pack_l1_acc %[[ON]]
// LOOPS-NEXT:   }
// LOOPS:        memref.store %{{.*}}, %[[LN:.*]][%{{.*}}, %{{.*}}] : memref<1x1x
// LOOPS-NEXT: }
// LOOPS-NEXT: %[[OFF:.*]] = arith.constant false
// LOOPS-NEXT: d2m.pack_l1_acc %[[OFF]]
// LOOPS-NEXT: d2m.release_dst
func.func @one_row(%xd: !dram16, %out: !dram16) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%xd : !dram16) outs(%out : !dram16) {
  ^bb0(%x_cb: !d2m.cb<!row16>, %o_cb: !d2m.cb<!row16>):
    %l_cb = d2m.local_cb : !d2m.cb<!one>
    %m_cb = d2m.local_cb : !d2m.cb<!one, 1>
    %a_cb = d2m.local_cb : !d2m.cb<!one, 1>
    %p_cb = d2m.local_cb : !d2m.cb<!row16, 1>
    %l = d2m.wait %l_cb : !d2m.cb<!one> -> !one
    %l_next = d2m.reserve %l_cb : !d2m.cb<!one> -> !one
    %x = d2m.wait %x_cb : !d2m.cb<!row16> -> !row16
    %m = d2m.wait %m_cb : !d2m.cb<!one, 1> -> !one
    %a = d2m.wait %a_cb : !d2m.cb<!one, 1> -> !one
    %pb = d2m.reserve %p_cb : !d2m.cb<!row16, 1> -> !row16
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %m : !row16, !one) outs(%pb : !row16) {
    ^bb0(%xt: !tile, %mt: !tile, %o: !tile):
      %b = d2m.tile_bcast <col> %mt : !tile
      %d = d2m.tile_sub %xt, %b : !tile
      %e = d2m.tile_exp %d : !tile
      linalg.yield %e : !tile
    }
    d2m.push %p_cb : !d2m.cb<!row16, 1>
    %p = d2m.wait %p_cb : !d2m.cb<!row16, 1> -> !row16
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%p, %l, %a : !row16, !one, !one) outs(%l_next : !one) {
    ^bb0(%pt: !tile, %lt: !tile, %at: !tile, %out_t: !tile):
      %ab = d2m.tile_bcast <col> %at {d2m.prologue} : !tile
      %s = d2m.tile_mul %lt, %ab {d2m.prologue} : !tile
      %r = d2m.tile_accumulate %pt, %s : !tile
      linalg.yield %r : !tile
    }
    d2m.pop %p_cb : !d2m.cb<!row16, 1>
    d2m.pop %a_cb : !d2m.cb<!one, 1>
    d2m.pop %m_cb : !d2m.cb<!one, 1>
    d2m.pop %x_cb : !d2m.cb<!row16>
    d2m.push %l_cb : !d2m.cb<!one>
    d2m.pop %l_cb : !d2m.cb<!one>
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x3x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x3x!tile, #ttcore.memory_space<l1>>
!col = memref<2x1x!tile, #ttcore.memory_space<l1>>

// The sum's block is reserved after the generic computing the tiles (causal
// FlashAttention's diagonal step reserves l's block for the next loop late): a reserve of
// a compute-local CB that nothing in between uses moves up to just before that generic.
// CHECK-LABEL: func.func @reserved_after
// CHECK:      %[[LN:.*]] = d2m.reserve %[[LCB:.*]] : !d2m.cb<memref<2x1x
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[PB:.*]], %[[LN]] : {{.*}}) attrs = {{ *}}{d2m.summed_outputs = array<i64: 1>}
// CHECK:      d2m.pack_l1_acc
// CHECK-NOT:  d2m.tile_accumulate
func.func @reserved_after(%xd: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%xd : !dram) outs(%out : !dram) {
  ^bb0(%x_cb: !d2m.cb<!blk>, %o_cb: !d2m.cb<!blk>):
    %l_cb = d2m.local_cb : !d2m.cb<!col>
    %p_cb = d2m.local_cb : !d2m.cb<!blk, 1>
    %l = d2m.wait %l_cb : !d2m.cb<!col> -> !col
    %x = d2m.wait %x_cb : !d2m.cb<!blk> -> !blk
    %pb = d2m.reserve %p_cb : !d2m.cb<!blk, 1> -> !blk
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : !blk) outs(%pb : !blk) {
    ^bb0(%xt: !tile, %o: !tile):
      %e = d2m.tile_exp %xt : !tile
      linalg.yield %e : !tile
    }
    d2m.push %p_cb : !d2m.cb<!blk, 1>
    %p = d2m.wait %p_cb : !d2m.cb<!blk, 1> -> !blk
    %l_next = d2m.reserve %l_cb : !d2m.cb<!col> -> !col
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%p, %l : !blk, !col) outs(%l_next : !col) {
    ^bb0(%pt: !tile, %lt: !tile, %out_t: !tile):
      %c = d2m.tile_copy %lt {d2m.prologue} : !tile
      %r = d2m.tile_accumulate %pt, %c : !tile
      linalg.yield %r : !tile
    }
    d2m.pop %p_cb : !d2m.cb<!blk, 1>
    d2m.push %l_cb : !d2m.cb<!col>
  }
  return
}
