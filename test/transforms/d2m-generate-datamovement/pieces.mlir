// RUN: %ttlang-opt %s -p d2m-generate-datamovement --split-input-file | FileCheck %s

!f32 = !ttcore.tile<32x32, f32>
!bf16 = !ttcore.tile<32x32, bf16>
!k_cb = !d2m.cb<memref<1x10x3x!f32, #ttcore.memory_space<l1>>>
!v_cb = !d2m.cb<memref<1x10x3x!bf16, #ttcore.memory_space<l1>>>
!o_cb = !d2m.cb<memref<1x1x3x!bf16, #ttcore.memory_space<l1>>>
!k_dram = memref<1x10x3x!f32, #ttcore.memory_space<dram>>
!v_dram = memref<1x10x3x!bf16, #ttcore.memory_space<dram>>
!o_dram = memref<1x2x3x!bf16, #ttcore.memory_space<dram>>

// A sender reads and multicasts a block of B >= PIECE_BYTES (32 KiB) bytes in
// max(2, B // PIECE_BYTES) runs of its tile rows: k's 1x10x3 f32 tiles (120 KiB) in
// three, rows (0, 3), (3, 6), (6, 10), and v's 1x10x3 bf16 tiles (60 KiB) in two, rows
// (0, 5), (5, 10) (blocks under 32 KiB go whole: generate.mlir). The first member's
// pieces are read at once (a `dma_wait` waits for its own read only: a transaction id
// each), the others' as the multicast before them goes out. Each piece is multicast
// once its read is through, linked; k's `valid` follows its last piece (linked too),
// then v's first read, k's push; v's the same, its second piece read behind its first. The write barrier for every multicast comes a
// block later, before the next `ready` wait. The receivers are unchanged: a push per
// `valid`.
// CHECK-LABEL: func.func @pieces
// CHECK:       }, {
// CHECK-NEXT:  ^bb0(%[[K_CB:[^:]*]]: !d2m.cb<{{.*}}>, %[[V_CB:[^:]*]]: !d2m.cb<{{.*}}>, %{{[^:]*}}: !d2m.cb<{{.*}}>, %[[READY:k_v_ready[^:]*]]: !d2m.semaphore, %[[K_VALID:k_valid[^:]*]]: !d2m.semaphore, %[[V_VALID:v_valid[^:]*]]: !d2m.semaphore):
// CHECK:         %[[K_BLK:.*]] = d2m.reserve %[[K_CB]]
// CHECK:         %[[V_BLK:.*]] = d2m.reserve %[[V_CB]]
// CHECK:         scf.if
// CHECK-NEXT:      %[[K0:.*]] = d2m.dma_read %k[{{.*}}], %[[K_BLK]] rows(0, 3) :
// CHECK-NEXT:      %[[K1:.*]] = d2m.dma_read %k[{{.*}}], %[[K_BLK]] rows(3, 6) :
// CHECK-NEXT:      %[[K2:.*]] = d2m.dma_read %k[{{.*}}], %[[K_BLK]] rows(6, 10) :
// CHECK-NEXT:      d2m.dma_write_barrier
// CHECK-NEXT:      d2m.semaphore_wait %[[READY]]
// CHECK-NEXT:      d2m.dma_wait %[[K0]]
// CHECK-NEXT:      d2m.dma_mcast %[[K_BLK]], %[[K_BLK]] core[{{.*}}] mcast[{{.*}}] rows(0, 3) linked :
// CHECK-NEXT:      d2m.dma_wait %[[K1]]
// CHECK-NEXT:      d2m.dma_mcast %[[K_BLK]], %[[K_BLK]] core[{{.*}}] mcast[{{.*}}] rows(3, 6) linked :
// CHECK-NEXT:      d2m.dma_wait %[[K2]]
// CHECK-NEXT:      d2m.dma_mcast %[[K_BLK]], %[[K_BLK]] core[{{.*}}] mcast[{{.*}}] rows(6, 10) linked :
// CHECK-NEXT:      d2m.semaphore_set %[[K_VALID]]
// CHECK-NEXT:      %[[V0:.*]] = d2m.dma_read %v[{{.*}}], %[[V_BLK]] rows(0, 5) :
// CHECK-NEXT:      d2m.push %[[K_CB]]
// CHECK-NEXT:      d2m.dma_wait %[[V0]]
// CHECK-NEXT:      d2m.dma_mcast %[[V_BLK]], %[[V_BLK]] core[{{.*}}] mcast[{{.*}}] rows(0, 5) linked :
// CHECK-NEXT:      %[[V1:.*]] = d2m.dma_read %v[{{.*}}], %[[V_BLK]] rows(5, 10) :
// CHECK-NEXT:      d2m.dma_wait %[[V1]]
// CHECK-NEXT:      d2m.dma_mcast %[[V_BLK]], %[[V_BLK]] core[{{.*}}] mcast[{{.*}}] rows(5, 10) linked :
// CHECK-NEXT:      d2m.semaphore_set %[[V_VALID]]
// CHECK-NEXT:      d2m.push %[[V_CB]]
// CHECK-NEXT:    } else {
// CHECK-NEXT:      d2m.semaphore_inc %[[READY]]
// CHECK-NEXT:      d2m.semaphore_wait %[[K_VALID]]
// CHECK-NEXT:      d2m.push %[[K_CB]]
// CHECK-NEXT:      d2m.semaphore_wait %[[V_VALID]]
// CHECK-NEXT:      d2m.push %[[V_CB]]
// CHECK-NEXT:    }
func.func @pieces(%k: !k_dram, %v: !v_dram, %out: !o_dram) {
  d2m.generic {grid = #ttcore.grid<1x2>, block_factors = [1, 1, 1], threads = [#d2m.thread<compute>], indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2, 0)>, affine_map<(d0, d1, d2) -> (d0, d2, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>], iterator_types = [#ttcore.iterator_type<parallel>, #ttcore.iterator_type<parallel>, #ttcore.iterator_type<reduction>]} ins(%k, %v : !k_dram, !v_dram) outs(%out : !o_dram) {
  ^bb0(%k_cb: !k_cb, %v_cb: !v_cb, %out_cb: !o_cb):
    %x = d2m.wait %k_cb : !k_cb -> tensor<1x10x3x!f32>
    %y = d2m.wait %v_cb : !v_cb -> tensor<1x10x3x!bf16>
    d2m.pop %k_cb : !k_cb
    d2m.pop %v_cb : !v_cb
    %o = d2m.reserve %out_cb : !o_cb -> tensor<1x1x3x!bf16>
    d2m.push %out_cb : !o_cb
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!x_cb = !d2m.cb<memref<2x8x4x!tile, #ttcore.memory_space<l1>>>
!o_cb = !d2m.cb<memref<4x1x!tile, #ttcore.memory_space<l1>>>

// A 2x8x4 block (128 KiB) whose tile rows are not one run of tiles (its first dim is
// 2) is multicast whole.
// CHECK-LABEL: func.func @rows_not_one_run
// CHECK:       }, {
// CHECK:         %[[X:.*]] = d2m.dma_read %x[{{.*}}], %{{[^ ]*}} :
// CHECK-NEXT:    d2m.dma_write_barrier
// CHECK-NEXT:    d2m.semaphore_wait
// CHECK-NEXT:    d2m.dma_wait %[[X]]
// CHECK-NEXT:    d2m.dma_mcast %{{[^ ]*}}, %{{[^ ]*}} core[{{.*}}] mcast[{{.*}}] linked :
// CHECK-NOT:     rows(
// CHECK:       }, {
func.func @rows_not_one_run(%x: memref<2x8x4x!tile, #ttcore.memory_space<dram>>, %out: memref<4x2x!tile, #ttcore.memory_space<dram>>) {
  d2m.generic {grid = #ttcore.grid<1x2>, block_factors = [1, 1], threads = [#d2m.thread<compute>], indexing_maps = [affine_map<(d0, d1) -> (0, 0, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = [#ttcore.iterator_type<parallel>, #ttcore.iterator_type<parallel>]} ins(%x : memref<2x8x4x!tile, #ttcore.memory_space<dram>>) outs(%out : memref<4x2x!tile, #ttcore.memory_space<dram>>) {
  ^bb0(%x_cb: !x_cb, %out_cb: !o_cb):
    %a = d2m.wait %x_cb : !x_cb -> tensor<2x8x4x!tile>
    d2m.pop %x_cb : !x_cb
    %o = d2m.reserve %out_cb : !o_cb -> tensor<4x1x!tile>
    d2m.push %out_cb : !o_cb
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!cb = !d2m.cb<memref<16x2x!tile, #ttcore.memory_space<l1>>>
!dram = memref<64x2x!tile, #ttcore.memory_space<dram>>

// Multicast in rounds (bounds.mlir's serpentine triangle, 16x2-tile blocks of 64 KiB):
// in both the forward and the backward round the sender reads b's two pieces at once and
// multicasts each once its own read is through, when it has receivers; with none, it
// waits for both. In the other rounds every core reads its own block whole. (b is
// primed, "First blocks first": the first round's sender sets `start` once the reads of
// its first block are issued, before its `ready` wait.)
// CHECK-LABEL: func.func @pieces_in_rounds
// CHECK:       }, {
// CHECK:         d2m.semaphore_inc %b_ready_1
// CHECK:         d2m.semaphore_wait %b_start_1
// CHECK:         scf.for %d1
// CHECK:           scf.if
// CHECK-NEXT:        %[[FIRST:.*]] = arith.cmpi eq
// CHECK-NEXT:        scf.if %[[FIRST]] {
// CHECK-NEXT:          %[[B0:.*]] = d2m.dma_read %b[{{.*}}], %[[B_BLK:[^ ]*]] rows(0, 8) :
// CHECK-NEXT:          %[[B1:.*]] = d2m.dma_read %b[{{.*}}], %[[B_BLK]] rows(8, 16) :
// CHECK:               scf.if
// CHECK:                   d2m.semaphore_set %b_start_1
// CHECK:                 d2m.semaphore_wait %b_ready_1
// CHECK-NEXT:            d2m.dma_wait %[[B0]]
// CHECK-NEXT:            %[[M0:.*]] = d2m.dma_mcast %[[B_BLK]], %[[B_BLK]] core[{{.*}}] mcast[{{.*}}] rows(0, 8) linked :
// CHECK-NEXT:            d2m.dma_wait %[[B1]]
// CHECK-NEXT:            %[[M1:.*]] = d2m.dma_mcast %[[B_BLK]], %[[B_BLK]] core[{{.*}}] mcast[{{.*}}] rows(8, 16) linked :
// CHECK-NEXT:            d2m.semaphore_set %b_valid_1
// CHECK-NEXT:            d2m.push %[[B_CB:[^ ]*]] :
// CHECK-NEXT:            d2m.dma_wait %[[M0]]
// CHECK-NEXT:            d2m.dma_wait %[[M1]]
// CHECK-NEXT:          } else {
// CHECK-NEXT:            d2m.dma_wait %[[B0]]
// CHECK-NEXT:            d2m.dma_wait %[[B1]]
// CHECK-NEXT:            d2m.push %[[B_CB]]
// CHECK:             %[[BACK0:.*]] = d2m.dma_read %b[{{.*}}], %[[B_BLK]] rows(0, 8) :
// CHECK-NEXT:        %[[BACK1:.*]] = d2m.dma_read %b[{{.*}}], %[[B_BLK]] rows(8, 16) :
// CHECK:                 d2m.semaphore_set %b_go_1
// CHECK:               d2m.semaphore_wait %b_ready_1
// CHECK-NEXT:            d2m.dma_wait %[[BACK0]]
// CHECK-NEXT:            d2m.dma_mcast %[[B_BLK]], %[[B_BLK]] core[{{.*}}] mcast[{{.*}}] rows(0, 8) linked :
// CHECK-NEXT:            d2m.dma_wait %[[BACK1]]
// CHECK-NEXT:            d2m.dma_mcast %[[B_BLK]], %[[B_BLK]] core[{{.*}}] mcast[{{.*}}] rows(8, 16) linked :
// CHECK-NEXT:            d2m.semaphore_set %b_back_valid_1
// CHECK:             %[[OWN:.*]] = d2m.dma_read %b[{{.*}}], %[[B_BLK]] :
// CHECK-NEXT:        d2m.dma_wait %[[OWN]]
func.func @pieces_in_rounds(%a: !dram, %b: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x2>, block_factors = [1, 1], threads = [#d2m.thread<compute>], indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d1, 0)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = [#ttcore.iterator_type<parallel>, #ttcore.iterator_type<reduction>], loop_bounds = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0 + 1)>], deal = "serpentine"} ins(%a, %b : !dram, !dram) outs(%out : !dram) {
  ^bb0(%a_cb: !cb, %b_cb: !cb, %out_cb: !cb):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    scf.for %n = %c0 to %c2 step %c1 {
      %x = d2m.wait %a_cb : !cb -> tensor<16x2x!tile>
      %i = d2m.block_index(0) %n
      %end = arith.addi %i, %c1 : index
      scf.for %j = %c0 to %end step %c1 {
        %y = d2m.wait %b_cb : !cb -> tensor<16x2x!tile>
        d2m.pop %b_cb : !cb
      }
      d2m.pop %a_cb : !cb
      %o = d2m.reserve %out_cb : !cb -> tensor<16x2x!tile>
      d2m.store %o, %x : tensor<16x2x!tile>, tensor<16x2x!tile>
      d2m.push %out_cb : !cb
    }
  }
  return
}
