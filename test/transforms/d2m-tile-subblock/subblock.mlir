// RUN: %ttlang-opt %s -p d2m-tile-subblock | FileCheck %s
// RUN: %ttlang-opt %s -p 'd2m-tile-subblock{largest_fit=true}' | FileCheck %s --check-prefix=LARGEST

!tile = !ttcore.tile<32x32, bf16>
#id = affine_map<(d0, d1) -> (d0, d1)>

// Two values live at once per tile (the exp and the fill) in a 4x4 block: 32 DST
// tiles; bf16 half sync holds 8, so 4 tiles per section, as a whole row.
// CHECK-LABEL: func.func @row_of_four
// CHECK:      linalg.generic {{.*}} attrs = {{ *}}{d2m.subblock = array<i64: 1, 4>}
func.func @row_of_four(%in: memref<4x4x!tile, #ttcore.memory_space<l1>>, %out: memref<4x4x!tile, #ttcore.memory_space<l1>>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%in : memref<4x4x!tile, #ttcore.memory_space<l1>>) outs(%out : memref<4x4x!tile, #ttcore.memory_space<l1>>) {
  ^bb0(%a: !tile, %c: !tile):
    %e = d2m.tile_exp %a : !tile
    %two = d2m.tile_fill 2.0 : !tile
    %r = d2m.tile_mul %e, %two : !tile
    linalg.yield %r : !tile
  }
  return
}

// One value per tile, full sync (16 tiles): of the 4x8 block, 2x8 per section.
// CHECK-LABEL: func.func @two_rows_full_sync
// CHECK:      linalg.generic {{.*}} attrs = {{ *}}{d2m.subblock = array<i64: 2, 8>}
func.func @two_rows_full_sync(%in: memref<4x8x!tile, #ttcore.memory_space<l1>>, %out: memref<4x8x!tile, #ttcore.memory_space<l1>>) attributes {ttcore.compute_config = {dst_full_sync_en = true}} {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%in : memref<4x8x!tile, #ttcore.memory_space<l1>>) outs(%out : memref<4x8x!tile, #ttcore.memory_space<l1>>) {
  ^bb0(%a: !tile, %c: !tile):
    %e = d2m.tile_exp %a : !tile
    linalg.yield %e : !tile
  }
  return
}

// 3x5 tiles, one value each, 8 slots: the best divisor shape is a 1x5 row (5 tiles).
// CHECK-LABEL: func.func @three_by_five
// CHECK:      linalg.generic {{.*}} attrs = {{ *}}{d2m.subblock = array<i64: 1, 5>}
func.func @three_by_five(%a: memref<3x5x!tile, #ttcore.memory_space<l1>>, %b: memref<3x5x!tile, #ttcore.memory_space<l1>>, %out: memref<3x5x!tile, #ttcore.memory_space<l1>>) {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%a, %b : memref<3x5x!tile, #ttcore.memory_space<l1>>, memref<3x5x!tile, #ttcore.memory_space<l1>>) outs(%out : memref<3x5x!tile, #ttcore.memory_space<l1>>) {
  ^bb0(%x: !tile, %y: !tile, %c: !tile):
    %s = d2m.tile_add %x, %y : !tile
    linalg.yield %s : !tile
  }
  return
}

// A matmul's footprint is its accumulator: the 4x4 output in 2x4 subblocks (fp32
// accumulation, full sync: 8 tiles); the K loop stays inside each section.
// CHECK-LABEL: func.func @matmul
// CHECK:      linalg.generic {{.*}} attrs = {{ *}}{d2m.subblock = array<i64: 2, 4>}
func.func @matmul(%a: memref<4x2x!tile, #ttcore.memory_space<l1>>, %b: memref<2x4x!tile, #ttcore.memory_space<l1>>, %out: memref<4x4x!tile, #ttcore.memory_space<l1>>) attributes {ttcore.compute_config = {fp32_dest_acc_en = true, dst_full_sync_en = true}} {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<4x2x!tile, #ttcore.memory_space<l1>>, memref<2x4x!tile, #ttcore.memory_space<l1>>) outs(%out : memref<4x4x!tile, #ttcore.memory_space<l1>>) {
  ^bb0(%p: !tile, %q: !tile, %acc: !tile):
    %m = d2m.tile_matmul %p, %q, %acc : !tile, !tile
    linalg.yield %m : !tile
  }
  return
}

