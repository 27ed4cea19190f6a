// Every error d2m-deferred-row-sum raises.
// RUN: %ttlang-opt %s -p d2m-deferred-row-sum --split-input-file --verify-diagnostics

!tile = !ttcore.tile<32x32, bf16>
!l1 = #ttcore.memory_space<l1>
func.func @bufferized(%x: memref<1x2x4x!tile, !l1>, %s: memref<1x1x!tile, !l1>, %l: memref<1x2x1x!tile, !l1>, %o: memref<1x2x1x!tile, !l1>) {
  // expected-error @+1 {{'linalg.generic' op is bufferized; d2m-deferred-row-sum runs on tensors, before d2m-bufferize.}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (0, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %s, %l : memref<1x2x4x!tile, !l1>, memref<1x1x!tile, !l1>, memref<1x2x1x!tile, !l1>) outs(%o : memref<1x2x1x!tile, !l1>) {
  ^bb0(%a: !tile, %b: !tile, %c: !tile, %out: !tile):
    %r = d2m.tile_reduce_sum <row> %a, %b, %out : !tile
    %t = d2m.tile_add %c, %r {d2m.epilogue} : !tile
    linalg.yield %t : !tile
  }
  return
}
