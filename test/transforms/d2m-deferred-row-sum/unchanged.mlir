// RUN: %ttlang-opt %s --split-input-file -p d2m-deferred-row-sum | FileCheck %s

!tile = !ttcore.tile<32x32, bf16>
!blk = tensor<1x2x4x!tile>
!col = tensor<1x2x1x!tile>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#one = affine_map<(d0, d1, d2) -> (0, 0)>
#row = affine_map<(d0, d1, d2) -> (d0, d1, 0)>

// Left alone: The sum is also read inside the loop (a row sum per iteration would cost what it saves).
// CHECK-LABEL: func.func @read_in_loop
// CHECK:       d2m.tile_reduce_sum
// CHECK-NOT:   d2m.tile_accumulate
func.func @read_in_loop(%p: !blk, %lb: index, %ub: index, %step: index) -> !col {
  %e_ones = tensor.empty() : tensor<1x1x!tile>
  %ones = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e_ones : tensor<1x1x!tile>) {
  ^bb0(%o: !tile):
    %f = d2m.tile_fill 1.0 : !tile
    linalg.yield %f : !tile
  } -> tensor<1x1x!tile>
  %e_zero = tensor.empty() : !col
  %zero = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel"]} outs(%e_zero : !col) {
  ^bb0(%o: !tile):
    %f = d2m.tile_fill 0.0 : !tile
    linalg.yield %f : !tile
  } -> !col
  %l = scf.for %i = %lb to %ub step %step iter_args(%c = %zero) -> (!col) {
    %e = tensor.empty() : !col
    %u = linalg.generic {indexing_maps = [#id, #one, #row, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%p, %ones, %c : !blk, tensor<1x1x!tile>, !col) outs(%e : !col) {
    ^bb0(%x: !tile, %s: !tile, %ct: !tile, %out: !tile):
      %r = d2m.tile_reduce_sum <row> %x, %s, %out : !tile
      %t = d2m.tile_add %ct, %r {d2m.epilogue} : !tile
      linalg.yield %t : !tile
    } -> !col
    %e2 = tensor.empty() : !col
    %inv = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%u : !col) outs(%e2 : !col) {
    ^bb0(%a: !tile, %o: !tile):
      %q = d2m.tile_recip %a : !tile
      linalg.yield %q : !tile
    } -> !col
    scf.yield %u : !col
  }
  return %l : !col
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!blk = tensor<1x2x4x!tile>
!col = tensor<1x2x1x!tile>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#one = affine_map<(d0, d1, d2) -> (0, 0)>
#row = affine_map<(d0, d1, d2) -> (d0, d1, 0)>

