// Every error d2m-lower-to-loops raises.
// RUN: %ttlang-opt %s -p d2m-lower-to-loops --split-input-file --verify-diagnostics

!tile = !ttcore.tile<32x32, bf16>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @not_allocated(%in: !blk, %out: !blk) {
  // expected-error @+1 {{has no DST allocation; run d2m-dst-allocate first.}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%in : !blk) outs(%out : !blk) {
  ^bb0(%a: !tile, %c: !tile):
    %e = d2m.tile_exp %a : !tile
    linalg.yield %e : !tile
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
func.func @affine_expression(%in: !blk, %out: !blk) {
  // expected-error @+1 {{has the indexing expression (d1 floordiv 2); only sums and products of dimensions and constants are supported.}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1 floordiv 2)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%in : !blk) outs(%out : !blk) attrs = {d2m.dst_slots = 1 : i64} {
  ^bb0(%a: !tile, %c: !tile):
    %x = d2m.tile_copy %a {d2m.dst_slot = 0 : i64, engine = #d2m.engine<fpu>} : !tile
    linalg.yield %x : !tile
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
