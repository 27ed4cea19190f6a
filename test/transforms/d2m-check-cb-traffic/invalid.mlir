// Every error d2m-check-cb-traffic raises.
// RUN: %ttlang-opt %s -p d2m-check-cb-traffic --split-input-file --verify-diagnostics

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<1x1x!tile, #ttcore.memory_space<dram>>
!l1 = memref<1x1x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
!t = tensor<1x1x!tile>
// The writer drains x_cb instead of out_cb: out is written by a DMA, but nothing waits
// for the blocks compute pushes into out_cb.
func.func @pushed_never_waited(%x: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>, #d2m.thread<datamovement>]} ins(%x : !dram) outs(%out : !dram) {
  ^bb0(%x_cb: !cb, %out_cb: !cb):
    %o = d2m.reserve %out_cb : !cb -> !t
    %z = tensor.empty() : !t
    d2m.store %o, %z : !t, !t
    // expected-error @+1 {{pushes `out_cb` (the CB of `out`, cb 1) in thread 0 (compute), but no thread waits for it}}
    d2m.push %out_cb : !cb
  }, {
  ^bb0(%x_cb_1: !cb, %out_cb_1: !cb):
    %c0 = arith.constant 0 : index
    %in = d2m.reserve %x_cb_1 : !cb -> !l1
    %rx = d2m.dma_read %x[%c0, %c0], %in : !dram, !l1 -> !d2m.mem_tx
    d2m.dma_wait %rx
    d2m.push %x_cb_1 : !cb
    %blk = d2m.wait %x_cb_1 : !cb -> !l1
    %wx = d2m.dma_write %blk, %out[%c0, %c0] : !l1, !dram -> !d2m.mem_tx
    d2m.dma_wait %wx
    d2m.pop %x_cb_1 : !cb
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<1x1x!tile, #ttcore.memory_space<dram>>
!l1 = memref<1x1x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
// The writer waits for a CB that nothing fills.
func.func @waited_never_pushed(%x: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<datamovement>]} ins(%x : !dram) outs(%out : !dram) {
  ^bb0(%x_cb: !cb, %out_cb: !cb):
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{waits for `out_cb` (the CB of `out`, cb 1) in thread 0 (datamovement), but no thread pushes it}}
    %blk = d2m.wait %out_cb : !cb -> !l1
    %wx = d2m.dma_write %blk, %out[%c0, %c0] : !l1, !dram -> !d2m.mem_tx
    d2m.dma_wait %wx
    d2m.pop %out_cb : !cb
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<1x1x!tile, #ttcore.memory_space<dram>>
!l1 = memref<1x1x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
// A kernel-local CB is always checked (no pass writes its traffic): the mask is filled
// and never consumed.
func.func @kernel_local_pushed_never_waited(%out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<datamovement>]} ins() outs(%out : !dram) {
  ^bb0(%out_cb: !cb, %mask_cb: !cb):
    %c0 = arith.constant 0 : index
    %blk = d2m.reserve %mask_cb : !cb -> !l1
    d2m.fill_causal_mask %blk, %c0, %c0 : !l1
    // expected-error @+1 {{pushes `mask_cb` (a kernel-local CB, cb 1) in thread 0 (datamovement), but no thread waits for it: its blocks never leave the core. Drain it in the thread that uses its blocks: `with mask_cb.wait() as blk: ...`.}}
    d2m.push %mask_cb : !cb
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<1x1x!tile, #ttcore.memory_space<dram>>
!l1 = memref<1x1x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
!t = tensor<1x1x!tile>
// Compute waits for a kernel-local CB no thread fills, in a kernel whose tensors are
// all implicit (not checked).
func.func @kernel_local_waited_never_pushed(%x: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>, #d2m.thread<datamovement>]} ins(%x : !dram) outs(%out : !dram) {
  ^bb0(%x_cb: !cb, %out_cb: !cb, %mask_cb: !cb):
    %a = d2m.wait %x_cb : !cb -> !t
    // expected-error @+1 {{waits for `mask_cb` (a kernel-local CB, cb 2) in thread 0 (compute), but no thread pushes it: the wait never returns. Fill it in the thread that makes its blocks: `with mask_cb.reserve() as blk: ...`.}}
    %m = d2m.wait %mask_cb : !cb -> !t
    %o = d2m.reserve %out_cb : !cb -> !t
    d2m.store %o, %a : !t, !t
    d2m.push %out_cb : !cb
    d2m.pop %mask_cb : !cb
    d2m.pop %x_cb : !cb
  }, {
  ^bb0(%x_cb_1: !cb, %out_cb_1: !cb, %mask_cb_1: !cb):
  }
  return
}
