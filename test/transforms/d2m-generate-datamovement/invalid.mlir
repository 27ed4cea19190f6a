// Every error d2m-generate-datamovement raises.
// RUN: %ttlang-opt %s -p d2m-generate-datamovement --split-input-file --verify-diagnostics

!tile = !ttcore.tile<32x32, bf16>
!cb = !d2m.cb<memref<1x1x!tile, #ttcore.memory_space<l1>>>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
#sum = affine_map<(d0, d1) -> (d0 + d1, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @not_a_dim_or_zero(%in: !dram, %out: !dram) {
  // expected-error @+1 {{indexes implicit operand `in` with '(d0 + d1)'; generated data movement needs each map result to be a loop dim or 0}}
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], indexing_maps = [#sum, #id], iterator_types = [#ttcore.iterator_type<parallel>, #ttcore.iterator_type<parallel>], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %x = d2m.wait %in_cb : !cb -> tensor<1x1x!tile>
    %o = d2m.reserve %out_cb : !cb -> tensor<1x1x!tile>
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!cb = !d2m.cb<memref<1x1x!tile, #ttcore.memory_space<l1>>>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!cb2 = !d2m.cb<memref<1x2x!tile, #ttcore.memory_space<l1>>>
func.func @blocks_disagree(%in: !dram, %out: !dram) {
  // expected-error @+1 {{gives loop dim d1 blocks of 1 tiles (`in`) and 2 tiles (`out`); implicit operands must agree}}
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb2):
    %x = d2m.wait %in_cb : !cb -> tensor<1x1x!tile>
    %o = d2m.reserve %out_cb : !cb2 -> tensor<1x2x!tile>
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!cb = !d2m.cb<memref<1x1x!tile, #ttcore.memory_space<l1>>>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
#a = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @dim_no_operand_spans(%in: !dram, %out: !dram) {
  // expected-error @+1 {{has loop dim d2, which no implicit operand's map uses; its extent is unknown}}
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1, 1], indexing_maps = [#a, #a], iterator_types = [#ttcore.iterator_type<parallel>, #ttcore.iterator_type<parallel>, #ttcore.iterator_type<reduction>], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %x = d2m.wait %in_cb : !cb -> tensor<1x1x!tile>
    %o = d2m.reserve %out_cb : !cb -> tensor<1x1x!tile>
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!cb = !d2m.cb<memref<1x1x!tile, #ttcore.memory_space<l1>>>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!odd = memref<3x2x!tile, #ttcore.memory_space<dram>>
func.func @grid_does_not_divide(%in: !odd, %out: !odd) {
  // expected-error @+1 {{splits loop dim d0 (3 tiles of `in`) into blocks of 1 tiles over 2 cores, which does not divide it}}
  d2m.generic {grid = #ttcore.grid<2x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !odd) outs(%out : !odd) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %x = d2m.wait %in_cb : !cb -> tensor<1x1x!tile>
    %o = d2m.reserve %out_cb : !cb -> tensor<1x1x!tile>
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!cb = !d2m.cb<memref<1x1x!tile, #ttcore.memory_space<l1>>>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
#a = affine_map<(d0, d1) -> (d0, d1)>
func.func @grid_dim_without_loop_dim(%in: !dram, %out: !dram) {
  // expected-error @+1 {{has 2 cores along grid dim 0 but no parallel loop dim to split over them; use a grid of 1 there}}
  d2m.generic {grid = #ttcore.grid<2x2>, block_factors = [1, 1], indexing_maps = [#a, #a], iterator_types = [#ttcore.iterator_type<reduction>, #ttcore.iterator_type<parallel>], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %x = d2m.wait %in_cb : !cb -> tensor<1x1x!tile>
    %o = d2m.reserve %out_cb : !cb -> tensor<1x1x!tile>
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!cb = !d2m.cb<memref<1x1x!tile, #ttcore.memory_space<l1>>>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
#z = affine_map<(d0, d1) -> (0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @zero_on_a_split_dim(%in: !dram, %out: !dram) {
  // expected-error @+1 {{indexes dim 0 of implicit operand `in` with 0, so its block must span the dim's 2 tiles, but it has 1}}
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], indexing_maps = [#z, #id], iterator_types = [#ttcore.iterator_type<parallel>, #ttcore.iterator_type<parallel>], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %x = d2m.wait %in_cb : !cb -> tensor<1x1x!tile>
    %o = d2m.reserve %out_cb : !cb -> tensor<1x1x!tile>
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!cb = !d2m.cb<memref<1x1x!tile, #ttcore.memory_space<l1>>>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!d3 = memref<1x2x2x!tile, #ttcore.memory_space<dram>>
!cb3 = !d2m.cb<memref<1x1x1x!tile, #ttcore.memory_space<l1>>>
func.func @ranks_differ(%in: !dram, %out: !d3) {
  // expected-error @+1 {{has implicit operands of ranks [2, 3] and no indexing_maps; give indexing_maps to say how their dims correspond}}
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !d3) {
  ^bb0(%in_cb: !cb, %out_cb: !cb3):
    %x = d2m.wait %in_cb : !cb -> tensor<1x1x!tile>
    %o = d2m.reserve %out_cb : !cb3 -> tensor<1x1x1x!tile>
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!cb = !d2m.cb<memref<1x1x!tile, #ttcore.memory_space<l1>>>
!dram = memref<4x1x!tile, #ttcore.memory_space<dram>>
func.func @bound_past_the_extent(%a: !dram, %b: !dram, %out: !dram) {
  // expected-error @+1 {{bounds loop dim d1 by (d0 + 2), which is 5 at d0 = 3; it must lie in [0, 4], the dim's blocks}}
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>], indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d1, 0)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = [#ttcore.iterator_type<parallel>, #ttcore.iterator_type<reduction>], loop_bounds = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0 + 2)>]} ins(%a, %b : !dram, !dram) outs(%out : !dram) {
  ^bb0(%a_cb: !cb, %b_cb: !cb, %out_cb: !cb):
    %x = d2m.wait %a_cb : !cb -> tensor<1x1x!tile>
    %y = d2m.wait %b_cb : !cb -> tensor<1x1x!tile>
    %o = d2m.reserve %out_cb : !cb -> tensor<1x1x!tile>
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!cb = !d2m.cb<memref<1x1x!tile, #ttcore.memory_space<l1>>>
!dram = memref<4x1x!tile, #ttcore.memory_space<dram>>
func.func @bound_on_a_split_dim(%a: !dram, %out: !dram) {
  // expected-error @+1 {{bounds loop dim d1, which grid dim 1 splits; only a dim walked whole by every core (a reduction or unsplit dim) takes a bound}}
  d2m.generic {grid = #ttcore.grid<1x2>, block_factors = [1, 1], threads = [#d2m.thread<compute>], indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = [#ttcore.iterator_type<parallel>, #ttcore.iterator_type<parallel>], loop_bounds = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0 + 1)>]} ins(%a : !dram) outs(%out : !dram) {
  ^bb0(%a_cb: !cb, %out_cb: !cb):
    %x = d2m.wait %a_cb : !cb -> tensor<1x1x!tile>
    %o = d2m.reserve %out_cb : !cb -> tensor<1x1x!tile>
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!cb = !d2m.cb<memref<1x1x!tile, #ttcore.memory_space<l1>>>
!dram = memref<1x1x!tile, #ttcore.memory_space<dram>>
func.func @block_index_without_implicit_operands(%in: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs() {
  ^bb0(%in_cb: !cb):
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{asks for a block index, but the generic has no implicit operands to define its iteration space}}
    %i = d2m.block_index(0) %c0
  }
  return
}
