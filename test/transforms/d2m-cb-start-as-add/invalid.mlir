// Every error d2m-cb-start-as-add raises.
// RUN: %ttlang-opt %s -p d2m-cb-start-as-add --split-input-file --verify-diagnostics

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x3x!tile, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<2x3x!tile, #ttcore.memory_space<l1>>>
!t = tensor<2x3x!tile>
func.func @on_tensors(%x: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%x : !dram) outs(%out : !dram) {
  ^bb0(%x_cb: !cb, %out_cb: !cb):
    %xb = d2m.wait %x_cb : !cb -> !t
    %e = tensor.empty() : !t
    // expected-error @+1 {{'linalg.generic' op still returns tensors; run d2m-bufferize first.}}
    %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%xb : !t) outs(%e : !t) {
    ^bb0(%a: !tile, %o: !tile):
      %x2 = d2m.tile_exp %a : !tile
      linalg.yield %x2 : !tile
    } -> !t
  }
  return
}
