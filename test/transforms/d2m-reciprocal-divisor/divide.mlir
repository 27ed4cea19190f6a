// RUN: %ttlang-opt %s --split-input-file -p d2m-reciprocal-divisor | FileCheck %s

!tile = !ttcore.tile<32x32, bf16>
!t = tensor<2x2x!tile>
!col = tensor<2x1x!tile>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0, 0)>

// x / bcast(y), each tile of y dividing a row of two output tiles: the reciprocal of y
// is its own generic over y's block, and the division a multiplication by it.
// CHECK-LABEL: func.func @divide_by_column
// CHECK:      %[[E:.*]] = tensor.empty() : tensor<2x1x!ttcore.tile<32x32, bf16>>
// CHECK-NEXT: %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<2x1x!ttcore.tile<32x32, bf16>>) outs(%[[E]] : tensor<2x1x!ttcore.tile<32x32, bf16>>)
// CHECK-NEXT: ^bb0(%[[B:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:   %[[Q:.*]] = d2m.tile_recip %[[B]]
// CHECK-NEXT:   linalg.yield %[[Q]]
// CHECK:      linalg.generic {{.*}} ins(%x, %[[R]] : {{.*}})
// CHECK-NEXT: ^bb0(%[[A:.*]]: !ttcore.tile<32x32, bf16>, %[[C:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:   %[[BC:.*]] = d2m.tile_bcast <col> %[[C]]
// CHECK-NEXT:   %[[M:.*]] = d2m.tile_mul %[[A]], %[[BC]]
// CHECK-NEXT:   linalg.yield %[[M]]
// CHECK-NOT:  d2m.tile_div
func.func @divide_by_column(%x: !t, %y: !col) -> !t {
  %e = tensor.empty() : !t
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %y : !t, !col) outs(%e : !t) {
  ^bb0(%a: !tile, %b: !tile, %o: !tile):
    %bb = d2m.tile_bcast <col> %b : !tile
    %d = d2m.tile_div %a, %bb : !tile
    linalg.yield %d : !tile
  } -> !t
  return %r : !t
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!col = tensor<2x1x!tile>
#id = affine_map<(d0, d1) -> (d0, d1)>

// Left alone: a divisor block as large as the output (each tile divides one output
// tile: a reciprocal per tile saves nothing), and a divisor also read unbroadcast.
// CHECK-LABEL: func.func @not_reused
// CHECK:      d2m.tile_div
// CHECK-NOT:  d2m.tile_recip
// CHECK-LABEL: func.func @divisor_read_twice
// CHECK:      d2m.tile_div
// CHECK-NOT:  d2m.tile_recip
func.func @not_reused(%x: !col, %y: !col) -> !col {
  %e = tensor.empty() : !col
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %y : !col, !col) outs(%e : !col) {
  ^bb0(%a: !tile, %b: !tile, %o: !tile):
    %bb = d2m.tile_bcast <col> %b : !tile
    %d = d2m.tile_div %a, %bb : !tile
    linalg.yield %d : !tile
  } -> !col
  return %r : !col
}
func.func @divisor_read_twice(%x: tensor<2x2x!tile>, %y: !col) -> tensor<2x2x!tile> {
  %e = tensor.empty() : tensor<2x2x!tile>
  %r = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d0, 0)>, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<2x2x!tile>, !col) outs(%e : tensor<2x2x!tile>) {
  ^bb0(%a: !tile, %b: !tile, %o: !tile):
    %bb = d2m.tile_bcast <col> %b : !tile
    %d = d2m.tile_div %a, %bb : !tile
    %s = d2m.tile_add %d, %b : !tile
    linalg.yield %s : !tile
  } -> tensor<2x2x!tile>
  return %r : tensor<2x2x!tile>
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!t = tensor<2x2x!tile>
!col = tensor<2x1x!tile>
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#o = affine_map<(d0, d1, d2) -> (d0, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, 0)>

// (x @ w) / bcast(y), the division an epilogue of the matmul (on the accumulator in
// DST): the reciprocal's generic broadcasts y's tile before taking it (full tiles, each
// row its 1/y), and the epilogue multiplies DST by that tile as read, no broadcast (an
// FPU multiply onto DST instead of an SFPU one of two DST tiles).
// CHECK-LABEL: func.func @divide_matmul
// CHECK:      %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<2x1x!ttcore.tile<32x32, bf16>>)
// CHECK-NEXT: ^bb0(%[[B:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:   %[[FULL:.*]] = d2m.tile_bcast <col> %[[B]]
// CHECK-NEXT:   %[[Q:.*]] = d2m.tile_recip %[[FULL]]
// CHECK-NEXT:   linalg.yield %[[Q]]
// CHECK:      linalg.generic {{.*}} ins(%x, %w, %[[R]] : {{.*}})
// CHECK-NEXT: ^bb0(%{{.*}}: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>, %[[C:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:   %[[MM:.*]] = d2m.tile_matmul
// CHECK-NEXT:   %[[M:.*]] = d2m.tile_mul %[[MM]], %[[C]] {d2m.epilogue}
// CHECK-NEXT:   linalg.yield %[[M]]
// CHECK-NOT:  d2m.tile_div
func.func @divide_matmul(%x: !t, %w: !t, %y: !col) -> !t {
  %e = tensor.empty() : !t
  %r = linalg.generic {indexing_maps = [#a, #b, #c, #o], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w, %y : !t, !t, !col) outs(%e : !t) {
  ^bb0(%p: !tile, %q: !tile, %s: !tile, %acc: !tile):
    %m = d2m.tile_matmul %p, %q, %acc : !tile, !tile
    %bb = d2m.tile_bcast <col> %s {d2m.epilogue} : !tile
    %d = d2m.tile_div %m, %bb {d2m.epilogue} : !tile
    linalg.yield %d : !tile
  } -> !t
  return %r : !t
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!t = tensor<2x2x!tile>
!col = tensor<2x1x!tile>
#id = affine_map<(d0, d1) -> (d0, d1)>
#one = affine_map<(d0, d1) -> (0, 0)>
#c = affine_map<(d0, d1) -> (d0, 0)>

// Left alone: a division inside a reduction's loop (not an epilogue: it runs per
// reduced tile, and the reduction reads its result).
// CHECK-LABEL: func.func @divide_in_reduction
// CHECK:      d2m.tile_div
// CHECK-NOT:  d2m.tile_recip
func.func @divide_in_reduction(%x: !t, %ones: tensor<1x1x!tile>, %y: !col) -> !col {
  %e = tensor.empty() : !col
  %r = linalg.generic {indexing_maps = [#id, #one, #c, #c], iterator_types = ["parallel", "reduction"]} ins(%x, %ones, %y : !t, tensor<1x1x!tile>, !col) outs(%e : !col) {
  ^bb0(%p: !tile, %s: !tile, %z: !tile, %acc: !tile):
    %bb = d2m.tile_bcast <col> %z : !tile
    %d = d2m.tile_div %p, %bb : !tile
    %m = d2m.tile_reduce_sum <row> %d, %s, %acc : !tile
    linalg.yield %m : !tile
  } -> !col
  return %r : !col
}
