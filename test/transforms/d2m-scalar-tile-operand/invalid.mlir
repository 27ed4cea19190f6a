// Every error d2m-scalar-tile-operand raises.
// RUN: %ttlang-opt %s -p d2m-scalar-tile-operand --split-input-file --verify-diagnostics

!tile = !ttcore.tile<32x32, bf16>
!l1 = #ttcore.memory_space<l1>
func.func @bufferized(%x: memref<2x2x!tile, !l1>, %o: memref<2x2x!tile, !l1>) {
  // expected-error @+1 {{'linalg.generic' op applies a scalar to a block read from a CB but is bufferized; d2m-scalar-tile-operand runs on tensors, before d2m-bufferize.}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<2x2x!tile, !l1>) outs(%o : memref<2x2x!tile, !l1>) {
  ^bb0(%a: !tile, %out: !tile):
    %m = d2m.tile_mul_scalar %a, 0.5 : !tile
    linalg.yield %m : !tile
  }
  return
}
