// Every error d2m-reciprocal-divisor raises.
// RUN: %ttlang-opt %s -p d2m-reciprocal-divisor --split-input-file --verify-diagnostics

!tile = !ttcore.tile<32x32, bf16>
!l1 = #ttcore.memory_space<l1>
func.func @bufferized(%x: memref<2x2x!tile, !l1>, %y: memref<2x1x!tile, !l1>, %o: memref<2x2x!tile, !l1>) {
  // expected-error @+1 {{'linalg.generic' op divides by a broadcast block but is bufferized; d2m-reciprocal-divisor runs on tensors, before d2m-bufferize.}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %y : memref<2x2x!tile, !l1>, memref<2x1x!tile, !l1>) outs(%o : memref<2x2x!tile, !l1>) {
  ^bb0(%a: !tile, %b: !tile, %out: !tile):
    %bb = d2m.tile_bcast <col> %b : !tile
    %d = d2m.tile_div %a, %bb : !tile
    linalg.yield %d : !tile
  }
  return
}
