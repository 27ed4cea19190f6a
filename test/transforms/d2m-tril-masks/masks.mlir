// d2m-tril-masks: the `d2m.tril_mask` bands of a compute thread become one band (per
// tile type) in a one-block kernel-local CB (an argument of every region, before the
// semaphores) that a data-movement thread reading nothing (the writer) fills at its
// start, and the compute thread waits for at its start and pops at its end. Each
// band's readers read it shifted to its tiles: a band with row offset 32 (tile t's
// key offset 32·t - 32) is tiles 1.. of the band with row offset 64.
// RUN: %ttlang-opt %s -p d2m-tril-masks | FileCheck %s

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!l1 = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
!t = tensor<2x2x!tile>
!band = tensor<1x3x!tile>
#id = affine_map<(d0, d1) -> (d0, d1)>
#band = affine_map<(d0, d1) -> (0, d1 - d0 + 1)>

// CHECK-LABEL: func.func @two_bands
// CHECK:       ^bb0(%{{[^:]*}}: !d2m.cb<{{.*}}>, %{{[^:]*}}: !d2m.cb<{{.*}}>, %[[BAND_CB:tril_mask_cb[^:]*]]: !d2m.cb<memref<1x4x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>, 1>, %{{[^:]*}}: !d2m.semaphore):
// CHECK-NEXT:    %[[BAND:.*]] = d2m.wait %[[BAND_CB]] : {{.*}} -> tensor<1x4x!ttcore.tile<32x32, bf16>>
// CHECK-NOT:     d2m.tril_mask
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, ((d1 + (d0 * -1)) + 2))>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:        ins(%{{.*}}, %[[BAND]] :
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, ((d1 + (d0 * -1)) + 1))>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:        ins(%{{.*}}, %[[BAND]] :
// CHECK:         d2m.pop %[[BAND_CB]]
// CHECK-NEXT:  }, {
// CHECK-NEXT:  ^bb0(%{{[^:]*}}: !d2m.cb<{{.*}}>, %{{[^:]*}}: !d2m.cb<{{.*}}>, %{{[^:]*}}: !d2m.cb<{{.*}}>, %{{[^:]*}}: !d2m.semaphore):
// CHECK-NOT:     d2m.fill_causal_mask
// CHECK:         d2m.dma_read
// CHECK:       }, {
// CHECK-NEXT:  ^bb0(%{{[^:]*}}: !d2m.cb<{{.*}}>, %{{[^:]*}}: !d2m.cb<{{.*}}>, %[[WRITER_CB:tril_mask_cb[^:]*]]: !d2m.cb<{{.*}}>, %{{[^:]*}}: !d2m.semaphore):
// CHECK-NEXT:    %[[BLK:.*]] = d2m.reserve %[[WRITER_CB]]
// CHECK-NEXT:    %[[ROW:.*]] = arith.constant 64 : index
// CHECK-NEXT:    %[[COL:.*]] = arith.constant 0 : index
// CHECK-NEXT:    d2m.fill_causal_mask %[[BLK]], %[[ROW]], %[[COL]]
// CHECK-NEXT:    d2m.push %[[WRITER_CB]]
// CHECK:         d2m.dma_write
func.func @two_bands(%x: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>, #d2m.thread<datamovement>, #d2m.thread<datamovement>]}
      ins(%x : !dram) outs(%out : !dram) {
  ^bb0(%x_cb: !cb, %out_cb: !cb, %sem: !d2m.semaphore):
    %in = d2m.wait %x_cb : !cb -> !t
    %a = d2m.tril_mask {row = 32 : i64} : !band
    %b = d2m.tril_mask {row = 64 : i64} : !band
    %e0 = tensor.empty() : !t
    %t0 = linalg.generic {indexing_maps = [#id, #band, #id], iterator_types = ["parallel", "parallel"]} ins(%in, %a : !t, !band) outs(%e0 : !t) {
    ^bb0(%xt: !tile, %m: !tile, %o: !tile):
      %r = d2m.tile_add %xt, %m {d2m.tril_diagonal = 0 : i64} : !tile
      linalg.yield %r : !tile
    } -> !t
    %e1 = tensor.empty() : !t
    %t1 = linalg.generic {indexing_maps = [#id, #band, #id], iterator_types = ["parallel", "parallel"]} ins(%t0, %b : !t, !band) outs(%e1 : !t) {
    ^bb0(%xt: !tile, %m: !tile, %o: !tile):
      %r = d2m.tile_add %xt, %m {d2m.tril_diagonal = 1 : i64} : !tile
      linalg.yield %r : !tile
    } -> !t
    %o = d2m.reserve %out_cb : !cb -> !t
    d2m.store %o, %t1 : !t, !t
    d2m.push %out_cb : !cb
    d2m.pop %x_cb : !cb
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
