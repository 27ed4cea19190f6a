// RUN: %ttlang-opt %s -p d2m-generate-datamovement | FileCheck %s

!tile = !ttcore.tile<32x32, bf16>
!cb = !d2m.cb<memref<1x1x!tile, #ttcore.memory_space<l1>>>
!dram = memref<4x1x!tile, #ttcore.memory_space<dram>>

// A triangular iteration space: out block i = a block i + b blocks 0..i (loop dims
// (i, j), j bounded by i + 1), i dealt serpentine over a 1x2 grid: core x's blocks are
// 3 - x, then x (block 2r + (1 - x if n is even, else x), round r = 1 - n). The
// compute thread's `d2m.block_index` and the reader's loops get the same arithmetic.
// b does not depend on i, but the cores' j loops differ: in round n = 0 (blocks 3, 2:
// bounds 4, 3, non-increasing along the row) core 0 reads each b block and multicasts
// it to the cores whose loop reaches it (it counts them); round 1 (blocks 0, 1: bounds
// 1, 2) walks j backwards (block bound - 1 - step), so both cores reach block 0 at the
// same step: core 1 reads and multicasts (its own `valid`: core 0 sent in round 0),
// giving `go` to core 0 before its first block.
// CHECK-LABEL: func.func @serpentine_triangle
// CHECK:         scf.for %[[N:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NOT:       d2m.block_index
// CHECK:           %[[X:.*]] = d2m.core_index(1)
// CHECK-NEXT:      %[[LAST:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[R:.*]] = arith.subi %[[LAST]], %[[N]] : index
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[N1:.*]] = arith.addi %[[N]], %[[ONE]] : index
// CHECK-NEXT:      %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[EVEN:.*]] = arith.remui %[[N1]], %[[TWO]] : index
// CHECK-NEXT:      %[[G1:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[MIRROR:.*]] = arith.subi %[[G1]], %[[X]] : index
// CHECK-NEXT:      %[[D:.*]] = arith.subi %[[MIRROR]], %[[X]] : index
// CHECK-NEXT:      %[[FLIP:.*]] = arith.muli %[[EVEN]], %[[D]] : index
// CHECK-NEXT:      %[[POS:.*]] = arith.addi %[[X]], %[[FLIP]] : index
// CHECK-NEXT:      %[[G:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[BASE:.*]] = arith.muli %[[R]], %[[G]] : index
// CHECK-NEXT:      %[[I:.*]] = arith.addi %[[BASE]], %[[POS]] : index
// CHECK-NEXT:      %{{.*}} = arith.addi %[[I]], %{{.*}} : index
// The reader: per n, a block i, then b blocks 0 .. i (its bound, i + 1)
// CHECK:       }, {
// b is primed ("First blocks first"): core 1, receiving round 0's first b block (its
// loops reach it: its bound there, 3, is positive), reserves it and sends `ready` at the
// start, and waits for core 0's `start` before its first a read.
// CHECK:         %[[RY:.*]] = d2m.core_index(0)
// CHECK-NEXT:    %[[RX:.*]] = d2m.core_index(1)
// CHECK-NEXT:    %[[NOT_SENDER:.*]] = arith.cmpi ne, %[[RX]], %[[C0:.*]] : index
// CHECK:         %[[REACHES_FIRST:.*]] = arith.cmpi sgt, %{{.*}}, %[[C0]] : index
// CHECK-NEXT:    %[[PRIME:.*]] = arith.andi %[[NOT_SENDER]], %[[REACHES_FIRST]] : i1
// CHECK-NEXT:    scf.if %[[PRIME]] {
// CHECK-NEXT:      d2m.reserve
// CHECK-NEXT:      d2m.semaphore_inc %b_ready_1, %{{.*}} core[%[[RY]], %[[C0]]]
// CHECK:         scf.for %[[RN:.*]] = %[[C0]] to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[FIRST_N:.*]] = arith.cmpi eq, %[[RN]], %[[C0]] : index
// CHECK-NEXT:      %[[AWAIT:.*]] = arith.andi %[[FIRST_N]], %[[PRIME]] : i1
// CHECK-NEXT:      scf.if %[[AWAIT]] {
// CHECK-NEXT:        d2m.semaphore_wait %b_start_1, %{{.*}} reset %[[C0]]
// CHECK:           %[[A_BLK:.*]] = d2m.reserve
// CHECK:           d2m.dma_read %a[%{{.*}}, %{{.*}}], %[[A_BLK]]
// CHECK:           scf.for %[[STEP:.*]] = %{{.*}} to %[[END:.*]] step %{{.*}} {
// The block: the step, or in odd rounds end - 1 - step
// CHECK-NEXT:        %[[ODD:.*]] = arith.remui %[[RN]], %{{.*}} : index
// CHECK-NEXT:        %[[LASTJ:.*]] = arith.subi %[[END]], %{{.*}} : index
// CHECK-NEXT:        %[[TWICE:.*]] = arith.addi %[[STEP]], %[[STEP]] : index
// CHECK-NEXT:        %[[BACK:.*]] = arith.subi %[[LASTJ]], %[[TWICE]] : index
// CHECK-NEXT:        %[[SHIFT:.*]] = arith.muli %[[ODD]], %[[BACK]] : index
// CHECK-NEXT:        %[[J:.*]] = arith.addi %[[STEP]], %[[SHIFT]] : index
// CHECK-NEXT:        %[[B_BLK:.*]] = d2m.reserve
// CHECK-NEXT:        %[[BROW:.*]] = arith.muli %[[J]], %{{.*}} : index
// CHECK-NEXT:        %[[ROUND1:.*]] = arith.cmpi eq, %[[RN]], %[[C1:.*]] : index
// CHECK-NEXT:        %[[ROUND0:.*]] = arith.cmpi eq, %[[RN]], %[[C0]] : index
// CHECK-NEXT:        scf.if %[[ROUND0]] {
// CHECK-NEXT:          %[[FIRST:.*]] = arith.cmpi eq, %[[RX]], %[[C0]] : index
// CHECK-NEXT:          scf.if %[[FIRST]] {
// CHECK-NEXT:            %[[TX:.*]] = d2m.dma_read %b[%[[BROW]], %{{.*}}], %[[B_BLK]]
// Core 1's bound in this round, compared with j: 0 or 1 receivers
// CHECK:                 %[[REACHES:.*]] = arith.cmpi slt, %[[J]], %{{.*}} : index
// CHECK-NEXT:            %[[BIT:.*]] = arith.extui %[[REACHES]] : i1 to i32
// CHECK-NEXT:            %[[COUNT:.*]] = arith.index_cast %[[BIT]] : i32 to index
// CHECK-NEXT:            %[[RECEIVERS:.*]] = arith.addi %[[C0]], %[[COUNT]] : index
// CHECK-NEXT:            %[[CORES:.*]] = arith.addi %[[RECEIVERS]], %{{.*}} : index
// CHECK-NEXT:            %[[ANY:.*]] = arith.cmpi ugt, %[[RECEIVERS]], %[[C0]] : index
// CHECK-NEXT:            scf.if %[[ANY]] {
// The first iteration: `start` once the block's read is issued
// CHECK-NEXT:              %[[F0:.*]] = arith.cmpi eq, %[[RN]], %[[C0]] : index
// CHECK-NEXT:              %[[F1:.*]] = arith.cmpi eq, %[[STEP]], %[[C0]] : index
// CHECK-NEXT:              %[[FIRST_IT:.*]] = arith.andi %[[F0]], %[[F1]] : i1
// CHECK-NEXT:              scf.if %[[FIRST_IT]] {
// CHECK-NEXT:                d2m.semaphore_set %b_start_1, %{{.*}} core[%[[RY]], %[[C0]]] mcast[%{{.*}}, %[[CORES]]]
// CHECK-NEXT:              } else {
// CHECK-NEXT:              }
// CHECK-NEXT:              d2m.semaphore_wait %b_ready_1, %[[RECEIVERS]] reset %[[C0]]
// CHECK-NEXT:              d2m.dma_wait %[[TX]]
// CHECK-NEXT:              %[[MC:.*]] = d2m.dma_mcast %[[B_BLK]], %[[B_BLK]] core[%[[RY]], %[[C0]]] mcast[%{{.*}}, %[[CORES]]] linked :
// CHECK-NEXT:              d2m.semaphore_set %b_valid_1, %{{.*}} core[%[[RY]], %[[C0]]] mcast[%{{.*}}, %[[CORES]]]
// CHECK-NEXT:              d2m.push %[[B_CB:.*]] :
// CHECK-NEXT:              d2m.dma_wait %[[MC]]
// No receivers: only the read's wait
// CHECK-NEXT:            } else {
// CHECK-NEXT:              d2m.dma_wait %[[TX]]
// CHECK-NEXT:              d2m.push %[[B_CB]]
// A receiver's first-iteration `ready` went at the start
// CHECK:               } else {
// CHECK-NEXT:            %[[L0:.*]] = arith.cmpi ne, %[[RN]], %[[C0]] : index
// CHECK-NEXT:            %[[L1:.*]] = arith.cmpi ne, %[[STEP]], %[[C0]] : index
// CHECK-NEXT:            %[[LATER:.*]] = arith.ori %[[L0]], %[[L1]] : i1
// CHECK-NEXT:            scf.if %[[LATER]] {
// CHECK-NEXT:              d2m.semaphore_inc %b_ready_1, %{{.*}} core[%[[RY]], %[[C0]]]
// CHECK-NEXT:            } else {
// CHECK-NEXT:            }
// CHECK-NEXT:            d2m.semaphore_wait %b_valid_1, %{{.*}} reset %[[C0]]
// CHECK-NEXT:            d2m.push %[[B_CB]]
// CHECK:             } else {
// Round 1: the last core sends; core 0 (the range's start: 1 - receivers) joins when
// its bound is j + 1, after the sender's `go`
// CHECK-NEXT:          scf.if %[[ROUND1]] {
// CHECK-NEXT:            %[[LAST:.*]] = arith.cmpi eq, %[[RX]], %[[C1]] : index
// CHECK-NEXT:            scf.if %[[LAST]] {
// CHECK-NEXT:              %[[TX1:.*]] = d2m.dma_read %b[%[[BROW]], %{{.*}}], %[[B_BLK]]
// CHECK:                   %[[REACHES0:.*]] = arith.cmpi slt, %[[J]], %[[BOUND0:.*]] : index
// CHECK:                   %[[RECEIVERS1:.*]] = arith.addi %[[C0]], %{{.*}} : index
// CHECK-NEXT:              %[[CORES1:.*]] = arith.addi %[[RECEIVERS1]], %[[C1]] : index
// CHECK-NEXT:              %[[NEXT:.*]] = arith.addi %[[J]], %[[C1]] : index
// CHECK:                   %[[JOINS:.*]] = arith.cmpi eq, %[[NEXT]], %{{.*}} : index
// CHECK-NEXT:              scf.if %[[JOINS]] {
// CHECK-NEXT:                d2m.semaphore_set %b_go_1, %[[C1]] core[%[[RY]], %[[C0]]]
// CHECK:                   %[[START:.*]] = arith.subi %[[C1]], %[[RECEIVERS1]] : index
// CHECK-NEXT:              %[[ANY1:.*]] = arith.cmpi ugt, %[[RECEIVERS1]], %[[C0]] : index
// CHECK-NEXT:              scf.if %[[ANY1]] {
// CHECK-NEXT:                d2m.semaphore_wait %b_ready_1, %[[RECEIVERS1]] reset %[[C0]]
// CHECK-NEXT:                d2m.dma_wait %[[TX1]]
// CHECK-NEXT:                %[[MC1:.*]] = d2m.dma_mcast %[[B_BLK]], %[[B_BLK]] core[%[[RY]], %[[START]]] mcast[%[[C1]], %[[CORES1]]] linked :
// CHECK-NEXT:                d2m.semaphore_set %b_back_valid_1, %[[C1]] core[%[[RY]], %[[START]]] mcast[%[[C1]], %[[CORES1]]]
// CHECK-NEXT:                d2m.push %[[B_CB]]
// CHECK-NEXT:                d2m.dma_wait %[[MC1]]
// CHECK:                 } else {
// CHECK:                 } else {
// CHECK-NEXT:              %[[JOINING:.*]] = arith.cmpi eq, %[[STEP]], %[[C0]] : index
// CHECK-NEXT:              scf.if %[[JOINING]] {
// CHECK-NEXT:                d2m.semaphore_wait %b_go_1, %[[C1]] reset %[[C0]]
// CHECK:                   d2m.semaphore_inc %b_ready_1, %[[C1]] core[%[[RY]], %[[C1]]]
// CHECK-NEXT:              d2m.semaphore_wait %b_back_valid_1, %[[C1]] reset %[[C0]]
// CHECK-NEXT:              d2m.push %[[B_CB]]
// CHECK:               } else {
// CHECK-NEXT:            %[[OWN:.*]] = d2m.dma_read %b[%[[BROW]], %{{.*}}], %[[B_BLK]]
// CHECK-NEXT:            d2m.dma_wait %[[OWN]]
// CHECK-NEXT:            d2m.push %[[B_CB]]
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK:       }, {
// CHECK:         d2m.dma_write
func.func @serpentine_triangle(%a: !dram, %b: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x2>, block_factors = [1, 1], threads = [#d2m.thread<compute>], indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d1, 0)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = [#ttcore.iterator_type<parallel>, #ttcore.iterator_type<reduction>], loop_bounds = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0 + 1)>], deal = "serpentine"} ins(%a, %b : !dram, !dram) outs(%out : !dram) {
  ^bb0(%a_cb: !cb, %b_cb: !cb, %out_cb: !cb):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    scf.for %n = %c0 to %c2 step %c1 {
      %x = d2m.wait %a_cb : !cb -> tensor<1x1x!tile>
      %i = d2m.block_index(0) %n
      %end = arith.addi %i, %c1 : index
      scf.for %j = %c0 to %end step %c1 {
        %y = d2m.wait %b_cb : !cb -> tensor<1x1x!tile>
        d2m.pop %b_cb : !cb
      }
      d2m.pop %a_cb : !cb
      %o = d2m.reserve %out_cb : !cb -> tensor<1x1x!tile>
      d2m.store %o, %x : tensor<1x1x!tile>, tensor<1x1x!tile>
      d2m.push %out_cb : !cb
    }
  }
  return
}

// Two heads per core (d0, unsplit), one block of i each (d1, serpentine over 1x2:
// core x takes block 1 - x), b blocks 0..i (d2): b's counts fall along the row (2, 1),
// but after the first head core 0 has moved 2 b blocks and core 1 one, so their CB
// slots differ and a multicast (which lands at the sender's slot) would corrupt core 1:
// every core reads its own.
// CHECK-LABEL: func.func @unequal_heads
// CHECK:       }, {
// CHECK-NOT:     d2m.dma_mcast
// CHECK:       }, {
!dram3 = memref<2x2x1x!tile, #ttcore.memory_space<dram>>
!cb3 = !d2m.cb<memref<1x1x1x!tile, #ttcore.memory_space<l1>>>
func.func @unequal_heads(%a: !dram3, %b: !dram3, %out: !dram3) {
  d2m.generic {grid = #ttcore.grid<1x2>, block_factors = [1, 1, 1], threads = [#d2m.thread<compute>], indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d2, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>], iterator_types = [#ttcore.iterator_type<parallel>, #ttcore.iterator_type<parallel>, #ttcore.iterator_type<reduction>], loop_bounds = [affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> (d1 + 1)>], deal = "serpentine"} ins(%a, %b : !dram3, !dram3) outs(%out : !dram3) {
  ^bb0(%a_cb: !cb3, %b_cb: !cb3, %out_cb: !cb3):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    scf.for %h = %c0 to %c2 step %c1 {
      %x = d2m.wait %a_cb : !cb3 -> tensor<1x1x1x!tile>
      %i = d2m.block_index(1) %c0
      %end = arith.addi %i, %c1 : index
      scf.for %j = %c0 to %end step %c1 {
        %y = d2m.wait %b_cb : !cb3 -> tensor<1x1x1x!tile>
        d2m.pop %b_cb : !cb3
      }
      d2m.pop %a_cb : !cb3
      %o = d2m.reserve %out_cb : !cb3 -> tensor<1x1x1x!tile>
      d2m.store %o, %x : tensor<1x1x1x!tile>, tensor<1x1x1x!tile>
      d2m.push %out_cb : !cb3
    }
  }
  return
}

// The triangle with two inputs multicast in the same rounds (causal attention's k and
// v): one handshake, a `valid` each; the sender multicasts b once its read is through
// (linked to b's `valid`, set right after), reads c meanwhile, pushes b, then
// multicasts and pushes c, waits for the multicasts and sets c's `valid`. A receiver
// pushes each block on its own `valid`. With no receivers (its loop alone reaches the
// block) it reads c at once and waits for both.
// Primed: the first round's sender sets `start` once b's first read is issued (c goes
// to DRAM after the receivers' a).
// CHECK-LABEL: func.func @serpentine_pair
// CHECK:       }, {
// CHECK:           d2m.semaphore_wait %b_c_start_1
// CHECK:             scf.if %{{.*}} {
// CHECK-NEXT:          %[[SENDS:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : index
// CHECK-NEXT:          scf.if %[[SENDS]] {
// CHECK-NEXT:            %[[BTX:.*]] = d2m.dma_read %b
// CHECK:                 scf.if %{{.*}} {
// CHECK:                   d2m.semaphore_set %b_c_start_1
// CHECK:                   d2m.semaphore_wait %b_c_ready_1, %{{.*}} reset %{{.*}}
// CHECK-NEXT:              d2m.dma_wait %[[BTX]]
// CHECK-NEXT:              %[[BMC:.*]] = d2m.dma_mcast {{.*}}] linked :
// CHECK-NEXT:              d2m.semaphore_set %b_valid_1
// CHECK-NEXT:              %[[CTX:.*]] = d2m.dma_read %c
// CHECK-NEXT:              d2m.push %[[B_CB:[^ ]*]] :
// CHECK-NEXT:              d2m.dma_wait %[[CTX]]
// CHECK-NEXT:              %[[CMC:.*]] = d2m.dma_mcast {{.*}}] linked :
// CHECK-NEXT:              d2m.semaphore_set %c_valid_1
// CHECK-NEXT:              d2m.push %[[C_CB:[^ ]*]] :
// CHECK-NEXT:              d2m.dma_wait %[[BMC]]
// CHECK-NEXT:              d2m.dma_wait %[[CMC]]
// CHECK-NEXT:            } else {
// CHECK-NEXT:              %[[ALONE:.*]] = d2m.dma_read %c
// CHECK-NEXT:              d2m.dma_wait %[[BTX]]
// CHECK-NEXT:              d2m.dma_wait %[[ALONE]]
// CHECK-NEXT:              d2m.push %[[B_CB]]
// CHECK-NEXT:              d2m.push %[[C_CB]]
// CHECK-NEXT:            }
// CHECK-NEXT:          } else {
// CHECK:                   d2m.semaphore_inc %b_c_ready_1
// CHECK:                 d2m.semaphore_wait %b_valid_1
// CHECK-NEXT:            d2m.push %[[B_CB]]
// CHECK-NEXT:            d2m.semaphore_wait %c_valid_1
// CHECK-NEXT:            d2m.push %[[C_CB]]
// CHECK-NEXT:          }
// The backward round (the last core sends) the same on its own `back_valid` per input.
// CHECK:                   d2m.semaphore_set %b_c_go_1
// CHECK:                   d2m.semaphore_wait %b_c_ready_1
// CHECK-NEXT:              d2m.dma_wait
// CHECK-NEXT:              %{{.*}} = d2m.dma_mcast {{.*}}] linked :
// CHECK-NEXT:              d2m.semaphore_set %b_back_valid_1
// CHECK-NEXT:              %{{.*}} = d2m.dma_read %c
// CHECK-NEXT:              d2m.push %[[B_CB]]
// CHECK:                   d2m.semaphore_set %c_back_valid_1
// CHECK:                   d2m.semaphore_wait %b_c_go_1
// CHECK:               d2m.semaphore_inc %b_c_ready_1
// CHECK-NEXT:          d2m.semaphore_wait %b_back_valid_1
// CHECK-NEXT:          d2m.push %[[B_CB]]
// CHECK-NEXT:          d2m.semaphore_wait %c_back_valid_1
// CHECK-NEXT:          d2m.push %[[C_CB]]
func.func @serpentine_pair(%a: !dram, %b: !dram, %c: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x2>, block_factors = [1, 1], threads = [#d2m.thread<compute>], indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d1, 0)>, affine_map<(d0, d1) -> (d1, 0)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = [#ttcore.iterator_type<parallel>, #ttcore.iterator_type<reduction>], loop_bounds = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0 + 1)>], deal = "serpentine"} ins(%a, %b, %c : !dram, !dram, !dram) outs(%out : !dram) {
  ^bb0(%a_cb: !cb, %b_cb: !cb, %c_cb: !cb, %out_cb: !cb):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    scf.for %n = %c0 to %c2 step %c1 {
      %x = d2m.wait %a_cb : !cb -> tensor<1x1x!tile>
      %i = d2m.block_index(0) %n
      %end = arith.addi %i, %c1 : index
      scf.for %j = %c0 to %end step %c1 {
        %y = d2m.wait %b_cb : !cb -> tensor<1x1x!tile>
        %z = d2m.wait %c_cb : !cb -> tensor<1x1x!tile>
        d2m.pop %b_cb : !cb
        d2m.pop %c_cb : !cb
      }
      d2m.pop %a_cb : !cb
      %o = d2m.reserve %out_cb : !cb -> tensor<1x1x!tile>
      d2m.store %o, %x : tensor<1x1x!tile>, tensor<1x1x!tile>
      d2m.push %out_cb : !cb
    }
  }
  return
}