// Left alone: The reduce scales by 0.5, not a plain row sum.
// CHECK-LABEL: func.func @scaled
// CHECK:       d2m.tile_reduce_sum
// CHECK-NOT:   d2m.tile_accumulate
func.func @scaled(%p: !blk, %lb: index, %ub: index, %step: index) -> !col {
  %e_half = tensor.empty() : tensor<1x1x!tile>
  %half = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e_half : tensor<1x1x!tile>) {
  ^bb0(%o: !tile):
    %f = d2m.tile_fill 0.5 : !tile
    linalg.yield %f : !tile
  } -> tensor<1x1x!tile>
  %e_zero = tensor.empty() : !col
  %zero = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel"]} outs(%e_zero : !col) {
  ^bb0(%o: !tile):
    %f = d2m.tile_fill 0.0 : !tile
    linalg.yield %f : !tile
  } -> !col
  %l = scf.for %i = %lb to %ub step %step iter_args(%c = %zero) -> (!col) {
    %e = tensor.empty() : !col
    %u = linalg.generic {indexing_maps = [#id, #one, #row, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%p, %half, %c : !blk, tensor<1x1x!tile>, !col) outs(%e : !col) {
    ^bb0(%x: !tile, %s: !tile, %ct: !tile, %out: !tile):
      %r = d2m.tile_reduce_sum <row> %x, %s, %out : !tile
      %t = d2m.tile_add %ct, %r {d2m.epilogue} : !tile
      linalg.yield %t : !tile
    } -> !col
    scf.yield %u : !col
  }
  return %l : !col
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!blk = tensor<1x2x4x!tile>
!col = tensor<1x2x1x!tile>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#one = affine_map<(d0, d1, d2) -> (0, 0)>
#row = affine_map<(d0, d1, d2) -> (d0, d1, 0)>

// Left alone: The sum starts from 1.0, which is no partial of itself (its row sum is 32).
// CHECK-LABEL: func.func @nonzero_init
// CHECK:       d2m.tile_reduce_sum
// CHECK-NOT:   d2m.tile_accumulate
func.func @nonzero_init(%p: !blk, %lb: index, %ub: index, %step: index) -> !col {
  %e_ones = tensor.empty() : tensor<1x1x!tile>
  %ones = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e_ones : tensor<1x1x!tile>) {
  ^bb0(%o: !tile):
    %f = d2m.tile_fill 1.0 : !tile
    linalg.yield %f : !tile
  } -> tensor<1x1x!tile>
  %e_start = tensor.empty() : !col
  %start = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel"]} outs(%e_start : !col) {
  ^bb0(%o: !tile):
    %f = d2m.tile_fill 1.0 : !tile
    linalg.yield %f : !tile
  } -> !col
  %l = scf.for %i = %lb to %ub step %step iter_args(%c = %start) -> (!col) {
    %e = tensor.empty() : !col
    %u = linalg.generic {indexing_maps = [#id, #one, #row, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%p, %ones, %c : !blk, tensor<1x1x!tile>, !col) outs(%e : !col) {
    ^bb0(%x: !tile, %s: !tile, %ct: !tile, %out: !tile):
      %r = d2m.tile_reduce_sum <row> %x, %s, %out : !tile
      %t = d2m.tile_add %ct, %r {d2m.epilogue} : !tile
      linalg.yield %t : !tile
    } -> !col
    scf.yield %u : !col
  }
  return %l : !col
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!blk = tensor<1x2x4x!tile>
!col = tensor<1x2x1x!tile>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#one = affine_map<(d0, d1, d2) -> (0, 0)>
#row = affine_map<(d0, d1, d2) -> (d0, d1, 0)>

// Left alone: A column sum.
// CHECK-LABEL: func.func @column_sum
// CHECK:       d2m.tile_reduce_sum
// CHECK-NOT:   d2m.tile_accumulate
func.func @column_sum(%p: !blk, %lb: index, %ub: index, %step: index) -> !col {
  %e_ones = tensor.empty() : tensor<1x1x!tile>
  %ones = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e_ones : tensor<1x1x!tile>) {
  ^bb0(%o: !tile):
    %f = d2m.tile_fill 1.0 : !tile
    linalg.yield %f : !tile
  } -> tensor<1x1x!tile>
  %e_zero = tensor.empty() : !col
  %zero = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel"]} outs(%e_zero : !col) {
  ^bb0(%o: !tile):
    %f = d2m.tile_fill 0.0 : !tile
    linalg.yield %f : !tile
  } -> !col
  %l = scf.for %i = %lb to %ub step %step iter_args(%c = %zero) -> (!col) {
    %e = tensor.empty() : !col
    %u = linalg.generic {indexing_maps = [#id, #one, #row, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%p, %ones, %c : !blk, tensor<1x1x!tile>, !col) outs(%e : !col) {
    ^bb0(%x: !tile, %s: !tile, %ct: !tile, %out: !tile):
      %r = d2m.tile_reduce_sum <col> %x, %s, %out : !tile
      %t = d2m.tile_add %ct, %r {d2m.epilogue} : !tile
      linalg.yield %t : !tile
    } -> !col
    scf.yield %u : !col
  }
  return %l : !col
}