// A body needing 5 slots per tile (fp32 half sync holds 4): one tile per section;
// d2m-dst-allocate spills within it.
// CHECK-LABEL: func.func @beyond_capacity
// CHECK:      linalg.generic {{.*}} attrs = {{ *}}{d2m.subblock = array<i64: 1, 1>}
func.func @beyond_capacity(%out: memref<2x2x!tile, #ttcore.memory_space<l1>>) attributes {ttcore.compute_config = {fp32_dest_acc_en = true}} {
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%out : memref<2x2x!tile, #ttcore.memory_space<l1>>) {
  ^bb0(%c: !tile):
    %a = d2m.tile_fill 1.0 : !tile
    %b = d2m.tile_fill 2.0 : !tile
    %d = d2m.tile_fill 3.0 : !tile
    %e = d2m.tile_fill 4.0 : !tile
    %f = d2m.tile_fill 5.0 : !tile
    %s1 = d2m.tile_add %a, %b : !tile
    %s2 = d2m.tile_add %d, %e : !tile
    %s3 = d2m.tile_add %s1, %f : !tile
    %s4 = d2m.tile_add %s2, %s3 : !tile
    linalg.yield %s4 : !tile
  }
  return
}

// The whole block fits (2x2 tiles x 1 slot <= 8): left as one section.
// CHECK-LABEL: func.func @fits
// CHECK:      linalg.generic
// CHECK-NOT:  d2m.subblock
// CHECK:      return
func.func @fits(%in: memref<2x2x!tile, #ttcore.memory_space<l1>>, %out: memref<2x2x!tile, #ttcore.memory_space<l1>>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%in : memref<2x2x!tile, #ttcore.memory_space<l1>>) outs(%out : memref<2x2x!tile, #ttcore.memory_space<l1>>) {
  ^bb0(%a: !tile, %c: !tile):
    %e = d2m.tile_exp %a : !tile
    linalg.yield %e : !tile
  }
  return
}

// exp over 4x8 tiles, one slot each, bf16 half sync (8 tiles a section). Modeled per
// tile: math copy_tile 16 + exp 160, pack 32; per section 8 of tile_regs calls on each
// side; the two inits (copy, exp: one per group) hoisted out of the subblock loop.
// Math-bound, so the time is all the math plus the sections' syncs plus the last pack:
// 1x8: 32 x 176 + 4 x 8 + (8 x 32 + 8) = 5928; 1x4: 5632 + 8 x 8 + (4 x 32 + 8) = 5832;
// 1x2: 5632 + 16 x 8 + 72 = 5832 (a tie goes to the larger). The largest fit is 1x8.
// CHECK-LABEL: func.func @exp_rows
// CHECK:      linalg.generic {{.*}} attrs = {{ *}}{d2m.subblock = array<i64: 1, 4>}
// LARGEST-LABEL: func.func @exp_rows
// LARGEST:      linalg.generic {{.*}} attrs = {{ *}}{d2m.subblock = array<i64: 1, 8>}
func.func @exp_rows(%in: memref<4x8x!tile, #ttcore.memory_space<l1>>, %out: memref<4x8x!tile, #ttcore.memory_space<l1>>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%in : memref<4x8x!tile, #ttcore.memory_space<l1>>) outs(%out : memref<4x8x!tile, #ttcore.memory_space<l1>>) {
  ^bb0(%a: !tile, %c: !tile):
    %e = d2m.tile_exp %a : !tile
    linalg.yield %e : !tile
  }
  return
}

