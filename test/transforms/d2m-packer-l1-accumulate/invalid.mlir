// Every error d2m-packer-l1-accumulate raises.
// RUN: %ttlang-opt %s -p d2m-packer-l1-accumulate --split-input-file --verify-diagnostics

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<2x2x!tile, #ttcore.memory_space<l1>>>
!t = tensor<2x2x!tile>
func.func @on_tensors(%a: !dram, %b: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%a, %b : !dram, !dram) outs(%out : !dram) {
  ^bb0(%a_cb: !cb, %b_cb: !cb, %out_cb: !cb):
    %x = d2m.wait %a_cb : !cb -> !t
    %y = d2m.wait %b_cb : !cb -> !t
    %e = tensor.empty() : !t
    // expected-error @+1 {{'linalg.generic' op still returns tensors; run d2m-bufferize first.}}
    %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %y : !t, !t) outs(%e : !t) {
    ^bb0(%p: !tile, %q: !tile, %acc: !tile):
      %m = d2m.tile_matmul %p, %q, %acc : !tile, !tile
      linalg.yield %m : !tile
    } -> !t
  }
  return
}
