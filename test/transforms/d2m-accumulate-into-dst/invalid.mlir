// Every error d2m-accumulate-into-dst raises.
// RUN: %ttlang-opt %s -p d2m-accumulate-into-dst --split-input-file --verify-diagnostics

!tile = !ttcore.tile<32x32, bf16>
!t = tensor<2x2x!tile>
func.func @on_tensors(%a: !t, %b: !t, %o: !t) -> !t {
  // expected-error @+1 {{'linalg.generic' op still returns tensors; run d2m-bufferize first.}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : !t, !t) outs(%o : !t) {
  ^bb0(%x: !tile, %y: !tile, %acc: !tile):
    %m = d2m.tile_matmul %x, %y, %acc : !tile, !tile
    linalg.yield %m : !tile
  } -> !t
  return %r : !t
}
