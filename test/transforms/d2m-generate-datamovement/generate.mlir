// RUN: %ttlang-opt %s -p d2m-generate-datamovement --split-input-file | FileCheck %s

!tile = !ttcore.tile<32x32, bf16>
!l1 = memref<1x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
!dram = memref<4x8x!tile, #ttcore.memory_space<dram>>

// Elementwise on a 2x2 grid: core (y, x) owns tiles [2y, 2y+2) x [4x, 4x+4), two
// 1x2-tile blocks per row of its shard. The reader goes into the empty (`pass`)
// data-movement thread; the writer into a new one.
// CHECK-LABEL: func.func @stream_shard
// CHECK:       threads = [#d2m.thread<compute>, #d2m.thread<datamovement>, #d2m.thread<datamovement>]
// CHECK:       }, {
// CHECK-NEXT:  ^bb0(%[[IN_CB:[^:]*]]: !d2m.cb<{{.*}}>, %{{.*}}: !d2m.cb<{{.*}}>):
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK:         %[[Y:.*]] = d2m.core_index(0)
// CHECK-NEXT:    %[[X:.*]] = d2m.core_index(1)
// CHECK-NEXT:    %[[FIRST_COL:.*]] = arith.muli %[[X]], %[[C2]] : index
// CHECK-NEXT:    %[[FIRST_ROW:.*]] = arith.muli %[[Y]], %[[C2]] : index
// CHECK-NEXT:    scf.for %[[D0:.*]] = %[[C0]] to %[[C2]] step %[[C1]] {
// CHECK-NEXT:      scf.for %[[D1:.*]] = %[[C0]] to %[[C2]] step %[[C1]] {
// CHECK-NEXT:        %[[BLK:.*]] = d2m.reserve %[[IN_CB]]
// CHECK-NEXT:        %[[R:.*]] = arith.addi %[[FIRST_ROW]], %[[D0]] : index
// CHECK-NEXT:        %[[ROW:.*]] = arith.muli %[[R]], %[[C1]] : index
// CHECK-NEXT:        %[[C:.*]] = arith.addi %[[FIRST_COL]], %[[D1]] : index
// CHECK-NEXT:        %[[COL:.*]] = arith.muli %[[C]], %[[C2]] : index
// CHECK-NEXT:        %[[TX:.*]] = d2m.dma_read %in[%[[ROW]], %[[COL]]], %[[BLK]]
// CHECK-NEXT:        d2m.dma_wait %[[TX]]
// CHECK-NEXT:        d2m.push %[[IN_CB]]
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:  }, {
// CHECK-NEXT:  ^bb0(%{{[^:]*}}: !d2m.cb<{{.*}}>, %[[OUT_CB:[^:]*]]: !d2m.cb<{{.*}}>):
// CHECK:         scf.for
// CHECK-NEXT:      scf.for
// CHECK-NEXT:        %[[OBLK:.*]] = d2m.wait %[[OUT_CB]]
// CHECK:             %[[WTX:.*]] = d2m.dma_write %[[OBLK]], %out[%{{.*}}, %{{.*}}]
// CHECK-NEXT:        d2m.dma_wait %[[WTX]]
// CHECK-NEXT:        d2m.pop %[[OUT_CB]]
func.func @stream_shard(%in: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<2x2>, block_factors = [1, 1], threads = [#d2m.thread<compute>, #d2m.thread<datamovement>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    scf.for %i = %c0 to %c4 step %c1 {
      %x = d2m.wait %in_cb : !cb -> tensor<1x2x!tile>
      %o = d2m.reserve %out_cb : !cb -> tensor<1x2x!tile>
      d2m.store %o, %x : tensor<1x2x!tile>, tensor<1x2x!tile>
      d2m.push %out_cb : !cb
      d2m.pop %in_cb : !cb
    }
  }, {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!l1 = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>

// Matmul on a 2x3 grid, K streamed in 3 blocks: `a` (m, k) is the same along a grid
// row, so one core of the row reads it and multicasts it to the row, row y's core in
// column (y + 1) mod 3 (the rows' senders in different NoC columns, half a row from
// b's); `b` (k, n) likewise down a grid column, column x's from row x mod 2. Each gets a
// ready / valid semaphore pair; the multicasts cover the whole row (column). A core's roles
// (sender or receiver of each) pick one of four branches, in which its DRAM reads (the
// first block of each group it sends) and its `ready`s go first, then the handshakes
// it sends, then those it receives (a send waits only for `ready`s, all sent before
// any handshake: core (0, 0) multicasts b before it waits for a). A sender multicasts
// its block linked to the `valid` it sets right after (so `valid` lands after the
// block) and pushes the block to compute (compute only reads it); it waits for the
// multicast a block later, with `dma_write_barrier` before the next `ready` wait (its
// reads of the next block already out, into the CB's other slot), the last one after
// the loops. A receiver pushes once `valid` is set. `out` (m, n) is written once per (m, n), after the K loop.
// CHECK-LABEL: func.func @matmul_multicast
// CHECK:       }, {
// CHECK-NEXT:  ^bb0(%[[A_CB:[^:]*]]: !d2m.cb<{{.*}}>, %[[B_CB:[^:]*]]: !d2m.cb<{{.*}}>, %{{[^:]*}}: !d2m.cb<{{.*}}>, %[[A_READY:[^:]*]]: !d2m.semaphore, %[[A_VALID:[^:]*]]: !d2m.semaphore, %[[B_READY:[^:]*]]: !d2m.semaphore, %[[B_VALID:[^:]*]]: !d2m.semaphore):
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : index
// CHECK:         %[[Y:.*]] = d2m.core_index(0)
// CHECK-NEXT:    %[[X:.*]] = d2m.core_index(1)
// CHECK:         scf.for %{{.*}} = %[[C0]] to %[[C1]] step %[[C1]] {
// CHECK-NEXT:      scf.for %{{.*}} = %[[C0]] to %[[C1]] step %[[C1]] {
// CHECK-NEXT:        scf.for %{{.*}} = %[[C0]] to %[[C3]] step %[[C1]] {
// CHECK-NEXT:          %[[A_BLK:.*]] = d2m.reserve %[[A_CB]]
// CHECK:               %[[B_BLK:.*]] = d2m.reserve %[[B_CB]]
// CHECK:               %[[A_FROM:.*]] = arith.addi %[[Y]], %[[C1]] : index
// CHECK-NEXT:          %[[A_COL:.*]] = arith.remui %[[A_FROM]], %[[C3]] : index
// CHECK-NEXT:          %[[B_ROW:.*]] = arith.remui %[[X]], %[[C2]] : index
// CHECK-NEXT:          %[[A_SENDER:.*]] = arith.cmpi eq, %[[X]], %[[A_COL]] : index
// CHECK-NEXT:          %[[B_SENDER:.*]] = arith.cmpi eq, %[[Y]], %[[B_ROW]] : index
// CHECK-NEXT:          scf.if %[[A_SENDER]] {
// CHECK-NEXT:            scf.if %[[B_SENDER]] {
// CHECK-NEXT:              %[[ATX:.*]] = d2m.dma_read %a[%{{.*}}, %{{.*}}], %[[A_BLK]]
// CHECK-NEXT:              %[[BTX:.*]] = d2m.dma_read %b[%{{.*}}, %{{.*}}], %[[B_BLK]]
// CHECK-NEXT:              d2m.dma_write_barrier
// CHECK-NEXT:              d2m.semaphore_wait %[[A_READY]], %[[C2]] reset %[[C0]]
// CHECK-NEXT:              d2m.dma_wait %[[ATX]]
// CHECK-NEXT:              %[[MC:.*]] = d2m.dma_mcast %[[A_BLK]], %[[A_BLK]] core[%[[Y]], %[[C0]]] mcast[%[[C1]], %[[C3]]] linked :
// CHECK-NEXT:              d2m.semaphore_set %[[A_VALID]], %[[C1]] core[%[[Y]], %[[C0]]] mcast[%[[C1]], %[[C3]]]
// CHECK-NEXT:              d2m.push %[[A_CB]]
// CHECK-NEXT:              d2m.dma_write_barrier
// CHECK-NEXT:              d2m.semaphore_wait %[[B_READY]], %[[C1]] reset %[[C0]]
// CHECK-NEXT:              d2m.dma_wait %[[BTX]]
// CHECK-NEXT:              %[[MC:.*]] = d2m.dma_mcast %[[B_BLK]], %[[B_BLK]] core[%[[C0]], %[[X]]] mcast[%[[C2]], %[[C1]]] linked :
// CHECK-NEXT:              d2m.semaphore_set %[[B_VALID]], %[[C1]] core[%[[C0]], %[[X]]] mcast[%[[C2]], %[[C1]]]
// CHECK-NEXT:              d2m.push %[[B_CB]]
// CHECK-NEXT:            } else {
// CHECK-NEXT:              %[[ATX:.*]] = d2m.dma_read %a
// CHECK-NEXT:              d2m.semaphore_inc %[[B_READY]], %[[C1]] core[%[[B_ROW]], %[[X]]]
// CHECK-NEXT:              d2m.dma_write_barrier
// CHECK-NEXT:              d2m.semaphore_wait %[[A_READY]]
// CHECK-NEXT:              d2m.dma_wait %[[ATX]]
// CHECK-NEXT:              %{{.*}} = d2m.dma_mcast %[[A_BLK]]
// CHECK-NEXT:              d2m.semaphore_set %[[A_VALID]]
// CHECK-NEXT:              d2m.push %[[A_CB]]
// CHECK-NEXT:              d2m.semaphore_wait %[[B_VALID]], %[[C1]] reset %[[C0]]
// CHECK-NEXT:              d2m.push %[[B_CB]]
// CHECK-NEXT:            }
// CHECK-NEXT:          } else {
// CHECK-NEXT:            scf.if %[[B_SENDER]] {
// CHECK-NEXT:              %[[BTX:.*]] = d2m.dma_read %b
// CHECK-NEXT:              d2m.semaphore_inc %[[A_READY]], %[[C1]] core[%[[Y]], %[[A_COL]]]
// CHECK-NEXT:              d2m.dma_write_barrier
// CHECK-NEXT:              d2m.semaphore_wait %[[B_READY]]
// CHECK-NEXT:              d2m.dma_wait %[[BTX]]
// CHECK-NEXT:              %{{.*}} = d2m.dma_mcast %[[B_BLK]]
// CHECK-NEXT:              d2m.semaphore_set %[[B_VALID]]
// CHECK-NEXT:              d2m.push %[[B_CB]]
// CHECK-NEXT:              d2m.semaphore_wait %[[A_VALID]], %[[C1]] reset %[[C0]]
// CHECK-NEXT:              d2m.push %[[A_CB]]
// CHECK-NEXT:            } else {
// CHECK-NEXT:              d2m.semaphore_inc %[[A_READY]], %[[C1]] core[%[[Y]], %[[A_COL]]]
// CHECK-NEXT:              d2m.semaphore_inc %[[B_READY]], %[[C1]] core[%[[B_ROW]], %[[X]]]
// CHECK-NEXT:              d2m.semaphore_wait %[[A_VALID]], %[[C1]] reset %[[C0]]
// CHECK-NEXT:              d2m.push %[[A_CB]]
// CHECK-NEXT:              d2m.semaphore_wait %[[B_VALID]], %[[C1]] reset %[[C0]]
// CHECK-NEXT:              d2m.push %[[B_CB]]
// CHECK-NEXT:            }
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    d2m.dma_write_barrier
// CHECK-NEXT:    }, {
// CHECK:         scf.for
// CHECK-NEXT:      scf.for
// CHECK-NEXT:        d2m.wait
// CHECK-NOT:         scf.for
// CHECK:             d2m.dma_write
func.func @matmul_multicast(%a: memref<4x6x!tile, #ttcore.memory_space<dram>>, %b: memref<6x6x!tile, #ttcore.memory_space<dram>>, %out: memref<4x6x!tile, #ttcore.memory_space<dram>>) {
  d2m.generic {grid = #ttcore.grid<2x3>, block_factors = [1, 1, 1], indexing_maps = [#mk, #kn, #mn], iterator_types = [#ttcore.iterator_type<parallel>, #ttcore.iterator_type<parallel>, #ttcore.iterator_type<reduction>], threads = [#d2m.thread<compute>]} ins(%a, %b : memref<4x6x!tile, #ttcore.memory_space<dram>>, memref<6x6x!tile, #ttcore.memory_space<dram>>) outs(%out : memref<4x6x!tile, #ttcore.memory_space<dram>>) {
  ^bb0(%a_cb: !cb, %b_cb: !cb, %out_cb: !cb):
    %x = d2m.wait %a_cb : !cb -> tensor<2x2x!tile>
    %y = d2m.wait %b_cb : !cb -> tensor<2x2x!tile>
    %o = d2m.reserve %out_cb : !cb -> tensor<2x2x!tile>
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!l1 = memref<1x1x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
!dram = memref<1x1x!tile, #ttcore.memory_space<dram>>

// An operand a thread moves with DMA, and one the compute thread never uses, are left
// alone: nothing is generated.
// CHECK-LABEL: func.func @explicit_and_unused
// CHECK:       threads = [#d2m.thread<compute>, #d2m.thread<datamovement>]
// CHECK-NOT:   d2m.dma_write
// CHECK:       d2m.dma_read %in
// CHECK-NOT:   d2m.dma_read
// CHECK:       return
func.func @explicit_and_unused(%in: !dram, %unused: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>, #d2m.thread<datamovement>]} ins(%in, %unused : !dram, !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %unused_cb: !cb, %out_cb: !cb):
    %x = d2m.wait %in_cb : !cb -> tensor<1x1x!tile>
  }, {
  ^bb0(%in_cb: !cb, %unused_cb: !cb, %out_cb: !cb):
    %c0 = arith.constant 0 : index
    %blk = d2m.reserve %in_cb : !cb -> !l1
    %tx = d2m.dma_read %in[%c0, %c0], %blk : !dram, !l1 -> !d2m.mem_tx
    d2m.dma_wait %tx
    d2m.push %in_cb : !cb
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!l1 = memref<1x1x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
!dram = memref<1x2x!tile, #ttcore.memory_space<dram>>
#rk = affine_map<(d0, d1, d2) -> (d0, d2)>
#rn = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// Two inputs multicast along the same grid dim at one loop level (FlashAttention's k
// and v) share one handshake: one `ready`, a `valid` each. k's read issued, then,
// once it is through, k multicast, linked to its `valid` (set right after: it follows
// k on the path k's multicast keeps, so it lands after k), v's read issued while k's
// multicast is on its way, k pushed; then v multicast, linked to its `valid` the same
// way, and pushed; the write barrier comes a block later, before the next `ready`
// wait. A receiver pushes k on k's
// `valid`, v on v's. The compute thread waits for each block where it first uses it:
// the wait on v moves after the op using k.
// CHECK-LABEL: func.func @one_handshake
// CHECK:         ^bb0(%[[K_CB:[^:]*]]: !d2m.cb<{{.*}}>, %[[V_CB:[^:]*]]: !d2m.cb<{{.*}}>, %[[OUT_CB:[^:]*]]: !d2m.cb<{{.*}}>, %{{.*}}: !d2m.semaphore, %{{.*}}: !d2m.semaphore, %{{.*}}: !d2m.semaphore):
// CHECK-NEXT:      %[[O:.*]] = d2m.reserve %[[OUT_CB]]
// CHECK-NEXT:      %[[X:.*]] = d2m.wait %[[K_CB]]
// CHECK-NEXT:      %[[E:.*]] = linalg.generic {{.*}} ins(%[[X]] : {{.*}}) outs(%[[O]] : {{.*}})
// CHECK:           %[[Y:.*]] = d2m.wait %[[V_CB]]
// CHECK-NEXT:      linalg.generic {{.*}} ins(%[[Y]] : {{.*}}) outs(%[[E]] : {{.*}})
// CHECK:       }, {
// CHECK-NEXT:  ^bb0(%[[K_CB:[^:]*]]: !d2m.cb<{{.*}}>, %[[V_CB:[^:]*]]: !d2m.cb<{{.*}}>, %{{[^:]*}}: !d2m.cb<{{.*}}>, %[[READY:k_v_ready[^:]*]]: !d2m.semaphore, %[[K_VALID:k_valid[^:]*]]: !d2m.semaphore, %[[V_VALID:v_valid[^:]*]]: !d2m.semaphore):
// CHECK:         %[[K_BLK:.*]] = d2m.reserve %[[K_CB]]
// CHECK:         %[[V_BLK:.*]] = d2m.reserve %[[V_CB]]
// CHECK:         scf.if
// CHECK-NEXT:      %[[KTX:.*]] = d2m.dma_read %k[{{.*}}], %[[K_BLK]]
// CHECK-NEXT:      d2m.dma_write_barrier
// CHECK-NEXT:      d2m.semaphore_wait %[[READY]]
// CHECK-NEXT:      d2m.dma_wait %[[KTX]]
// CHECK-NEXT:      d2m.dma_mcast %[[K_BLK]], %[[K_BLK]] {{.*}}] linked :
// CHECK-NEXT:      d2m.semaphore_set %[[K_VALID]]
// CHECK-NEXT:      %[[VTX:.*]] = d2m.dma_read %v[{{.*}}], %[[V_BLK]]
// CHECK-NEXT:      d2m.push %[[K_CB]]
// CHECK-NEXT:      d2m.dma_wait %[[VTX]]
// CHECK-NEXT:      d2m.dma_mcast %[[V_BLK]], %[[V_BLK]] {{.*}}] linked :
// CHECK-NEXT:      d2m.semaphore_set %[[V_VALID]]
// CHECK-NEXT:      d2m.push %[[V_CB]]
// CHECK-NEXT:    } else {
// CHECK-NEXT:      d2m.semaphore_inc %[[READY]]
// CHECK-NEXT:      d2m.semaphore_wait %[[K_VALID]]
// CHECK-NEXT:      d2m.push %[[K_CB]]
// CHECK-NEXT:      d2m.semaphore_wait %[[V_VALID]]
// CHECK-NEXT:      d2m.push %[[V_CB]]
// CHECK-NEXT:    }
func.func @one_handshake(%k: !dram, %v: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x2>, block_factors = [1, 1, 1], indexing_maps = [#rk, #rk, #rn], iterator_types = [#ttcore.iterator_type<parallel>, #ttcore.iterator_type<parallel>, #ttcore.iterator_type<reduction>], threads = [#d2m.thread<compute>]} ins(%k, %v : !dram, !dram) outs(%out : !dram) {
  ^bb0(%k_cb: !cb, %v_cb: !cb, %out_cb: !cb):
    %x = d2m.wait %k_cb : !cb -> tensor<1x1x!tile>
    %y = d2m.wait %v_cb : !cb -> tensor<1x1x!tile>
    %o = d2m.reserve %out_cb : !cb -> tensor<1x1x!tile>
    %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1x1x!tile>) outs(%o : tensor<1x1x!tile>) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    } -> tensor<1x1x!tile>
    %f = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<1x1x!tile>) outs(%e : tensor<1x1x!tile>) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    } -> tensor<1x1x!tile>
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!l1 = memref<1x1x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
!dram = memref<1x1x!tile, #ttcore.memory_space<dram>>

// An input whose CB the compute thread fills itself (a scratch CB: tt-metal's
// accumulation through a CB) gets no reader; the output still gets its writer.
// CHECK-LABEL: func.func @compute_filled_input
// CHECK:       threads = [#d2m.thread<compute>, #d2m.thread<datamovement>]
// CHECK-NOT:   d2m.dma_read
// CHECK:       d2m.dma_write %{{.*}}, %out
// CHECK-NOT:   d2m.dma_read
// CHECK:       return
func.func @compute_filled_input(%acc: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%acc : !dram) outs(%out : !dram) {
  ^bb0(%acc_cb: !cb, %out_cb: !cb):
    %a = d2m.reserve %acc_cb : !cb -> tensor<1x1x!tile>
    d2m.push %acc_cb : !cb
    %pre = d2m.wait %acc_cb : !cb -> tensor<1x1x!tile>
    %o = d2m.reserve %out_cb : !cb -> tensor<1x1x!tile>
    d2m.store %o, %pre : tensor<1x1x!tile>, tensor<1x1x!tile>
    d2m.push %out_cb : !cb
    d2m.pop %acc_cb : !cb
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!cb = !d2m.cb<memref<1x1x!tile, #ttcore.memory_space<l1>>>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>

// Both data-movement threads busy: the reader and the writer become a third and a
// fourth thread, past the two a core runs (d2m-hw-thread-selection merges them).
// CHECK-LABEL: func.func @no_empty_thread
// CHECK:       threads = [#d2m.thread<compute>, #d2m.thread<datamovement>, #d2m.thread<datamovement>, #d2m.thread<datamovement>, #d2m.thread<datamovement>]
// CHECK:       d2m.dma_read %in
// CHECK:       d2m.dma_write %{{.*}}, %out
func.func @no_empty_thread(%in: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>, #d2m.thread<datamovement>, #d2m.thread<datamovement>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %x = d2m.wait %in_cb : !cb -> tensor<1x1x!tile>
    %o = d2m.reserve %out_cb : !cb -> tensor<1x1x!tile>
  }, {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %c0 = arith.constant 0 : index
  }, {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %c0 = arith.constant 0 : index
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!l1 = memref<1x1x!tile, #ttcore.memory_space<l1>>
!cb1 = !d2m.cb<!l1, 1>
!cb = !d2m.cb<!l1>
!dram = memref<1x2x!tile, #ttcore.memory_space<dram>>
#rk = affine_map<(d0, d1, d2) -> (d0, d2)>
#rn = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// A shared input whose CB holds one block: the next block's read would land in the slot
// the multicast reads from, so the sender waits for the multicast right after it, not a
// block later (no `dma_write_barrier`).
// CHECK-LABEL: func.func @one_buffer
// CHECK:       }, {
// CHECK-NOT:     d2m.dma_write_barrier
// CHECK:         %[[MC:.*]] = d2m.dma_mcast {{.*}} linked :
// CHECK-NEXT:    d2m.semaphore_set
// CHECK-NEXT:    d2m.push
// CHECK-NEXT:    d2m.dma_wait %[[MC]]
// CHECK-NOT:     d2m.dma_write_barrier
// CHECK:       }, {
func.func @one_buffer(%k: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x2>, block_factors = [1, 1, 1], indexing_maps = [#rk, #rn], iterator_types = [#ttcore.iterator_type<parallel>, #ttcore.iterator_type<parallel>, #ttcore.iterator_type<reduction>], threads = [#d2m.thread<compute>]} ins(%k : !dram) outs(%out : !dram) {
  ^bb0(%k_cb: !cb1, %out_cb: !cb):
    %x = d2m.wait %k_cb : !cb1 -> tensor<1x1x!tile>
    %o = d2m.reserve %out_cb : !cb -> tensor<1x1x!tile>
    %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1x1x!tile>) outs(%o : tensor<1x1x!tile>) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    } -> tensor<1x1x!tile>
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!cb = !d2m.cb<memref<1x1x!tile, #ttcore.memory_space<l1>>>
!dram = memref<1x2x!tile, #ttcore.memory_space<dram>>
!one = memref<1x1x!tile, #ttcore.memory_space<dram>>

// First blocks first, not taken: on a 1x2 grid c (one block per row) and s (one for the
// grid) are both multicast along the row, by one handshake at two loop levels (s once,
// c per row) on one `ready`; priming it would send one early `ready` for two first
// handshakes, so it is not primed (no `start` semaphore), though x is read by each core.
// CHECK-LABEL: func.func @not_primed_two_levels
// CHECK:       }, {
// CHECK-NEXT:  ^bb0({{.*}}%c_s_ready_1: !d2m.semaphore, %c_valid_1: !d2m.semaphore, %s_valid_1: !d2m.semaphore):
// CHECK-NOT:     _start
// CHECK:         d2m.dma_read %x
// CHECK:       }, {
func.func @not_primed_two_levels(%x: !dram, %c: !one, %s: !one, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x2>, block_factors = [1, 1], indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = [#ttcore.iterator_type<parallel>, #ttcore.iterator_type<parallel>], threads = [#d2m.thread<compute>]} ins(%x, %c, %s : !dram, !one, !one) outs(%out : !dram) {
  ^bb0(%x_cb: !cb, %c_cb: !cb, %s_cb: !cb, %out_cb: !cb):
    %sb = d2m.wait %s_cb : !cb -> tensor<1x1x!tile>
    %cb = d2m.wait %c_cb : !cb -> tensor<1x1x!tile>
    %xb = d2m.wait %x_cb : !cb -> tensor<1x1x!tile>
    %o = d2m.reserve %out_cb : !cb -> tensor<1x1x!tile>
    d2m.store %o, %xb : tensor<1x1x!tile>, tensor<1x1x!tile>
    d2m.push %out_cb : !cb
    d2m.pop %x_cb : !cb
    d2m.pop %c_cb : !cb
    d2m.pop %s_cb : !cb
  }
  return
}
