// A balanced program passes unchanged; a tensor no thread moves with a DMA (an
// implicit operand) is not checked.
// RUN: %ttlang-opt %s -p d2m-check-cb-traffic | FileCheck %s

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<1x1x!tile, #ttcore.memory_space<dram>>
!l1 = memref<1x1x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
!t = tensor<1x1x!tile>

// CHECK-LABEL: func.func @balanced
// CHECK: d2m.push %out_cb
// CHECK: d2m.wait %out_cb_1
func.func @balanced(%x: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>, #d2m.thread<datamovement>]} ins(%x : !dram) outs(%out : !dram) {
  ^bb0(%x_cb: !cb, %out_cb: !cb):
    %a = d2m.wait %x_cb : !cb -> !t
    %o = d2m.reserve %out_cb : !cb -> !t
    d2m.store %o, %a : !t, !t
    d2m.push %out_cb : !cb
    d2m.pop %x_cb : !cb
  }, {
  ^bb0(%x_cb_1: !cb, %out_cb_1: !cb):
    %c0 = arith.constant 0 : index
    %in = d2m.reserve %x_cb_1 : !cb -> !l1
    %rx = d2m.dma_read %x[%c0, %c0], %in : !dram, !l1 -> !d2m.mem_tx
    d2m.dma_wait %rx
    d2m.push %x_cb_1 : !cb
    %blk = d2m.wait %out_cb_1 : !cb -> !l1
    %wx = d2m.dma_write %blk, %out[%c0, %c0] : !l1, !dram -> !d2m.mem_tx
    d2m.dma_wait %wx
    d2m.pop %out_cb_1 : !cb
  }
  return
}

// CHECK-LABEL: func.func @implicit_output
func.func @implicit_output(%x: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%x : !dram) outs(%out : !dram) {
  ^bb0(%x_cb: !cb, %out_cb: !cb):
    %a = d2m.wait %x_cb : !cb -> !t
    %o = d2m.reserve %out_cb : !cb -> !t
    d2m.store %o, %a : !t, !t
    d2m.push %out_cb : !cb
    d2m.pop %x_cb : !cb
  }
  return
}

// A kernel-local CB (the CB argument after the operands') filled by one thread and
// drained by another is balanced; so is one a thread fills and drains itself.
// CHECK-LABEL: func.func @kernel_local_cbs
// CHECK: d2m.push %mask_cb
// CHECK: d2m.wait %mask_cb_1
func.func @kernel_local_cbs(%out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<datamovement>, #d2m.thread<datamovement>]} ins() outs(%out : !dram) {
  ^bb0(%out_cb: !cb, %mask_cb: !cb, %own_cb: !cb):
    %c0 = arith.constant 0 : index
    %blk = d2m.reserve %mask_cb : !cb -> !l1
    d2m.fill_causal_mask %blk, %c0, %c0 : !l1
    d2m.push %mask_cb : !cb
    %mine = d2m.reserve %own_cb : !cb -> !l1
    d2m.push %own_cb : !cb
    %again = d2m.wait %own_cb : !cb -> !l1
    d2m.pop %own_cb : !cb
  }, {
  ^bb0(%out_cb_1: !cb, %mask_cb_1: !cb, %own_cb_1: !cb):
    %c0 = arith.constant 0 : index
    %blk = d2m.wait %mask_cb_1 : !cb -> !l1
    %tx = d2m.dma_write %blk, %out[%c0, %c0] : !l1, !dram -> !d2m.mem_tx
    d2m.dma_wait %tx
    d2m.pop %mask_cb_1 : !cb
  }
  return
}
