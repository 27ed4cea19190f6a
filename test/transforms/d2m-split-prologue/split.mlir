// RUN: %ttlang-opt %s --split-input-file -p d2m-split-prologue | FileCheck %s
// RUN: %ttlang-opt %s --split-input-file -p d2m-split-prologue,d2m-dst-allocate,d2m-lower-to-loops | FileCheck %s --check-prefix=LOOPS

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x4x!tile, #ttcore.memory_space<dram>>
!out = memref<2x4x!tile, #ttcore.memory_space<l1>>
!sq = memref<2x2x!tile, #ttcore.memory_space<l1>>
!b = memref<2x4x!tile, #ttcore.memory_space<l1>>
!col = memref<2x1x!tile, #ttcore.memory_space<l1>>
#p = affine_map<(d0, d1, d2) -> (d0, d2)>
#v = affine_map<(d0, d1, d2) -> (d2, d1)>
#o = affine_map<(d0, d1, d2) -> (d0, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, 0)>

// FlashAttention's `acc * alpha + p @ v` after d2m-accumulate-into-dst, in two sections
// (1x4 subblocks of a 2x4 block): the rescale becomes an all-parallel generic packed
// into the output block (same subblocks), then the matmul reads only p and v, starts
// from DST's zeros and its packs add onto the block (between pack_l1_acc on and off).
// CHECK-LABEL: func.func @rescaled_matmul
// CHECK:      %[[NEXT:.*]] = d2m.reserve %[[ACB:.*]] :
// CHECK:      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%acc, %alpha : {{.*}}) outs(%[[NEXT]] : {{.*}}) attrs = {{ *}}{d2m.subblock = array<i64: 1, 4>}
// CHECK-NEXT: ^bb0(%[[AT:.*]]: !ttcore.tile<32x32, bf16>, %[[LT:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:   %[[B:.*]] = d2m.tile_bcast <col> %[[LT]] : !ttcore.tile<32x32, bf16>
// CHECK-NEXT:   %[[X:.*]] = d2m.tile_mul %[[AT]], %[[B]] : !ttcore.tile<32x32, bf16>
// CHECK-NEXT:   linalg.yield %[[X]]
// CHECK:      %[[ON:.*]] = arith.constant true
// CHECK-NEXT: d2m.pack_l1_acc %[[ON]]
// CHECK-NEXT: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%p, %v : {{.*}}) outs(%[[NEXT]] : {{.*}}) attrs = {{ *}}{d2m.subblock = array<i64: 1, 4>, d2m.l1_accumulate}
// CHECK-NEXT: ^bb0(%[[PT:.*]]: !ttcore.tile<32x32, bf16>, %[[VT:.*]]: !ttcore.tile<32x32, bf16>, %[[OT:.*]]: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:   %[[M:.*]] = d2m.tile_matmul %[[PT]], %[[VT]], %[[OT]]
// CHECK-NEXT:   linalg.yield %[[M]]
// CHECK:      %[[OFF:.*]] = arith.constant false
// CHECK-NEXT: d2m.pack_l1_acc %[[OFF]]
// CHECK-NEXT: d2m.push %[[ACB]]
// Lowered: two rescale sections (bcast mul, pack), then two matmul sections with L1
// accumulation on, the matmul onto DST's zeros (nothing copied in first).
// LOOPS-LABEL: func.func @rescaled_matmul
// LOOPS:      scf.for
// LOOPS:        d2m.acquire_dst
// LOOPS:        d2m.tile_mul
// LOOPS:        d2m.release_dst
// LOOPS:      d2m.pack_l1_acc
// LOOPS:      scf.for
// LOOPS:        %[[DST:.*]] = d2m.acquire_dst
// LOOPS-NOT:    memref.store %{{.*}}, %[[DST]]
// LOOPS:        %[[M:.*]] = d2m.tile_matmul
// LOOPS:        memref.store %[[M]], %[[DST]]
// LOOPS:        d2m.release_dst
// LOOPS:      d2m.pack_l1_acc
func.func @rescaled_matmul(%xd: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%xd : !dram) outs(%out : !dram) {
  ^bb0(%x_cb: !d2m.cb<!out>, %o_cb: !d2m.cb<!out>):
    %acc_cb = d2m.local_cb : !d2m.cb<!b>
    %p_cb = d2m.local_cb : !d2m.cb<!sq, 1>
    %v_cb = d2m.local_cb : !d2m.cb<!b, 1>
    %a_cb = d2m.local_cb : !d2m.cb<!col, 1>
    %acc = d2m.wait %acc_cb : !d2m.cb<!b> -> !b
    %next = d2m.reserve %acc_cb : !d2m.cb<!b> -> !b
    %p = d2m.wait %p_cb : !d2m.cb<!sq, 1> -> !sq
    %v = d2m.wait %v_cb : !d2m.cb<!b, 1> -> !b
    %alpha = d2m.wait %a_cb : !d2m.cb<!col, 1> -> !col
    linalg.generic {indexing_maps = [#p, #v, #o, #c, #o], iterator_types = ["parallel", "parallel", "reduction"]} ins(%p, %v, %acc, %alpha : !sq, !b, !b, !col) outs(%next : !b) attrs = {d2m.subblock = array<i64: 1, 4>} {
    ^bb0(%pt: !tile, %vt: !tile, %at: !tile, %lt: !tile, %ot: !tile):
      %b = d2m.tile_bcast <col> %lt {d2m.prologue} : !tile
      %x = d2m.tile_mul %at, %b {d2m.prologue} : !tile
      %m = d2m.tile_matmul %pt, %vt, %x : !tile, !tile
      linalg.yield %m : !tile
    }
    d2m.push %acc_cb : !d2m.cb<!b>
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!btile = !ttcore.tile<32x32, bfp8_b>
!dram = memref<2x4x!tile, #ttcore.memory_space<dram>>
!out = memref<2x4x!tile, #ttcore.memory_space<l1>>
!sq = memref<2x2x!tile, #ttcore.memory_space<l1>>
!b = memref<2x4x!tile, #ttcore.memory_space<l1>>
!bb = memref<2x4x!btile, #ttcore.memory_space<l1>>
!bsq = memref<2x2x!btile, #ttcore.memory_space<l1>>
!bcol = memref<2x1x!btile, #ttcore.memory_space<l1>>
!col = memref<2x1x!tile, #ttcore.memory_space<l1>>
#p = affine_map<(d0, d1, d2) -> (d0, d2)>
#v = affine_map<(d0, d1, d2) -> (d2, d1)>
#o = affine_map<(d0, d1, d2) -> (d0, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, 0)>

// Left alone: one section (no subblock), a block-float output (the packer adds in L1
// only in bf16, f32 and the other formats d2m-packer-l1-accumulate lists) and a body
// that reads its output tile.
// CHECK-LABEL: func.func @unchanged
// CHECK-NOT:  d2m.pack_l1_acc
// CHECK-NOT:  d2m.l1_accumulate
func.func @unchanged(%xd: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%xd : !dram) outs(%out : !dram) {
  ^bb0(%x_cb: !d2m.cb<!out>, %o_cb: !d2m.cb<!out>):
    %acc_cb = d2m.local_cb : !d2m.cb<!b>
    %f_cb = d2m.local_cb : !d2m.cb<!bb, 1>
    %fs_cb = d2m.local_cb : !d2m.cb<!bsq, 1>
    %fc_cb = d2m.local_cb : !d2m.cb<!bcol, 1>
    %p_cb = d2m.local_cb : !d2m.cb<!sq, 1>
    %v_cb = d2m.local_cb : !d2m.cb<!b, 1>
    %a_cb = d2m.local_cb : !d2m.cb<!col, 1>
    %acc = d2m.wait %acc_cb : !d2m.cb<!b> -> !b
    %next = d2m.reserve %acc_cb : !d2m.cb<!b> -> !b
    %fnext = d2m.reserve %f_cb : !d2m.cb<!bb, 1> -> !bb
    %p = d2m.wait %p_cb : !d2m.cb<!sq, 1> -> !sq
    %v = d2m.wait %v_cb : !d2m.cb<!b, 1> -> !b
    %alpha = d2m.wait %a_cb : !d2m.cb<!col, 1> -> !col
    %pf = d2m.wait %fs_cb : !d2m.cb<!bsq, 1> -> !bsq
    %af = d2m.wait %fc_cb : !d2m.cb<!bcol, 1> -> !bcol
    linalg.generic {indexing_maps = [#p, #v, #o, #c, #o], iterator_types = ["parallel", "parallel", "reduction"]} ins(%p, %v, %acc, %alpha : !sq, !b, !b, !col) outs(%next : !b) {
    ^bb0(%pt: !tile, %vt: !tile, %at: !tile, %lt: !tile, %ot: !tile):
      %b = d2m.tile_bcast <col> %lt {d2m.prologue} : !tile
      %x = d2m.tile_mul %at, %b {d2m.prologue} : !tile
      %m = d2m.tile_matmul %pt, %vt, %x : !tile, !tile
      linalg.yield %m : !tile
    }
    %fnext2 = d2m.reserve %f_cb : !d2m.cb<!bb, 1> -> !bb
    linalg.generic {indexing_maps = [#p, #v, #o, #c, #o], iterator_types = ["parallel", "parallel", "reduction"]} ins(%pf, %fnext, %fnext, %af : !bsq, !bb, !bb, !bcol) outs(%fnext2 : !bb) attrs = {d2m.subblock = array<i64: 1, 4>} {
    ^bb0(%pt: !btile, %vt: !btile, %at: !btile, %lt: !btile, %ot: !btile):
      %b = d2m.tile_bcast <col> %lt {d2m.prologue} : !btile
      %x = d2m.tile_mul %at, %b {d2m.prologue} : !btile
      %m = d2m.tile_matmul %pt, %vt, %x : !btile, !btile
      linalg.yield %m : !btile
    }
    linalg.generic {indexing_maps = [#p, #v, #o, #c, #o], iterator_types = ["parallel", "parallel", "reduction"]} ins(%p, %v, %acc, %alpha : !sq, !b, !b, !col) outs(%next : !b) attrs = {d2m.subblock = array<i64: 1, 4>} {
    ^bb0(%pt: !tile, %vt: !tile, %at: !tile, %lt: !tile, %ot: !tile):
      %b = d2m.tile_bcast <col> %lt {d2m.prologue} : !tile
      %x = d2m.tile_mul %ot, %b {d2m.prologue} : !tile
      %m = d2m.tile_matmul %pt, %vt, %x : !tile, !tile
      linalg.yield %m : !tile
    }
    d2m.push %acc_cb : !d2m.cb<!b>
  }
  return
}
