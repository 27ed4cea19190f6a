// d2m-tril-masks: each distinct `d2m.tril_mask` band becomes a one-block kernel-local
// CB (an argument of every region, before the semaphores) that the first
// data-movement thread fills at its start and the compute thread waits for at its
// start and pops at its end; two trils of one band share it.
// RUN: %ttlang-opt %s -p d2m-tril-masks | FileCheck %s

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!l1 = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
!t = tensor<2x2x!tile>
!band = tensor<1x3x!tile>

// CHECK-LABEL: func.func @two_bands
// CHECK:       ^bb0(%{{[^:]*}}: !d2m.cb<{{.*}}>, %{{[^:]*}}: !d2m.cb<{{.*}}>, %[[A:tril_mask_cb[^:]*]]: !d2m.cb<memref<1x3x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>, 1>, %[[B:tril_mask_cb[^:]*]]: !d2m.cb<memref<1x3x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>, 1>, %{{[^:]*}}: !d2m.semaphore):
// CHECK-NEXT:    %[[BAND_A:.*]] = d2m.wait %[[A]] : {{.*}} -> tensor<1x3x!ttcore.tile<32x32, bf16>>
// CHECK-NEXT:    %[[BAND_B:.*]] = d2m.wait %[[B]] : {{.*}} -> tensor<1x3x!ttcore.tile<32x32, bf16>>
// CHECK-NOT:     d2m.tril_mask
// CHECK:         func.call @use(%[[BAND_A]], %[[BAND_A]], %[[BAND_B]])
// CHECK-NEXT:    d2m.pop %[[A]]
// CHECK-NEXT:    d2m.pop %[[B]]
// CHECK-NEXT:  }, {
// CHECK-NEXT:  ^bb0(%{{[^:]*}}: !d2m.cb<{{.*}}>, %{{[^:]*}}: !d2m.cb<{{.*}}>, %[[MA:tril_mask_cb[^:]*]]: !d2m.cb<{{.*}}>, %[[MB:tril_mask_cb[^:]*]]: !d2m.cb<{{.*}}>, %{{[^:]*}}: !d2m.semaphore):
// CHECK-NEXT:    %[[BLK_A:.*]] = d2m.reserve %[[MA]]
// CHECK-NEXT:    %[[ROW_A:.*]] = arith.constant 32 : index
// CHECK-NEXT:    %[[COL_A:.*]] = arith.constant 0 : index
// CHECK-NEXT:    d2m.fill_causal_mask %[[BLK_A]], %[[ROW_A]], %[[COL_A]]
// CHECK-NEXT:    d2m.push %[[MA]]
// CHECK-NEXT:    %[[BLK_B:.*]] = d2m.reserve %[[MB]]
// CHECK-NEXT:    %[[ROW_B:.*]] = arith.constant 64 : index
// CHECK:         d2m.fill_causal_mask %[[BLK_B]], %[[ROW_B]]
// CHECK-NEXT:    d2m.push %[[MB]]
// CHECK:         d2m.dma_read
// CHECK:       }, {
// CHECK-NEXT:  ^bb0(%{{[^:]*}}: !d2m.cb<{{.*}}>, %{{[^:]*}}: !d2m.cb<{{.*}}>, %{{[^:]*}}: !d2m.cb<{{.*}}>, %{{[^:]*}}: !d2m.cb<{{.*}}>, %{{[^:]*}}: !d2m.semaphore):
// CHECK-NOT:     d2m.fill_causal_mask
// CHECK:         d2m.dma_write
func.func private @use(!band, !band, !band)
func.func @two_bands(%x: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>, #d2m.thread<datamovement>, #d2m.thread<datamovement>]}
      ins(%x : !dram) outs(%out : !dram) {
  ^bb0(%x_cb: !cb, %out_cb: !cb, %sem: !d2m.semaphore):
    %a = d2m.tril_mask {row = 32 : i64} : !band
    %again = d2m.tril_mask {row = 32 : i64} : !band
    %b = d2m.tril_mask {row = 64 : i64} : !band
    func.call @use(%a, %again, %b) : (!band, !band, !band) -> ()
  }, {
  ^bb0(%x_cb_1: !cb, %out_cb_1: !cb, %sem_1: !d2m.semaphore):
    %c0 = arith.constant 0 : index
    %blk = d2m.reserve %x_cb_1 : !cb -> !l1
    %tx = d2m.dma_read %x[%c0, %c0], %blk : !dram, !l1 -> !d2m.mem_tx
    d2m.dma_wait %tx
    d2m.push %x_cb_1 : !cb
  }, {
  ^bb0(%x_cb_2: !cb, %out_cb_2: !cb, %sem_2: !d2m.semaphore):
    %c0 = arith.constant 0 : index
    %blk = d2m.wait %out_cb_2 : !cb -> !l1
    %tx = d2m.dma_write %blk, %out[%c0, %c0] : !l1, !dram -> !d2m.mem_tx
    d2m.dma_wait %tx
    d2m.pop %out_cb_2 : !cb
  }
  return
}