// A transposed matmul over K = 2 onto its output block: each section first copies the
// block's tiles into DST (copy_tile), an init of the same group as the matmul's, so
// every section re-issues both (140 cycles) and the largest fit stays best:
// 1x8: 4 x (8 x 102 + 148) + (8 x 32 + 8) = 4120; 1x4: 8 x (4 x 102 + 148) + 136 = 4584.
// CHECK-LABEL: func.func @matmul_onto_block
// CHECK:      linalg.generic {{.*}} attrs = {{ *}}{d2m.subblock = array<i64: 1, 8>}
func.func @matmul_onto_block(%a: memref<4x2x!tile, #ttcore.memory_space<l1>>, %b: memref<8x2x!tile, #ttcore.memory_space<l1>>, %out: memref<4x8x!tile, #ttcore.memory_space<l1>>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<4x2x!tile, #ttcore.memory_space<l1>>, memref<8x2x!tile, #ttcore.memory_space<l1>>) outs(%out : memref<4x8x!tile, #ttcore.memory_space<l1>>) {
  ^bb0(%p: !tile, %q: !tile, %acc: !tile):
    %t = d2m.tile_transpose %q : !tile
    %m = d2m.tile_matmul %p, %t, %acc : !tile, !tile
    linalg.yield %m : !tile
  }
  return
}

// The same matmul starting from DST's zeros (its packs add onto the block,
// `d2m.l1_accumulate`): one init (the unpacker transposes B), hoisted; 86 cycles of
// math a tile against 32 of pack: 1x8 3048, 1x4 2952, so 1x4 (FlashAttention's
// q @ k^T per K chunk).
// CHECK-LABEL: func.func @matmul_from_zeros
// CHECK:      linalg.generic {{.*}} attrs = {{ *}}{d2m.l1_accumulate, d2m.subblock = array<i64: 1, 4>}
// LARGEST-LABEL: func.func @matmul_from_zeros
// LARGEST:      linalg.generic {{.*}} attrs = {{ *}}{d2m.l1_accumulate, d2m.subblock = array<i64: 1, 8>}
func.func @matmul_from_zeros(%a: memref<4x2x!tile, #ttcore.memory_space<l1>>, %b: memref<8x2x!tile, #ttcore.memory_space<l1>>, %out: memref<4x8x!tile, #ttcore.memory_space<l1>>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<4x2x!tile, #ttcore.memory_space<l1>>, memref<8x2x!tile, #ttcore.memory_space<l1>>) outs(%out : memref<4x8x!tile, #ttcore.memory_space<l1>>) attrs = {d2m.l1_accumulate} {
  ^bb0(%p: !tile, %q: !tile, %acc: !tile):
    %t = d2m.tile_transpose %q : !tile
    %m = d2m.tile_matmul %p, %t, %acc : !tile, !tile
    linalg.yield %m : !tile
  }
  return
}

// (a + b) * c: an FPU add and an FPU multiply with dest reuse, two inits of one group,
// so every section re-issues both (140 cycles); the largest fit (1x8) stays best:
// 1x8: 4 x (8 x 24 + 148) + (8 x 32 + 8) = 1624 (the inits make math the longer side);
// 1x4: 8 x (4 x 24 + 148) + (4 x 32 + 8) = 2088.
// CHECK-LABEL: func.func @two_fpu_inits
// CHECK:      linalg.generic {{.*}} attrs = {{ *}}{d2m.subblock = array<i64: 1, 8>}
func.func @two_fpu_inits(%a: memref<4x8x!tile, #ttcore.memory_space<l1>>, %b: memref<4x8x!tile, #ttcore.memory_space<l1>>, %d: memref<4x8x!tile, #ttcore.memory_space<l1>>, %out: memref<4x8x!tile, #ttcore.memory_space<l1>>) {
  linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%a, %b, %d : memref<4x8x!tile, #ttcore.memory_space<l1>>, memref<4x8x!tile, #ttcore.memory_space<l1>>, memref<4x8x!tile, #ttcore.memory_space<l1>>) outs(%out : memref<4x8x!tile, #ttcore.memory_space<l1>>) {
  ^bb0(%x: !tile, %y: !tile, %z: !tile, %c: !tile):
    %s = d2m.tile_add %x, %y : !tile
    %m = d2m.tile_mul %s, %z : !tile
    linalg.yield %m : !tile
  }
  return
}

