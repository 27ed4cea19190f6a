// Every error d2m-tril-masks raises.
// RUN: %ttlang-opt %s -p d2m-tril-masks --split-input-file --verify-diagnostics

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<1x1x!tile, #ttcore.memory_space<dram>>
!l1 = memref<1x1x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
// No data-movement thread to fill the band.
func.func private @use(tensor<1x1x!tile>)
func.func @no_datamovement_thread(%x: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%x : !dram) outs() {
  ^bb0(%x_cb: !cb):
    // expected-error @+1 {{needs a data-movement thread to fill the mask tiles of tril() once, but the kernel has none; add a @datamovement() thread (its body may be `pass`).}}
    %band = d2m.tril_mask {row = 0 : i64} : tensor<1x1x!tile>
    func.call @use(%band) : (tensor<1x1x!tile>) -> ()
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<1x1x!tile, #ttcore.memory_space<dram>>
!l1 = memref<1x1x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
// A band in a data-movement thread.
func.func private @use(tensor<1x1x!tile>)
func.func @band_outside_compute(%x: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>, #d2m.thread<datamovement>]} ins(%x : !dram) outs() {
  ^bb0(%x_cb: !cb):
  }, {
  ^bb0(%x_cb_1: !cb):
    // expected-error @+1 {{is outside the compute thread; tril() belongs in one.}}
    %band = d2m.tril_mask {row = 0 : i64} : tensor<1x1x!tile>
    func.call @use(%band) : (tensor<1x1x!tile>) -> ()
  }
  return
}
