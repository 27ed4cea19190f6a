// RUN: %ttlang-opt %s --split-input-file -p d2m-cb-start-as-add | FileCheck %s
// RUN: %ttlang-opt %s --split-input-file -p d2m-cb-start-as-add,d2m-dst-allocate | FileCheck %s --check-prefix=ALLOC
// RUN: %ttlang-opt %s --split-input-file -p d2m-cb-start-as-add,d2m-dst-allocate,d2m-lower-to-loops | FileCheck %s --check-prefix=LOOPS

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#o = affine_map<(d0, d1, d2) -> (d0, d1)>

// Causal FlashAttention's scores after d2m-accumulate-into-dst, `q @ k^T + mask` with
// the mask copied into DST as the matmul's start: the matmul starts from zeros (its
// output tile) and the mask is added after it (an epilogue add, which d2m-dst-allocate
// places as an FPU add reusing the matmul's DST tile); the transpose stays. The add
// keeps the copy's tril diagonal: d2m-lower-to-loops runs it on the tiles on and above
// the diagonal only (below it the mask tile is 0; above it d2m-skip-masked-tiles'
// triangle skips the tile), so on the diagonal's tiles: col - row <= 0 and
// row - col <= 0; and only in a subblock whose top right tile is on or above the
// diagonal (else neither the adds nor their init run).
// CHECK-LABEL: func.func @masked_scores
// CHECK:      ^bb0(%[[Q:.*]]: !ttcore.tile<32x32, bf16>, %[[K:.*]]: !ttcore.tile<32x32, bf16>, %[[M:.*]]: !ttcore.tile<32x32, bf16>, %[[O:.*]]: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:   %[[KT:.*]] = d2m.tile_transpose %[[K]]
// CHECK-NEXT:   %[[S:.*]] = d2m.tile_matmul %[[Q]], %[[KT]], %[[O]]
// CHECK-NEXT:   %[[R:.*]] = d2m.tile_add %[[M]], %[[S]] {d2m.epilogue, d2m.tril_diagonal = 0 : i64}
// CHECK-NEXT:   linalg.yield %[[R]]
// CHECK-NOT:  d2m.tile_copy
// ALLOC-LABEL: func.func @masked_scores
// ALLOC:        d2m.tile_add %{{.*}}, %{{.*}} {d2m.epilogue, d2m.tril_diagonal = 0 : i64, d2m.dst_slot = 0 : i64, engine = #d2m.engine<dest_to_srcb>}
// LOOPS-LABEL: func.func @masked_scores
// LOOPS:        d2m.tile_matmul
// LOOPS:        memref.store %m
// LOOPS:        %[[LAST:[0-9]+]] = arith.constant 1 : index
// LOOPS-NEXT:   %[[RIGHT:[0-9]+]] = arith.addi %{{[0-9]+}}, %[[LAST]] : index
// LOOPS-NEXT:   %[[TOP_RIGHT:[0-9]+]] = arith.subi %{{[0-9]+}}, %[[RIGHT]] : index
// LOOPS:        arith.cmpi sle, %[[TOP_RIGHT]]
// LOOPS-NEXT:   scf.if
// LOOPS:        %[[COLROW:[0-9]+]] = arith.subi %[[COL:[0-9]+]], %[[ROW:[0-9]+]] : index
// LOOPS:        arith.cmpi sle, %[[COLROW]], %{{.*}}
// LOOPS:        %[[ROWCOL:[0-9]+]] = arith.subi %[[ROW]], %[[COL]] : index
// LOOPS:        arith.cmpi sle, %[[ROWCOL]], %{{.*}}
// LOOPS:        scf.if
// LOOPS:        d2m.tile_add
func.func @masked_scores(%xd: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%xd : !dram) outs(%out : !dram) {
  ^bb0(%x_cb: !d2m.cb<!blk>, %o_cb: !d2m.cb<!blk>):
    %q = d2m.wait %x_cb : !d2m.cb<!blk> -> !blk
    %k = d2m.wait %x_cb : !d2m.cb<!blk> -> !blk
    %mask = d2m.wait %x_cb : !d2m.cb<!blk> -> !blk
    %s = d2m.reserve %o_cb : !d2m.cb<!blk> -> !blk
    linalg.generic {indexing_maps = [#a, #bt, #o, #o], iterator_types = ["parallel", "parallel", "reduction"]} ins(%q, %k, %mask : !blk, !blk, !blk) outs(%s : !blk) attrs = {d2m.triangles = [#d2m.triangle<rows = 0, cols = 1, diagonal = 0>]} {
    ^bb0(%qt: !tile, %kt: !tile, %mt: !tile, %ot: !tile):
      %t = d2m.tile_transpose %kt : !tile
      %c = d2m.tile_copy %mt {d2m.prologue, d2m.tril_diagonal = 0 : i64} : !tile
      %m = d2m.tile_matmul %qt, %t, %c : !tile, !tile
      linalg.yield %m : !tile
    }
    d2m.push %o_cb : !d2m.cb<!blk>
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#o = affine_map<(d0, d1, d2) -> (d0, d1)>

// Left alone: an output block that holds data (the matmul would not start from zeros),
// a start computed from the CB tile (not a copy), a generic whose packs add in L1
// (d2m-packer-l1-accumulate's).
// CHECK-LABEL: func.func @unchanged
// CHECK-COUNT-3: d2m.tile_copy
// CHECK-NOT:  d2m.tile_add
func.func @unchanged(%xd: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%xd : !dram) outs(%out : !dram) {
  ^bb0(%x_cb: !d2m.cb<!blk>, %o_cb: !d2m.cb<!blk>):
    %a = d2m.wait %x_cb : !d2m.cb<!blk> -> !blk
    %b = d2m.wait %x_cb : !d2m.cb<!blk> -> !blk
    %x = d2m.wait %x_cb : !d2m.cb<!blk> -> !blk
    %r = d2m.reserve %o_cb : !d2m.cb<!blk> -> !blk
    linalg.generic {indexing_maps = [#a, #b, #o, #o], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b, %x : !blk, !blk, !blk) outs(%x : !blk) {
    ^bb0(%at: !tile, %bt: !tile, %xt: !tile, %ot: !tile):
      %c = d2m.tile_copy %xt {d2m.prologue} : !tile
      %m = d2m.tile_matmul %at, %bt, %c : !tile, !tile
      linalg.yield %m : !tile
    }
    linalg.generic {indexing_maps = [#a, #b, #o, #o], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b, %x : !blk, !blk, !blk) outs(%r : !blk) {
    ^bb0(%at: !tile, %bt: !tile, %xt: !tile, %ot: !tile):
      %c = d2m.tile_copy %xt {d2m.prologue} : !tile
      %e = d2m.tile_exp %c {d2m.prologue} : !tile
      %m = d2m.tile_matmul %at, %bt, %e : !tile, !tile
      linalg.yield %m : !tile
    }
    linalg.generic {indexing_maps = [#a, #b, #o, #o], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b, %x : !blk, !blk, !blk) outs(%r : !blk) attrs = {d2m.l1_accumulate} {
    ^bb0(%at: !tile, %bt: !tile, %xt: !tile, %ot: !tile):
      %c = d2m.tile_copy %xt {d2m.prologue} : !tile
      %m = d2m.tile_matmul %at, %bt, %c : !tile, !tile
      linalg.yield %m : !tile
    }
    d2m.push %o_cb : !d2m.cb<!blk>
  }
  return
}
