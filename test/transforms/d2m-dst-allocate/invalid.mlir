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

// -----

!tile = !ttcore.tile<32x32, bf16>
!blk = memref<1x1x!tile, #ttcore.memory_space<l1>>
#mm_a = affine_map<(d0, d1, d2) -> (d0, d2)>
#mm_b = affine_map<(d0, d1, d2) -> (d2, d1)>
#mm_c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @accumulates_into_an_input(%a: !blk, %b: !blk, %c: !blk, %out: !blk) {
  linalg.generic {indexing_maps = [#mm_a, #mm_b, #mm_c, #mm_c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b, %c : !blk, !blk, !blk) outs(%out : !blk) {
  ^bb0(%p: !tile, %q: !tile, %r: !tile, %acc: !tile):
    // expected-error @+1 {{accumulates into a tile that is not in DST.}}
    %m = d2m.tile_matmul %p, %q, %r : !tile, !tile
    linalg.yield %m : !tile
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!blk = memref<1x1x!tile, #ttcore.memory_space<l1>>
#mm_a = affine_map<(d0, d1, d2) -> (d0, d2)>
#mm_b = affine_map<(d0, d1, d2) -> (d2, d1)>
#mm_c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @reads_overwritten_accumulator(%a: !blk, %b: !blk, %out: !blk) {
  linalg.generic {indexing_maps = [#mm_a, #mm_b, #mm_c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : !blk, !blk) outs(%out : !blk) {
  ^bb0(%p: !tile, %q: !tile, %acc: !tile):
    %m = d2m.tile_matmul %p, %q, %acc : !tile, !tile
    // expected-error @+1 {{reads a value that is neither in DST nor in a CB.}}
    %e = d2m.tile_exp %acc : !tile
    %r = d2m.tile_add %m, %e : !tile
    linalg.yield %r : !tile
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!blk = memref<1x1x!tile, #ttcore.memory_space<l1>>
#mm_a = affine_map<(d0, d1, d2) -> (d0, d2)>
#mm_b = affine_map<(d0, d1, d2) -> (d2, d1)>
#mm_c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @yields_overwritten_accumulator(%a: !blk, %b: !blk, %out: !blk) {
  // expected-error @+1 {{yields a value that is neither in DST nor in a CB.}}
  linalg.generic {indexing_maps = [#mm_a, #mm_b, #mm_c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : !blk, !blk) outs(%out : !blk) {
  ^bb0(%p: !tile, %q: !tile, %acc: !tile):
    %m = d2m.tile_matmul %p, %q, %acc : !tile, !tile
    linalg.yield %acc : !tile
  }
  return
}

// -----

// A subblock of all 8 tiles leaves one slot; the divide needs two even after a spill.
!tile = !ttcore.tile<32x32, bf16>
!blk = memref<2x4x!tile, #ttcore.memory_space<l1>>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @op_beyond_capacity(%x: !blk, %y: !blk, %out: !blk) {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %y : !blk, !blk) outs(%out : !blk) {
  ^bb0(%a: !tile, %b: !tile, %c: !tile):
    %e = d2m.tile_exp %a : !tile
    // expected-error @+1 {{needs more DST slots than the 1 a section holds, even alone.}}
    %d = d2m.tile_div %e, %b : !tile
    linalg.yield %d : !tile
  }
  return
}

// -----

// Spilling needs a compute-local CB, so a compute region to declare it in.
!tile = !ttcore.tile<32x32, bf16>
!blk = memref<1x1x!tile, #ttcore.memory_space<l1>>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @spill_outside_a_compute_region(%out: !blk) attributes {ttcore.compute_config = {fp32_dest_acc_en = true}} {
  // expected-error @+1 {{is not inside a d2m.generic compute region.}}
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%out : !blk) {
  ^bb0(%c: !tile):
    %a = d2m.tile_fill 1.0 : !tile
    %b = d2m.tile_fill 2.0 : !tile
    %d = d2m.tile_fill 3.0 : !tile
    %e = d2m.tile_fill 4.0 : !tile
    %f = d2m.tile_fill 5.0 : !tile
    %s1 = d2m.tile_add %e, %f : !tile
    %s2 = d2m.tile_add %d, %s1 : !tile
    %s3 = d2m.tile_add %b, %s2 : !tile
    %s4 = d2m.tile_add %a, %s3 : !tile
    linalg.yield %s4 : !tile
  }
  return
}
