// RUN: %ttlang-opt %s --split-input-file -p d2m-deferred-row-sum | FileCheck %s

!tile = !ttcore.tile<32x32, bf16>
!blk = tensor<1x2x4x!tile>
!col = tensor<1x2x1x!tile>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#one = affine_map<(d0, d1, d2) -> (0, 0)>
#row = affine_map<(d0, d1, d2) -> (d0, d1, 0)>

// FlashAttention's `l = l * alpha + p.rowsum()` over a loop, l read after it: the
// update adds p's tiles onto a tile-wide partial rescaled by bcast<col>(alpha) (the 1.0
// block no longer read), and one row sum of the partial after the loop feeds the read.
// CHECK-LABEL: func.func @rescaled
// CHECK:      %[[ONES:.*]] = linalg.generic
// CHECK:      %[[ZERO:.*]] = linalg.generic
// CHECK:      %[[L:.*]] = scf.for {{.*}} iter_args(%[[C:.*]] = %[[ZERO]])
// CHECK:        linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%p, %[[C]], %alpha : {{.*}})
// CHECK-NEXT:   ^bb0(%[[X:.*]]: !ttcore.tile<32x32, bf16>, %[[CT:.*]]: !ttcore.tile<32x32, bf16>, %[[A:.*]]: !ttcore.tile<32x32, bf16>, %[[OUT:.*]]: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:     %[[R:.*]] = d2m.tile_accumulate %[[X]], %[[OUT]] : !ttcore.tile<32x32, bf16>
// CHECK-NEXT:     %[[B:.*]] = d2m.tile_bcast <col> %[[A]] {d2m.epilogue} : !ttcore.tile<32x32, bf16>
// CHECK-NEXT:     %[[M:.*]] = d2m.tile_mul %[[CT]], %[[B]] {d2m.epilogue} : !ttcore.tile<32x32, bf16>
// CHECK-NEXT:     %[[S:.*]] = d2m.tile_add %[[M]], %[[R]] {d2m.epilogue} : !ttcore.tile<32x32, bf16>
// CHECK-NEXT:     linalg.yield %[[S]]
// CHECK:      %[[E:.*]] = tensor.empty() : tensor<1x2x1x!ttcore.tile<32x32, bf16>>
// CHECK-NEXT: %[[SUM:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (0, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[L]], %[[ONES]] : {{.*}}) outs(%[[E]] : {{.*}})
// CHECK-NEXT: ^bb0(%[[LT:.*]]: !ttcore.tile<32x32, bf16>, %[[ST:.*]]: !ttcore.tile<32x32, bf16>, %[[O:.*]]: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:   %[[RS:.*]] = d2m.tile_reduce_sum <row> %[[LT]], %[[ST]], %[[O]]
// CHECK-NEXT:   linalg.yield %[[RS]]
// CHECK:      return %[[SUM]]
func.func @rescaled(%p: !blk, %alpha: !col, %lb: index, %ub: index, %step: index) -> !col {
  %e1 = tensor.empty() : tensor<1x1x!tile>
  %ones = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e1 : tensor<1x1x!tile>) {
  ^bb0(%o: !tile):
    %f = d2m.tile_fill 1.0 : !tile
    linalg.yield %f : !tile
  } -> tensor<1x1x!tile>
  %e2 = tensor.empty() : !col
  %zero = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel"]} outs(%e2 : !col) {
  ^bb0(%o: !tile):
    %f = d2m.tile_fill 0.0 : !tile
    linalg.yield %f : !tile
  } -> !col
  %l = scf.for %i = %lb to %ub step %step iter_args(%c = %zero) -> (!col) {
    %e = tensor.empty() : !col
    %u = linalg.generic {indexing_maps = [#id, #one, #row, #row, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%p, %ones, %c, %alpha : !blk, tensor<1x1x!tile>, !col, !col) outs(%e : !col) {
    ^bb0(%x: !tile, %s: !tile, %ct: !tile, %a: !tile, %out: !tile):
      %r = d2m.tile_reduce_sum <row> %x, %s, %out : !tile
      %m = d2m.tile_mul %ct, %a {d2m.epilogue} : !tile
      %n = d2m.tile_add %m, %r {d2m.epilogue} : !tile
      linalg.yield %n : !tile
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

// `l = rowsum(x) + l` (the sum first) through two loops and an update between them, as
// causal FlashAttention's chain: every update accumulates tiles, the 1.0 block is
// still read by another generic (so it stays an input of nothing but that), and the
// one row sum is taken after the last loop.
// CHECK-LABEL: func.func @chain
// CHECK:      %[[L1:.*]] = scf.for
// CHECK:        d2m.tile_accumulate
// CHECK-NOT:    d2m.tile_reduce_sum
// CHECK:      d2m.tile_accumulate
// CHECK:      %[[L2:.*]] = scf.for
// CHECK:        d2m.tile_accumulate
// CHECK:      %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[L2]], %{{.*}} :
// CHECK-NEXT: ^bb0
// CHECK-NEXT:   d2m.tile_reduce_sum <row>
// CHECK:      return %[[SUM]], %{{.*}}
func.func @chain(%p: !blk, %q: !blk, %n: index) -> (!col, !col) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e1 = tensor.empty() : tensor<1x1x!tile>
  %ones = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e1 : tensor<1x1x!tile>) {
  ^bb0(%o: !tile):
    %f = d2m.tile_fill 1.0 : !tile
    linalg.yield %f : !tile
  } -> tensor<1x1x!tile>
  %e2 = tensor.empty() : !col
  %zero = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel"]} outs(%e2 : !col) {
  ^bb0(%o: !tile):
    %f = d2m.tile_fill 0.0 : !tile
    linalg.yield %f : !tile
  } -> !col
  %l1 = scf.for %i = %c0 to %n step %c1 iter_args(%c = %zero) -> (!col) {
    %e = tensor.empty() : !col
    %u = linalg.generic {indexing_maps = [#id, #one, #row, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%p, %ones, %c : !blk, tensor<1x1x!tile>, !col) outs(%e : !col) {
    ^bb0(%x: !tile, %s: !tile, %ct: !tile, %out: !tile):
      %r = d2m.tile_reduce_sum <row> %x, %s, %out : !tile
      %t = d2m.tile_add %r, %ct {d2m.epilogue} : !tile
      linalg.yield %t : !tile
    } -> !col
    scf.yield %u : !col
  }
  %e3 = tensor.empty() : !col
  %mid = linalg.generic {indexing_maps = [#id, #one, #row, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%q, %ones, %l1 : !blk, tensor<1x1x!tile>, !col) outs(%e3 : !col) {
  ^bb0(%x: !tile, %s: !tile, %ct: !tile, %out: !tile):
    %r = d2m.tile_reduce_sum <row> %x, %s, %out : !tile
    %t = d2m.tile_add %ct, %r {d2m.epilogue} : !tile
    linalg.yield %t : !tile
  } -> !col
  %l2 = scf.for %i = %c0 to %n step %c1 iter_args(%c = %mid) -> (!col) {
    %e = tensor.empty() : !col
    %u = linalg.generic {indexing_maps = [#id, #one, #row, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%p, %ones, %c : !blk, tensor<1x1x!tile>, !col) outs(%e : !col) {
    ^bb0(%x: !tile, %s: !tile, %ct: !tile, %out: !tile):
      %r = d2m.tile_reduce_sum <row> %x, %s, %out : !tile
      %t = d2m.tile_add %ct, %r {d2m.epilogue} : !tile
      linalg.yield %t : !tile
    } -> !col
    scf.yield %u : !col
  }
  %e4 = tensor.empty() : !col
  %other = linalg.generic {indexing_maps = [#id, #one, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%q, %ones : !blk, tensor<1x1x!tile>) outs(%e4 : !col) {
  ^bb0(%x: !tile, %s: !tile, %out: !tile):
    %r = d2m.tile_reduce_sum <row> %x, %s, %out : !tile
    linalg.yield %r : !tile
  } -> !col
  return %l2, %other : !col, !col
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!blk = tensor<1x2x4x!tile>
!col = tensor<1x2x1x!tile>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#one = affine_map<(d0, d1, d2) -> (0, 0)>
#row = affine_map<(d0, d1, d2) -> (d0, d1, 0)>

// The factor computed in the update itself (`l * exp(m - m_new) + rowsum(p)` with the
// exp fused as an epilogue): elementwise ops commute with the column broadcast, so each
// input the factor is computed from is broadcast instead.
// CHECK-LABEL: func.func @computed_factor
// CHECK:      ^bb0(%[[X:.*]]: !ttcore.tile<32x32, bf16>, %[[CT:.*]]: !ttcore.tile<32x32, bf16>, %[[M:.*]]: !ttcore.tile<32x32, bf16>, %[[MN:.*]]: !ttcore.tile<32x32, bf16>, %[[OUT:.*]]: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:   %[[R:.*]] = d2m.tile_accumulate %[[X]], %[[OUT]]
// CHECK-NEXT:   %[[BM:.*]] = d2m.tile_bcast <col> %[[M]] {d2m.epilogue}
// CHECK-NEXT:   %[[BMN:.*]] = d2m.tile_bcast <col> %[[MN]] {d2m.epilogue}
// CHECK-NEXT:   %[[D:.*]] = d2m.tile_sub %[[BM]], %[[BMN]] {d2m.epilogue}
// CHECK-NEXT:   %[[A:.*]] = d2m.tile_exp %[[D]] {d2m.epilogue}
// CHECK-NEXT:   %[[S:.*]] = d2m.tile_mul %[[CT]], %[[A]] {d2m.epilogue}
// CHECK-NEXT:   d2m.tile_add %[[S]], %[[R]] {d2m.epilogue}
func.func @computed_factor(%p: !blk, %m: !col, %mn: !col, %lb: index, %ub: index, %step: index) -> !col {
  %e1 = tensor.empty() : tensor<1x1x!tile>
  %ones = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e1 : tensor<1x1x!tile>) {
  ^bb0(%o: !tile):
    %f = d2m.tile_fill 1.0 : !tile
    linalg.yield %f : !tile
  } -> tensor<1x1x!tile>
  %e2 = tensor.empty() : !col
  %zero = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel"]} outs(%e2 : !col) {
  ^bb0(%o: !tile):
    %f = d2m.tile_fill 0.0 : !tile
    linalg.yield %f : !tile
  } -> !col
  %l = scf.for %i = %lb to %ub step %step iter_args(%c = %zero) -> (!col) {
    %e = tensor.empty() : !col
    %u = linalg.generic {indexing_maps = [#id, #one, #row, #row, #row, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%p, %ones, %c, %m, %mn : !blk, tensor<1x1x!tile>, !col, !col, !col) outs(%e : !col) {
    ^bb0(%x: !tile, %s: !tile, %ct: !tile, %mt: !tile, %mnt: !tile, %out: !tile):
      %r = d2m.tile_reduce_sum <row> %x, %s, %out : !tile
      %d = d2m.tile_sub %mt, %mnt {d2m.epilogue} : !tile
      %a = d2m.tile_exp %d {d2m.epilogue} : !tile
      %sc = d2m.tile_mul %ct, %a {d2m.epilogue} : !tile
      %n = d2m.tile_add %sc, %r {d2m.epilogue} : !tile
      linalg.yield %n : !tile
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

// The sum read after the loop by one elementwise generic (FlashAttention's `1 / l`,
// d2m-reciprocal-divisor's recip): that generic becomes the row sum's epilogue, as
// d2m-elementwise-fusion fuses one (the row sum did not exist when it ran), so the sum
// stays in DST for the recip instead of being packed and copied back.
// CHECK-LABEL: func.func @fused_reader
// CHECK:      %[[L:.*]] = scf.for
// CHECK:        scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<1x2x1x!ttcore.tile<32x32, bf16>>
// CHECK:      %[[INV:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (0, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[L]], %{{.*}} : {{.*}})
// CHECK-NEXT: ^bb0(%[[LT:.*]]: !ttcore.tile<32x32, bf16>, %[[ST:.*]]: !ttcore.tile<32x32, bf16>, %[[O:.*]]: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:   %[[RS:.*]] = d2m.tile_reduce_sum <row> %[[LT]], %[[ST]], %[[O]]
// CHECK-NEXT:   %[[R:.*]] = d2m.tile_recip %[[RS]] {d2m.epilogue}
// CHECK-NEXT:   linalg.yield %[[R]]
// CHECK-NOT:  linalg.generic
// CHECK:      return %[[INV]]
func.func @fused_reader(%p: !blk, %lb: index, %ub: index, %step: index) -> !col {
  %e1 = tensor.empty() : tensor<1x1x!tile>
  %ones = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e1 : tensor<1x1x!tile>) {
  ^bb0(%o: !tile):
    %f = d2m.tile_fill 1.0 : !tile
    linalg.yield %f : !tile
  } -> tensor<1x1x!tile>
  %e2 = tensor.empty() : !col
  %zero = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel"]} outs(%e2 : !col) {
  ^bb0(%o: !tile):
    %f = d2m.tile_fill 0.0 : !tile
    linalg.yield %f : !tile
  } -> !col
  %l = scf.for %i = %lb to %ub step %step iter_args(%c = %zero) -> (!col) {
    %e = tensor.empty() : !col
    %u = linalg.generic {indexing_maps = [#id, #one, #row, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%p, %ones, %c : !blk, tensor<1x1x!tile>, !col) outs(%e : !col) {
    ^bb0(%x: !tile, %s: !tile, %ct: !tile, %out: !tile):
      %r = d2m.tile_reduce_sum <row> %x, %s, %out : !tile
      %n = d2m.tile_add %ct, %r {d2m.epilogue} : !tile
      linalg.yield %n : !tile
    } -> !col
    scf.yield %u : !col
  }
  %e3 = tensor.empty() : !col
  %inv = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%l : !col) outs(%e3 : !col) {
  ^bb0(%a: !tile, %o: !tile):
    %r = d2m.tile_recip %a : !tile
    linalg.yield %r : !tile
  } -> !col
  return %inv : !col
}
