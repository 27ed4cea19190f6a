// Round trip of d2m.generic with the CB, DMA, semaphore and grid ops its threads use,
// in custom and generic form.
// RUN: %ttlang-opt %s | %ttlang-opt | FileCheck %s
// RUN: %ttlang-opt %s --mlir-print-op-generic | %ttlang-opt | FileCheck %s
// RUN: %ttlang-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!l1 = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
!block = tensor<2x2x!tile>
#map = affine_map<(d0, d1) -> (d0, d1)>

// The element-wise add of the DSL's README example: compute, reader, writer.
// CHECK-LABEL: func.func @add
// CHECK-SAME: (%[[LHS:.*]]: memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>, %[[RHS:.*]]: memref{{.*}}, %[[OUT:.*]]: memref{{.*}})
// CHECK-NEXT: d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>, #d2m.thread<datamovement>, #d2m.thread<datamovement>]} ins(%[[LHS]], %[[RHS]] : memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>, memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>) outs(%[[OUT]] : memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>) {
// CHECK-NEXT: ^{{.*}}(%[[LCB:.*]]: !d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>, %[[RCB:.*]]: !d2m.cb<{{.*}}>, %[[OCB:.*]]: !d2m.cb<{{.*}}>):
// CHECK-NEXT: %[[L:.*]] = d2m.wait %[[LCB]] : !d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>> -> tensor<2x2x!ttcore.tile<32x32, bf16>>
// CHECK-NEXT: %[[R:.*]] = d2m.wait %[[RCB]]
// CHECK-NEXT: %[[O:.*]] = d2m.reserve %[[OCB]] : !d2m.cb<{{.*}}> -> tensor<2x2x!ttcore.tile<32x32, bf16>>
// CHECK-NEXT: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[L]], %[[R]] : {{.*}}) outs(%[[O]] : {{.*}}) {
// CHECK-NEXT: ^{{.*}}(%[[A:.*]]: !ttcore.tile<32x32, bf16>, %[[B:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT: %[[T:.*]] = d2m.tile_add %[[A]], %[[B]] : !ttcore.tile<32x32, bf16>
// CHECK-NEXT: linalg.yield %[[T]]
// CHECK-NEXT: } -> tensor<2x2x!ttcore.tile<32x32, bf16>>
// CHECK-NEXT: d2m.store %[[O]], %[[SUM]] : tensor<2x2x!ttcore.tile<32x32, bf16>>, tensor<2x2x!ttcore.tile<32x32, bf16>>
// CHECK-NEXT: d2m.pop %[[LCB]] : !d2m.cb<{{.*}}>
// CHECK-NEXT: d2m.pop %[[RCB]]
// CHECK-NEXT: d2m.push %[[OCB]]
// CHECK-NEXT: }, {
// CHECK-NEXT: ^{{.*}}(%[[LCB2:.*]]: !d2m.cb<{{.*}}>, %{{.*}}: !d2m.cb<{{.*}}>, %{{.*}}: !d2m.cb<{{.*}}>):
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[BLK:.*]] = d2m.reserve %[[LCB2]] : !d2m.cb<{{.*}}> -> memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
// CHECK-NEXT: %[[TX:.*]] = d2m.dma_read %[[LHS]][%[[C0]], %[[C0]]], %[[BLK]] : memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>, memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>> -> !d2m.mem_tx
// CHECK-NEXT: %[[ROWS:.*]] = d2m.dma_read %[[LHS]][%[[C0]], %[[C0]]], %[[BLK]] rows(0, 1) : memref<{{.*}}dram>>, memref<{{.*}}l1>> -> !d2m.mem_tx
// CHECK-NEXT: d2m.dma_wait %[[TX]]
// CHECK-NEXT: d2m.dma_wait %[[ROWS]]
// CHECK-NEXT: d2m.push %[[LCB2]]
// CHECK-NEXT: }, {
// CHECK-NEXT: ^{{.*}}(%{{.*}}: !d2m.cb<{{.*}}>, %{{.*}}: !d2m.cb<{{.*}}>, %[[OCB3:.*]]: !d2m.cb<{{.*}}>):
// CHECK-NEXT: %[[C0W:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[OBLK:.*]] = d2m.wait %[[OCB3]] : !d2m.cb<{{.*}}> -> memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
// CHECK-NEXT: %[[WTX:.*]] = d2m.dma_write %[[OBLK]], %[[OUT]][%[[C0W]], %[[C0W]]] : memref<{{.*}}l1>>, memref<{{.*}}dram>> -> !d2m.mem_tx
// CHECK-NEXT: d2m.dma_wait %[[WTX]]
// CHECK-NEXT: d2m.pop %[[OCB3]]
// CHECK-NEXT: }
// CHECK-NEXT: func.return

