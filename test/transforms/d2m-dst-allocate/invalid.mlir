// Every error d2m-dst-allocate raises.
// RUN: %ttlang-opt %s -p d2m-dst-allocate --split-input-file --verify-diagnostics

// A 4x4 block in one section needs 16 DST tiles per value; bf16 half sync holds 8.
!tile = !ttcore.tile<32x32, bf16>
!blk = memref<4x4x!tile, #ttcore.memory_space<l1>>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @subblock_too_large(%in: !blk, %out: !blk) {
  // expected-error @+1 {{computes 16 output tiles per DST section, but DST holds 8; run d2m-tile-subblock first.}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%in : !blk) outs(%out : !blk) {
  ^bb0(%a: !tile, %c: !tile):
    %e = d2m.tile_exp %a : !tile
    linalg.yield %e : !tile
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!blk = memref<1x1x!tile, #ttcore.memory_space<l1>>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @cb_operand_in_dst(%in: !blk, %out: !blk) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%in : !blk) outs(%out : !blk) {
  ^bb0(%a: !tile, %c: !tile):
    %e = d2m.tile_exp %a : !tile
    // expected-error @+1 {{needs an operand from a circular buffer, but it is computed in DST by the same generic}}
    %t = d2m.tile_transpose %e : !tile
    linalg.yield %t : !tile
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!blk = memref<1x1x!tile, #ttcore.memory_space<l1>>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @not_a_tile_op(%in: !blk, %out: !blk) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%in : !blk) outs(%out : !blk) {
  ^bb0(%a: !tile, %c: !tile):
    // expected-error @+1 {{is not a tile op with a known engine placement.}}
    %i = d2m.core_index(0)
    linalg.yield %a : !tile
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!blk = memref<1x1x!tile, #ttcore.memory_space<l1>>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @accumulator_not_updated(%in: !blk, %out: !blk) {
  // expected-error @+1 {{reads its output but yields a value computed elsewhere}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%in : !blk) outs(%out : !blk) {
  ^bb0(%a: !tile, %c: !tile):
    %s = d2m.tile_add %a, %c : !tile
    %e = d2m.tile_exp %a : !tile
    linalg.yield %e : !tile
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!blk = memref<1x2x!tile, #ttcore.memory_space<l1>>
!col = memref<1x1x!tile, #ttcore.memory_space<l1>>
func.func @reduction_yields_input(%in: !blk, %out: !col) {
  // expected-error @+1 {{reduces but yields an input tile unchanged.}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%in : !blk) outs(%out : !col) {
  ^bb0(%a: !tile, %c: !tile):
    linalg.yield %a : !tile
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!t = tensor<1x1x!tile>
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
