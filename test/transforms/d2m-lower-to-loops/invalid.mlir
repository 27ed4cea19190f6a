// Every error d2m-lower-to-loops raises.
// RUN: %ttlang-opt %s -p d2m-lower-to-loops --split-input-file --verify-diagnostics

// fp32 DST in half-sync mode holds 4 tiles; this body keeps 5 values in DST.
!tile = !ttcore.tile<32x32, bf16>
!blk = memref<1x1x!tile, #ttcore.memory_space<l1>>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @dst_capacity(%out: !blk) attributes {ttcore.compute_config = {fp32_dest_acc_en = true}} {
  // expected-error @+1 {{needs more than 4 DST tiles for one output tile, but the DST section of this compute configuration holds 4.}}
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%out : !blk) {
  ^bb0(%c: !tile):
    %a = d2m.tile_fill 1.0 : !tile
    %b = d2m.tile_fill 2.0 : !tile
    %s = d2m.tile_add %a, %b : !tile
    %d = d2m.tile_fill 3.0 : !tile
    %t = d2m.tile_add %s, %d : !tile
    linalg.yield %t : !tile
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!blk = memref<1x1x!tile, #ttcore.memory_space<l1>>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @overwrites_live_value(%out: !blk) {
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%out : !blk) {
  ^bb0(%c: !tile):
    %a = d2m.tile_fill 1.0 : !tile
    // expected-error @+1 {{overwrites its operand in DST, but the operand is used again}}
    %e = d2m.tile_exp %a : !tile
    %s = d2m.tile_add %a, %e : !tile
    linalg.yield %s : !tile
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
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
func.func @affine_expression(%in: !blk, %out: !blk) {
  // expected-error @+1 {{has the indexing expression (d1 floordiv 2); only dimensions and constants are supported.}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1 floordiv 2)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%in : !blk) outs(%out : !blk) {
  ^bb0(%a: !tile, %c: !tile):
    %e = d2m.tile_exp %a : !tile
    linalg.yield %e : !tile
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @not_a_tile_op(%in: !blk, %out: !blk) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%in : !blk) outs(%out : !blk) {
  ^bb0(%a: !tile, %c: !tile):
    // expected-error @+1 {{is not a tile op that d2m-lower-to-loops knows how to place on an engine.}}
    %i = d2m.core_index(0)
    linalg.yield %a : !tile
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
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
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
func.func @reduction_yields_input(%in: !blk, %out: memref<2x1x!tile, #ttcore.memory_space<l1>>) {
  // expected-error @+1 {{reduces but yields an input tile unchanged.}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%in : !blk) outs(%out : memref<2x1x!tile, #ttcore.memory_space<l1>>) {
  ^bb0(%a: !tile, %c: !tile):
    linalg.yield %a : !tile
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
