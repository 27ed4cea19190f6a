// RUN: %ttlang-opt %s -p d2m-hw-thread-selection --split-input-file | FileCheck %s

!tile = !ttcore.tile<32x32, bf16>
!l1 = memref<1x1x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>

// Two busy readers and a generated writer of 4 blocks: the writer follows the second
// reader's body, and `out`'s CB grows to its 4 blocks in every thread.
// CHECK-LABEL: func.func @writer_appended
// CHECK:       threads = [#d2m.thread<compute>, #d2m.thread<datamovement>, #d2m.thread<datamovement>]
// CHECK-NEXT:  ^bb0(%{{.*}}: !d2m.cb<{{.*}}>, %{{.*}}: !d2m.cb<{{.*}}>, %{{.*}}: !d2m.cb<memref<1x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>, 4>):
// CHECK:       }, {
// CHECK-NEXT:  ^bb0(%[[L:.*]]: !d2m.cb<{{.*}}>, %{{.*}}: !d2m.cb<{{.*}}>, %{{.*}}: !d2m.cb<{{.*}}, 4>):
// CHECK-NEXT:    %{{.*}} = d2m.reserve %[[L]]
// CHECK:       }, {
// CHECK-NEXT:  ^bb0(%{{.*}}: !d2m.cb<{{.*}}>, %[[R:.*]]: !d2m.cb<{{.*}}>, %[[O:.*]]: !d2m.cb<{{.*}}, 4>):
// CHECK-NEXT:    %{{.*}} = d2m.reserve %[[R]]
// CHECK-NEXT:    d2m.push %[[R]]
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK:         scf.for
// CHECK-NEXT:      scf.for
// CHECK-NEXT:        %{{.*}} = d2m.wait %[[O]]
// CHECK-NEXT:        d2m.dma_write
// CHECK-NEXT:        d2m.dma_wait
// CHECK-NEXT:        d2m.pop %[[O]]
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NEXT:  func.return
func.func @writer_appended(%lhs: !dram, %rhs: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>, #d2m.thread<datamovement>, #d2m.thread<datamovement>, #d2m.thread<datamovement>]} ins(%lhs, %rhs : !dram, !dram) outs(%out : !dram) {
  ^bb0(%l: !cb, %r: !cb, %o: !cb):
    %x = d2m.wait %l : !cb -> tensor<1x1x!tile>
  }, {
  ^bb0(%l: !cb, %r: !cb, %o: !cb):
    %b = d2m.reserve %l : !cb -> !l1
    d2m.push %l : !cb
  }, {
  ^bb0(%l: !cb, %r: !cb, %o: !cb):
    %b = d2m.reserve %r : !cb -> !l1
    d2m.push %r : !cb
  }, {
  ^bb0(%l: !cb, %r: !cb, %o: !cb):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    scf.for %i = %c0 to %c2 step %c1 {
      scf.for %j = %c0 to %c2 step %c1 {
        %b = d2m.wait %o : !cb -> !l1
        %tx = d2m.dma_write %b, %out[%i, %j] : !l1, !dram -> !d2m.mem_tx
        d2m.dma_wait %tx
        d2m.pop %o : !cb
      }
    }
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!l1 = memref<1x1x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
!dram = memref<1x1x!tile, #ttcore.memory_space<dram>>

// A generated reader (third thread) goes before the first thread's body; an empty
// fourth thread is dropped. One block: the CB keeps its default 2.
// CHECK-LABEL: func.func @reader_prepended
// CHECK:       threads = [#d2m.thread<compute>, #d2m.thread<datamovement>, #d2m.thread<datamovement>]
// CHECK:       }, {
// CHECK-NEXT:  ^bb0(%[[IN:[^:]*]]: !d2m.cb<memref<1x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>, %[[O:[^:]*]]: !d2m.cb<{{.*}}>, %{{.*}}: !d2m.semaphore):
// CHECK-NEXT:    arith.constant 0
// CHECK-NEXT:    %{{.*}} = d2m.reserve %[[IN]]
// CHECK-NEXT:    %{{.*}} = d2m.dma_read
// CHECK:         d2m.push %[[IN]]
// CHECK-NEXT:    %{{.*}} = d2m.wait %[[O]]
// CHECK:       }, {
// CHECK-NEXT:  ^bb0
// CHECK:         d2m.semaphore_wait
// CHECK-NEXT:  }
// CHECK-NEXT:  func.return
func.func @reader_prepended(%in: !dram, %out: !dram, %other: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>, #d2m.thread<datamovement>, #d2m.thread<datamovement>, #d2m.thread<datamovement>, #d2m.thread<datamovement>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%i: !cb, %o: !cb, %s: !d2m.semaphore):
    %x = d2m.wait %i : !cb -> tensor<1x1x!tile>
  }, {
  ^bb0(%i: !cb, %o: !cb, %s: !d2m.semaphore):
    %b = d2m.wait %o : !cb -> !l1
    d2m.pop %o : !cb
  }, {
  ^bb0(%i: !cb, %o: !cb, %s: !d2m.semaphore):
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    d2m.semaphore_wait %s, %c1 reset %c0
  }, {
  ^bb0(%i: !cb, %o: !cb, %s: !d2m.semaphore):
    %c0 = arith.constant 0 : index
    %b = d2m.reserve %i : !cb -> !l1
    %tx = d2m.dma_read %in[%c0, %c0], %b : !dram, !l1 -> !d2m.mem_tx
    d2m.dma_wait %tx
    d2m.push %i : !cb
  }, {
  ^bb0(%i: !cb, %o: !cb, %s: !d2m.semaphore):
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!l1 = memref<1x1x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>

// FlashAttention's threads: a thread filling a kernel-local CB (the CB argument after
// the operands'), a generated reader and a generated writer. The writer follows the
// reader; the kernel-local CB stays in every thread, holding its 2 blocks (only the
// merged writer's CB grows).
// CHECK-LABEL: func.func @with_kernel_local_cb
// CHECK:       threads = [#d2m.thread<compute>, #d2m.thread<datamovement>, #d2m.thread<datamovement>], cbs_holding_all_blocks = [#builtin.int<1>]
// CHECK-NEXT:  ^bb0(%{{.*}}: !d2m.cb<{{.*}}>, %{{.*}}: !d2m.cb<{{.*}}, 4>, %{{.*}}: !d2m.cb<memref<1x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>):
// CHECK:       }, {
// CHECK-NEXT:  ^bb0(%{{.*}}: !d2m.cb<{{.*}}>, %{{.*}}: !d2m.cb<{{.*}}, 4>, %[[MASK:[^:]*]]: !d2m.cb<memref<1x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>):
// CHECK:         %{{.*}} = d2m.reserve %[[MASK]]
// CHECK:       }, {
// CHECK-NEXT:  ^bb0(%[[IN:[^:]*]]: !d2m.cb<{{.*}}>, %[[O:[^:]*]]: !d2m.cb<{{.*}}, 4>, %{{.*}}: !d2m.cb<memref<1x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>):
// CHECK-NEXT:    %{{.*}} = d2m.reserve %[[IN]]
// CHECK:         %{{.*}} = d2m.wait %[[O]]
// CHECK:       func.return
func.func @with_kernel_local_cb(%in: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>, #d2m.thread<datamovement>, #d2m.thread<datamovement>, #d2m.thread<datamovement>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%i: !cb, %o: !cb, %mask: !cb):
    %x = d2m.wait %mask : !cb -> tensor<1x1x!tile>
  }, {
  ^bb0(%i: !cb, %o: !cb, %mask: !cb):
    %c0 = arith.constant 0 : index
    %b = d2m.reserve %mask : !cb -> !l1
    d2m.fill_causal_mask %b, %c0, %c0 : !l1
    d2m.push %mask : !cb
  }, {
  ^bb0(%i: !cb, %o: !cb, %mask: !cb):
    %b = d2m.reserve %i : !cb -> !l1
    %c0 = arith.constant 0 : index
    %tx = d2m.dma_read %in[%c0, %c0], %b : !dram, !l1 -> !d2m.mem_tx
    d2m.dma_wait %tx
    d2m.push %i : !cb
  }, {
  ^bb0(%i: !cb, %o: !cb, %mask: !cb):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    scf.for %r = %c0 to %c2 step %c1 {
      scf.for %c = %c0 to %c2 step %c1 {
        %b = d2m.wait %o : !cb -> !l1
        %tx = d2m.dma_write %b, %out[%r, %c] : !l1, !dram -> !d2m.mem_tx
        d2m.dma_wait %tx
        d2m.pop %o : !cb
      }
    }
  }
  return
}