// GENERIC-LABEL: "func.func"() <{sym_name = "add"
// GENERIC: "d2m.generic"(%{{.*}}, %{{.*}}, %{{.*}}) <{grid = #ttcore.grid<1x1>, block_factors = [1 : i64, 1 : i64], threads = [#d2m.thread<compute>, #d2m.thread<datamovement>, #d2m.thread<datamovement>], operandSegmentSizes = array<i32: 2, 1>}> ({
// GENERIC: "d2m.wait"(%{{.*}}) : (!d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>) -> tensor<2x2x!ttcore.tile<32x32, bf16>>
// GENERIC: }, {
// GENERIC: "d2m.dma_read"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (memref<{{.*}}dram>>, index, index, memref<{{.*}}l1>>) -> !d2m.mem_tx
// GENERIC: "d2m.dma_read"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{row_start = 0 : i64, row_stop = 1 : i64}>
// GENERIC: }, {
// GENERIC: "d2m.dma_write"

func.func @add(%lhs: !dram, %rhs: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>, #d2m.thread<datamovement>, #d2m.thread<datamovement>]}
      ins(%lhs, %rhs : !dram, !dram) outs(%out : !dram) {
  ^bb0(%lhs_cb: !cb, %rhs_cb: !cb, %out_cb: !cb):
    %l = d2m.wait %lhs_cb : !cb -> !block
    %r = d2m.wait %rhs_cb : !cb -> !block
    %o = d2m.reserve %out_cb : !cb -> !block
    %sum = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
        ins(%l, %r : !block, !block) outs(%o : !block) {
    ^bb0(%a: !tile, %b: !tile, %c: !tile):
      %t = d2m.tile_add %a, %b : !tile
      linalg.yield %t : !tile
    } -> !block
    d2m.store %o, %sum : !block, !block
    d2m.pop %lhs_cb : !cb
    d2m.pop %rhs_cb : !cb
    d2m.push %out_cb : !cb
  }, {
  ^bb0(%lhs_cb: !cb, %rhs_cb: !cb, %out_cb: !cb):
    %c0 = arith.constant 0 : index
    %blk = d2m.reserve %lhs_cb : !cb -> !l1
    %tx = d2m.dma_read %lhs[%c0, %c0], %blk : !dram, !l1 -> !d2m.mem_tx
    %rows = d2m.dma_read %lhs[%c0, %c0], %blk rows(0, 1) : !dram, !l1 -> !d2m.mem_tx
    d2m.dma_wait %tx
    d2m.dma_wait %rows
    d2m.push %lhs_cb : !cb
  }, {
  ^bb0(%lhs_cb: !cb, %rhs_cb: !cb, %out_cb: !cb):
    %c0 = arith.constant 0 : index
    %blk = d2m.wait %out_cb : !cb -> !l1
    %tx = d2m.dma_write %blk, %out[%c0, %c0] : !l1, !dram -> !d2m.mem_tx
    d2m.dma_wait %tx
    d2m.pop %out_cb : !cb
  }
  return
}

