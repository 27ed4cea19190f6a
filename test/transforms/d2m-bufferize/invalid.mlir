// Every error d2m-bufferize raises.
// RUN: %ttlang-opt %s -p d2m-bufferize --split-input-file --verify-diagnostics

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<2x2x!tile, #ttcore.memory_space<l1>>>
!t = tensor<2x2x!tile>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @init_not_empty(%in: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %x = d2m.wait %in_cb : !cb -> !t
    // expected-error @+1 {{accumulates into an existing value (its init is not tensor.empty)}}
    %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !t) outs(%x : !t) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_add %a, %b : !tile
      linalg.yield %r : !tile
    } -> !t
    %o = d2m.reserve %out_cb : !cb -> !t
    d2m.store %o, %y : !t, !t
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<2x2x!tile, #ttcore.memory_space<l1>>>
!t = tensor<2x2x!tile>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @two_outputs(%in: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %x = d2m.wait %in_cb : !cb -> !t
    %e = tensor.empty() : !t
    // expected-error @+1 {{has 2 outputs; d2m-bufferize handles one.}}
    %y:2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !t) outs(%e, %e : !t, !t) {
    ^bb0(%a: !tile, %b: !tile, %c: !tile):
      linalg.yield %a, %a : !tile, !tile
    } -> !t, !t
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<2x2x!tile, #ttcore.memory_space<l1>>>
func.func @carries_an_index(%in: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{carries values that are not blocks}}
    %n = scf.for %k = %c0 to %c1 step %c1 iter_args(%i = %c0) -> (index) {
      scf.yield %i : index
    }
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<2x2x!tile, #ttcore.memory_space<l1>>>
!t = tensor<2x2x!tile>
func.func @stores_a_foreign_tensor(%out: !dram, %value: !t) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins() outs(%out : !dram) {
  ^bb0(%out_cb: !cb):
    %o = d2m.reserve %out_cb : !cb -> !t
    // expected-error @+1 {{uses a block that is neither a CB block nor an operator result.}}
    d2m.store %o, %value : !t, !t
    d2m.push %out_cb : !cb
  }
  return
}
