// A kernel-local CB (a CB argument after the operands', backed by no tensor) gets no
// data movement, even when a thread fills it with d2m.fill_causal_mask (which marks
// an operand's CB as filled in the kernel); the regions the pass adds get it too,
// before the semaphores of the multicast.
// RUN: %ttlang-opt %s -p d2m-generate-datamovement | FileCheck %s

!tile = !ttcore.tile<32x32, bf16>
!l1 = memref<1x1x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!column = memref<2x1x!tile, #ttcore.memory_space<dram>>
#row = affine_map<(d0, d1) -> (d0, 0)>
#all = affine_map<(d0, d1) -> (d0, d1)>

// A 1x2 grid: `x` is read along the whole row (multicast from column 0), `out` written
// per block; the compute thread adds the mask block the `masks` thread fills.
// CHECK-LABEL: func.func @masked
// CHECK:       threads = [#d2m.thread<compute>, #d2m.thread<datamovement>, #d2m.thread<datamovement>, #d2m.thread<datamovement>]
// CHECK:       ^bb0(%{{[^:]*}}: !d2m.cb<{{.*}}>, %{{[^:]*}}: !d2m.cb<{{.*}}>, %[[MASK:[^:]*]]: !d2m.cb<{{.*}}>, %{{[^:]*}}: !d2m.semaphore, %{{[^:]*}}: !d2m.semaphore):
// CHECK:       d2m.fill_causal_mask
// CHECK:       }, {
// CHECK-NEXT:  ^bb0(%[[X_CB:[^:]*]]: !d2m.cb<{{.*}}>, %{{[^:]*}}: !d2m.cb<{{.*}}>, %[[READER_MASK:[^:]*]]: !d2m.cb<{{.*}}>, %{{[^:]*}}: !d2m.semaphore, %{{[^:]*}}: !d2m.semaphore):
// CHECK-NOT:   %[[READER_MASK]]
// CHECK:       d2m.dma_read %x
// CHECK-NOT:   %[[READER_MASK]]
// CHECK:       }, {
// CHECK-NEXT:  ^bb0(%{{[^:]*}}: !d2m.cb<{{.*}}>, %[[OUT_CB:[^:]*]]: !d2m.cb<{{.*}}>, %[[WRITER_MASK:[^:]*]]: !d2m.cb<{{.*}}>, %{{[^:]*}}: !d2m.semaphore, %{{[^:]*}}: !d2m.semaphore):
// CHECK-NOT:   %[[WRITER_MASK]]
// CHECK:       d2m.dma_write %{{.*}}, %out
// CHECK-NOT:   %[[WRITER_MASK]]
// CHECK:       return
func.func @masked(%x: !column, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x2>, block_factors = [1, 1], threads = [#d2m.thread<compute>, #d2m.thread<datamovement>],
               indexing_maps = [#row, #all], iterator_types = [#ttcore.iterator_type<parallel>, #ttcore.iterator_type<parallel>]}
      ins(%x : !column) outs(%out : !dram) {
  ^bb0(%x_cb: !cb, %out_cb: !cb, %mask_cb: !cb):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    scf.for %i = %c0 to %c2 step %c1 {
      %a = d2m.wait %x_cb : !cb -> tensor<1x1x!tile>
      %m = d2m.wait %mask_cb : !cb -> tensor<1x1x!tile>
      %o = d2m.reserve %out_cb : !cb -> tensor<1x1x!tile>
      d2m.store %o, %a : tensor<1x1x!tile>, tensor<1x1x!tile>
      d2m.push %out_cb : !cb
      d2m.pop %mask_cb : !cb
      d2m.pop %x_cb : !cb
    }
  }, {
  ^bb0(%x_cb: !cb, %out_cb: !cb, %mask_cb: !cb):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    scf.for %i = %c0 to %c2 step %c1 {
      %blk = d2m.reserve %mask_cb : !cb -> !l1
      d2m.fill_causal_mask %blk, %c0, %c0 : !l1
      d2m.push %mask_cb : !cb
    }
  }
  return
}
