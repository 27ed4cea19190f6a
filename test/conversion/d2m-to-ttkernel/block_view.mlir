// A d2m.block_view emits nothing; every read through it (matmul_tiles with the
// unpacker's transpose, copy_tile) adds the view's row offset to the row index of the
// tile in the viewed CB block.
// RUN: %ttlang-opt %s --split-input-file -p d2m-tile-subblock,d2m-dst-allocate,d2m-lower-to-loops,convert-d2m-to-ttkernel,ttkernel-place-inits,canonicalize,cse | FileCheck %s

!tile = !ttcore.tile<32x32, bf16>
!q = memref<1x1x!tile, #ttcore.memory_space<l1>>
!k = memref<4x1x!tile, #ttcore.memory_space<l1>>
!kv = memref<2x1x!tile, #ttcore.memory_space<l1>>
!o = memref<1x2x!tile, #ttcore.memory_space<l1>>

// q @ transpose(k rows 2..3): B's tile n is k's tile n + 2.
// CHECK-LABEL: func.func @transposed_view_compute()
// CHECK:      %[[Q:.*]] = ttkernel.get_compile_time_arg_val(0)
// CHECK-NEXT: %[[K:.*]] = ttkernel.get_compile_time_arg_val(1)
// CHECK-DAG:  %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-DAG:  %[[TWO:.*]] = arith.constant 2 : i32
// CHECK:      scf.for %[[N:.*]] = %{{.*}} to %[[TWO]] step %[[ONE]]
// CHECK:        %[[ROW:.*]] = arith.addi %[[N]], %[[TWO]] : i32
// CHECK:        ttkernel.matmul_tiles(%[[Q]], %[[K]], %{{.*}}, %[[ROW]], %{{.*}}, %[[ONE]])
func.func @transposed_view(%qd: memref<1x1x!tile, #ttcore.memory_space<dram>>, %kd: memref<4x1x!tile, #ttcore.memory_space<dram>>, %od: memref<1x2x!tile, #ttcore.memory_space<dram>>) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%qd, %kd : memref<1x1x!tile, #ttcore.memory_space<dram>>, memref<4x1x!tile, #ttcore.memory_space<dram>>) outs(%od : memref<1x2x!tile, #ttcore.memory_space<dram>>) {
  ^bb0(%q_cb: !d2m.cb<!q>, %k_cb: !d2m.cb<!k>, %out_cb: !d2m.cb<!o>):
    %a = d2m.wait %q_cb : !d2m.cb<!q> -> !q
    %b = d2m.wait %k_cb : !d2m.cb<!k> -> !k
    %bv = d2m.block_view %b rows(2, 4) : !k -> !kv
    %o = d2m.reserve %out_cb : !d2m.cb<!o> -> !o
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %bv : !q, !kv) outs(%o : !o) {
    ^bb0(%p: !tile, %r: !tile, %acc: !tile):
      %rt = d2m.tile_transpose %r : !tile
      %m = d2m.tile_matmul %p, %rt, %acc : !tile, !tile
      linalg.yield %m : !tile
    }
    d2m.push %out_cb : !d2m.cb<!o>
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!x = memref<1x4x2x!tile, #ttcore.memory_space<l1>>
!xv = memref<1x2x2x!tile, #ttcore.memory_space<l1>>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// exp(x rows 1..2) of a 1x4x2-tile block: tile (0, r, c) of the view is copied from
// tile (r + 1) * 2 + c of x's CB block, and packed to tile r * 2 + c of the output.
// CHECK-LABEL: func.func @exp_view_compute()
// CHECK:      %[[X:.*]] = ttkernel.get_compile_time_arg_val(0)
// CHECK-DAG:  %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-DAG:  %[[TWO:.*]] = arith.constant 2 : i32
// CHECK:      scf.for %[[R:.*]] = %{{.*}} to %[[TWO]] step %[[ONE]]
// CHECK-NEXT:   scf.for %[[C:.*]] = %{{.*}} to %[[TWO]] step %[[ONE]]
// CHECK:          %[[ROW:.*]] = arith.addi %[[R]], %[[ONE]] : i32
// CHECK-NEXT:     %[[SCALED:.*]] = arith.muli %[[ROW]], %[[TWO]] : i32
// CHECK-NEXT:     %[[TILE:.*]] = arith.addi %[[SCALED]], %[[C]] : i32
// CHECK-NEXT:     ttkernel.copy_tile(%[[X]], %[[TILE]], %{{.*}})
func.func @exp_view(%xd: memref<1x4x2x!tile, #ttcore.memory_space<dram>>, %od: memref<1x2x2x!tile, #ttcore.memory_space<dram>>) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1, 1], threads = [#d2m.thread<compute>]} ins(%xd : memref<1x4x2x!tile, #ttcore.memory_space<dram>>) outs(%od : memref<1x2x2x!tile, #ttcore.memory_space<dram>>) {
  ^bb0(%x_cb: !d2m.cb<!x>, %out_cb: !d2m.cb<!xv>):
    %x = d2m.wait %x_cb : !d2m.cb<!x> -> !x
    %v = d2m.block_view %x rows(1, 3) : !x -> !xv
    %o = d2m.reserve %out_cb : !d2m.cb<!xv> -> !xv
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v : !xv) outs(%o : !xv) {
    ^bb0(%a: !tile, %b: !tile):
      %e = d2m.tile_exp %a : !tile
      linalg.yield %e : !tile
    }
    d2m.push %out_cb : !d2m.cb<!xv>
    d2m.pop %x_cb : !d2m.cb<!x>
  }
  return
}