// A generic with an iteration space, a 3-block CB, no inputs, and a semaphore after
// the CBs; the reader multicasts its block and signals the other cores.
// CHECK-LABEL: func.func @multicast
// CHECK-NEXT: d2m.generic {grid = #ttcore.grid<2x4>, block_factors = [2, 1], threads = [#d2m.thread<datamovement>], indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = [#ttcore.iterator_type<parallel>, #ttcore.iterator_type<reduction>]} ins() outs(%{{.*}} : memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>) {
// CHECK-NEXT: ^{{.*}}(%[[CB:.*]]: !d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>, 3>, %[[SEM:.*]]: !d2m.semaphore):
// CHECK-NEXT: %[[ROW:.*]] = d2m.core_index(0)
// CHECK-NEXT: %[[COL:.*]] = d2m.core_index(1)
// CHECK-NEXT: %[[COLS:.*]] = d2m.grid_size(1)
// CHECK-NEXT: %[[K:.*]] = d2m.iter_index(1)
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[BLK:.*]] = d2m.reserve %[[CB]] : !d2m.cb<{{.*}}, 3> -> memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
// CHECK-NEXT: %[[TX:.*]] = d2m.dma_mcast %[[BLK]], %[[BLK]] core[%[[ROW]], %[[COL]]] mcast[%[[ONE]], %[[COLS]]] : memref<{{.*}}l1>>, memref<{{.*}}l1>> -> !d2m.mem_tx
// CHECK-NEXT: %[[LINKED:.*]] = d2m.dma_mcast %[[BLK]], %[[BLK]] core[%[[ROW]], %[[COL]]] mcast[%[[ONE]], %[[COLS]]] linked : memref<{{.*}}l1>>, memref<{{.*}}l1>> -> !d2m.mem_tx
// CHECK-NEXT: %[[PIECE:.*]] = d2m.dma_mcast %[[BLK]], %[[BLK]] core[%[[ROW]], %[[COL]]] mcast[%[[ONE]], %[[COLS]]] rows(1, 2) linked : memref<{{.*}}l1>>, memref<{{.*}}l1>> -> !d2m.mem_tx
// CHECK-NEXT: d2m.dma_wait %[[TX]]
// CHECK-NEXT: d2m.dma_wait %[[LINKED]]
// CHECK-NEXT: d2m.semaphore_set %[[SEM]], %[[ONE]] core[%[[ROW]], %[[COL]]] mcast[%[[ONE]], %[[COLS]]]
// CHECK-NEXT: d2m.semaphore_set %[[SEM]], %[[K]]{{$}}
// CHECK-NEXT: d2m.semaphore_inc %[[SEM]], %[[ONE]] core[%[[ROW]], %[[COL]]]
// CHECK-NEXT: d2m.semaphore_inc %[[SEM]], %[[ONE]]{{$}}
// CHECK-NEXT: d2m.semaphore_wait %[[SEM]], %[[COLS]] reset %[[K]]
// CHECK-NEXT: d2m.semaphore_wait %[[SEM]], %[[ONE]]{{$}}
// CHECK-NEXT: d2m.push %[[CB]]
// CHECK-NEXT: }

// GENERIC-LABEL: "func.func"() <{sym_name = "multicast"
// GENERIC: "d2m.dma_mcast"({{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 2, 2>}>
// GENERIC: "d2m.dma_mcast"({{.*}}) <{linked, operandSegmentSizes = array<i32: 1, 1, 2, 2>}>
// GENERIC: "d2m.dma_mcast"({{.*}}) <{row_start = 1 : i64, row_stop = 2 : i64, linked, operandSegmentSizes = array<i32: 1, 1, 2, 2>}>
// GENERIC: "d2m.semaphore_set"({{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 2, 2>}>
// GENERIC: "d2m.semaphore_set"({{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>}>

func.func @multicast(%out: !dram) {
  d2m.generic {grid = #ttcore.grid<2x4>, block_factors = [2, 1], threads = [#d2m.thread<datamovement>],
               indexing_maps = [#map], iterator_types = [#ttcore.iterator_type<parallel>, #ttcore.iterator_type<reduction>]}
      ins() outs(%out : !dram) {
  ^bb0(%cb: !d2m.cb<!l1, 3>, %sem: !d2m.semaphore):
    %row = d2m.core_index(0)
    %col = d2m.core_index(1)
    %cols = d2m.grid_size(1)
    %k = d2m.iter_index(1)
    %one = arith.constant 1 : index
    %blk = d2m.reserve %cb : !d2m.cb<!l1, 3> -> !l1
    %tx = d2m.dma_mcast %blk, %blk core[%row, %col] mcast[%one, %cols] : !l1, !l1 -> !d2m.mem_tx
    %linked = d2m.dma_mcast %blk, %blk core[%row, %col] mcast[%one, %cols] linked : !l1, !l1 -> !d2m.mem_tx
    %piece = d2m.dma_mcast %blk, %blk core[%row, %col] mcast[%one, %cols] rows(1, 2) linked : !l1, !l1 -> !d2m.mem_tx
    d2m.dma_wait %tx
    d2m.dma_wait %linked
    d2m.semaphore_set %sem, %one core[%row, %col] mcast[%one, %cols]
    d2m.semaphore_set %sem, %k
    d2m.semaphore_inc %sem, %one core[%row, %col]
    d2m.semaphore_inc %sem, %one
    d2m.semaphore_wait %sem, %cols reset %k
    d2m.semaphore_wait %sem, %one
    d2m.push %cb : !d2m.cb<!l1, 3>
  }
  return
}