// Full sync: math waits for every pack, nothing overlaps, so the fewest sections win
// (4x8 exp: 2x8, as the largest fit).
// CHECK-LABEL: func.func @exp_full_sync
// CHECK:      linalg.generic {{.*}} attrs = {{ *}}{d2m.subblock = array<i64: 2, 8>}
func.func @exp_full_sync(%in: memref<4x8x!tile, #ttcore.memory_space<l1>>, %out: memref<4x8x!tile, #ttcore.memory_space<l1>>) attributes {ttcore.compute_config = {dst_full_sync_en = true}} {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%in : memref<4x8x!tile, #ttcore.memory_space<l1>>) outs(%out : memref<4x8x!tile, #ttcore.memory_space<l1>>) {
  ^bb0(%a: !tile, %c: !tile):
    %e = d2m.tile_exp %a : !tile
    linalg.yield %e : !tile
  }
  return
}

// The same exp, then a generic reading its output: that one waits for the last pack,
// which stays exposed (1x4, as in @exp_rows, where nothing follows).
// CHECK-LABEL: func.func @exp_then_reader
// CHECK:      linalg.generic {{.*}} attrs = {{ *}}{d2m.subblock = array<i64: 1, 4>}
func.func @exp_then_reader(%in: memref<4x8x!tile, #ttcore.memory_space<l1>>, %mid: memref<4x8x!tile, #ttcore.memory_space<l1>>, %out: memref<4x8x!tile, #ttcore.memory_space<l1>>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%in : memref<4x8x!tile, #ttcore.memory_space<l1>>) outs(%mid : memref<4x8x!tile, #ttcore.memory_space<l1>>) {
  ^bb0(%a: !tile, %c: !tile):
    %e = d2m.tile_exp %a : !tile
    linalg.yield %e : !tile
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mid : memref<4x8x!tile, #ttcore.memory_space<l1>>) outs(%out : memref<4x8x!tile, #ttcore.memory_space<l1>>) {
  ^bb0(%a: !tile, %c: !tile):
    %e = d2m.tile_exp %a : !tile
    linalg.yield %e : !tile
  }
  return
}

// The same exp, then a generic on other blocks: the last pack (8 x 32 + 8 = 264)
// runs behind that generic's first section of math (exp of 2x2 tiles: 4 x 176 = 704),
// so only the math and the syncs count: 1x8 4 x 1416 = 5664, 1x4 8 x 712 = 5696; the
// fewest sections win.
// CHECK-LABEL: func.func @exp_then_other
// CHECK:      linalg.generic {{.*}} attrs = {{ *}}{d2m.subblock = array<i64: 1, 8>}
// CHECK:      linalg.generic
// CHECK-NOT:  d2m.subblock
// CHECK:      return
func.func @exp_then_other(%in: memref<4x8x!tile, #ttcore.memory_space<l1>>, %out: memref<4x8x!tile, #ttcore.memory_space<l1>>, %x: memref<2x2x!tile, #ttcore.memory_space<l1>>, %y: memref<2x2x!tile, #ttcore.memory_space<l1>>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%in : memref<4x8x!tile, #ttcore.memory_space<l1>>) outs(%out : memref<4x8x!tile, #ttcore.memory_space<l1>>) {
  ^bb0(%a: !tile, %c: !tile):
    %e = d2m.tile_exp %a : !tile
    linalg.yield %e : !tile
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<2x2x!tile, #ttcore.memory_space<l1>>) outs(%y : memref<2x2x!tile, #ttcore.memory_space<l1>>) {
  ^bb0(%a: !tile, %c: !tile):
    %e = d2m.tile_exp %a : !tile
    linalg.yield %e : !tile
  }
  return
}
