// Every error d2m-tile-subblock raises.
// RUN: %ttlang-opt %s -p d2m-tile-subblock --split-input-file --verify-diagnostics

!tile = !ttcore.tile<32x32, bf16>
!blk = memref<4x4x!tile, #ttcore.memory_space<l1>>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @cb_operand_in_dst(%in: !blk, %out: !blk) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%in : !blk) outs(%out : !blk) {
  ^bb0(%a: !tile, %c: !tile):
    %e = d2m.tile_exp %a : !tile
    // expected-error @+1 {{needs an operand from a circular buffer, but it is computed in DST by the same generic}}
    %t = d2m.tile_bcast <col> %e : !tile
    linalg.yield %t : !tile
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!t = tensor<2x2x!tile>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @tensors(%in: !t) -> !t {
  %e = tensor.empty() : !t
  // expected-error @+1 {{still returns tensors; run d2m-bufferize first.}}
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%in : !t) outs(%e : !t) {
  ^bb0(%a: !tile, %c: !tile):
    %x = d2m.tile_exp %a : !tile
    linalg.yield %x : !tile
  } -> !t
  return %r : !t
}
