// d2m-skip-masked-tiles never fails; the attribute it writes is verified: a triangle
// relates two different loop dims.
// RUN: %ttlang-opt %s --split-input-file --verify-diagnostics

!tile = !ttcore.tile<32x32, bf16>
!t = tensor<2x2x!tile>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @same_dims(%x: !t) -> !t {
  %e = tensor.empty() : !t
  // expected-error @+1 {{relates two different loop dims, but got rows = 1, cols = 1.}}
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !t) outs(%e : !t) attrs = {d2m.triangles = [#d2m.triangle<rows = 1, cols = 1, diagonal = 0>]} {
  ^bb0(%a: !tile, %o: !tile):
    %y = d2m.tile_exp %a : !tile
    linalg.yield %y : !tile
  } -> !t
  return %r : !t
}
