// d2m-skip-masked-tiles: causal attention's chain skips the score tiles above the
// diagonal everywhere (Q·Kᵀ, the -inf tril, the row max, exp(s - m), the row sum,
// P·V's reduction); a value-0 tril read by a row max (whose identity is -inf) and
// returned is computed whole, and its max runs over every tile.
// RUN: %ttlang-opt %s -p d2m-skip-masked-tiles | FileCheck %s

!tile = !ttcore.tile<32x32, bf16>
!t = tensor<4x4x!tile>
!col = tensor<4x1x!tile>
!one = tensor<1x1x!tile>
!band = tensor<1x7x!tile>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0, 0)>
#zero = affine_map<(d0, d1) -> (0, 0)>
#band = affine_map<(d0, d1) -> (0, d1 - d0 + 3)>
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// CHECK-LABEL: func.func @attention
// CHECK:       %[[ONES:.*]] = linalg.generic
// CHECK:       %[[S:.*]] = linalg.generic {{.*}} ins(%q, %k {{.*}} attrs = {{.*}}{d2m.triangles = [#d2m.triangle<rows = 0, cols = 1, diagonal = 1>]} {
// CHECK:       %[[T:.*]] = linalg.generic {{.*}} ins(%[[S]], %band {{.*}} attrs = {{.*}}{d2m.triangles = [#d2m.triangle<rows = 0, cols = 1, diagonal = 1>]} {
// CHECK:       %[[MAX:.*]] = linalg.generic {{.*}} ins(%[[T]], %[[ONES]] {{.*}} attrs = {{.*}}{d2m.triangles = [#d2m.triangle<rows = 0, cols = 1, diagonal = 1>]} {
// CHECK:       %[[P:.*]] = linalg.generic {{.*}} ins(%[[T]], %[[MAX]] {{.*}} attrs = {{.*}}{d2m.triangles = [#d2m.triangle<rows = 0, cols = 1, diagonal = 1>]} {
// CHECK:       %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[P]], %[[ONES]] {{.*}} attrs = {{.*}}{d2m.triangles = [#d2m.triangle<rows = 0, cols = 1, diagonal = 1>]} {
// CHECK:       %[[PV:.*]] = linalg.generic {{.*}} ins(%[[P]], %v {{.*}} attrs = {{.*}}{d2m.triangles = [#d2m.triangle<rows = 0, cols = 2, diagonal = 1>]} {
// CHECK:       %[[Z:.*]] = linalg.generic {{.*}} ins(%q, %band {{.*}} outs(%{{[^)]*}}) {
// CHECK:       %[[ZMAX:.*]] = linalg.generic {{.*}} ins(%[[Z]], %[[ONES]] {{.*}} outs(%{{[^)]*}}) {
// CHECK:       return %[[PV]], %[[SUM]], %[[Z]], %[[ZMAX]]
func.func @attention(%q: !t, %k: !t, %v: !t, %band: !band) -> (!t, !col, !t, !col) {
  %eo = tensor.empty() : !one
  %ones = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%eo : !one) {
  ^bb0(%o: !tile):
    %f = d2m.tile_fill 1.0 : !tile
    linalg.yield %f : !tile
  } -> !one
  %e0 = tensor.empty() : !t
  %s = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%q, %k : !t, !t) outs(%e0 : !t) {
  ^bb0(%x: !tile, %y: !tile, %acc: !tile):
    %r = d2m.tile_matmul %x, %y, %acc : !tile, !tile
    linalg.yield %r : !tile
  } -> !t
  %e1 = tensor.empty() : !t
  %t = linalg.generic {indexing_maps = [#id, #band, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %band : !t, !band) outs(%e1 : !t) {
  ^bb0(%x: !tile, %m: !tile, %o: !tile):
    %r = d2m.tile_add %x, %m {d2m.tril_diagonal = 1 : i64} : !tile
    linalg.yield %r : !tile
  } -> !t
  %e2 = tensor.empty() : !col
  %mx = linalg.generic {indexing_maps = [#id, #zero, #row], iterator_types = ["parallel", "reduction"]} ins(%t, %ones : !t, !one) outs(%e2 : !col) {
  ^bb0(%x: !tile, %s1: !tile, %acc: !tile):
    %r = d2m.tile_reduce_max <row> %x, %s1, %acc : !tile
    linalg.yield %r : !tile
  } -> !col
  %e3 = tensor.empty() : !t
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%t, %mx : !t, !col) outs(%e3 : !t) {
  ^bb0(%x: !tile, %m: !tile, %o: !tile):
    %b = d2m.tile_bcast <col> %m : !tile
    %d = d2m.tile_sub %x, %b : !tile
    %e = d2m.tile_exp %d : !tile
    linalg.yield %e : !tile
  } -> !t
  %e4 = tensor.empty() : !col
  %sum = linalg.generic {indexing_maps = [#id, #zero, #row], iterator_types = ["parallel", "reduction"]} ins(%p, %ones : !t, !one) outs(%e4 : !col) {
  ^bb0(%x: !tile, %s1: !tile, %acc: !tile):
    %r = d2m.tile_reduce_sum <row> %x, %s1, %acc : !tile
    linalg.yield %r : !tile
  } -> !col
  %e5 = tensor.empty() : !t
  %pv = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%p, %v : !t, !t) outs(%e5 : !t) {
  ^bb0(%x: !tile, %y: !tile, %acc: !tile):
    %r = d2m.tile_matmul %x, %y, %acc : !tile, !tile
    linalg.yield %r : !tile
  } -> !t
  %e6 = tensor.empty() : !t
  %z = linalg.generic {indexing_maps = [#id, #band, #id], iterator_types = ["parallel", "parallel"]} ins(%q, %band : !t, !band) outs(%e6 : !t) {
  ^bb0(%x: !tile, %m: !tile, %o: !tile):
    %f = d2m.tile_fill 0.0 : !tile
    %r = d2m.tile_where %m, %f, %x {d2m.tril_diagonal = 0 : i64} : !tile
    linalg.yield %r : !tile
  } -> !t
  %e7 = tensor.empty() : !col
  %zmax = linalg.generic {indexing_maps = [#id, #zero, #row], iterator_types = ["parallel", "reduction"]} ins(%z, %ones : !t, !one) outs(%e7 : !col) {
  ^bb0(%x: !tile, %s1: !tile, %acc: !tile):
    %r = d2m.tile_reduce_max <row> %x, %s1, %acc : !tile
    linalg.yield %r : !tile
  } -> !col
  return %pv, %sum, %z, %zmax : !t, !col, !t, !col
}

// A row max scaled by a block of unknown values (-inf times a negative scaler is +inf)
// runs over every tile; the tril's tiles are then all read, and computed.
// CHECK-LABEL: func.func @unknown_scaler
// CHECK:       linalg.generic {{.*}} outs(%{{[^)]*}}) {
// CHECK:       linalg.generic {{.*}} outs(%{{[^)]*}}) {
// CHECK-NOT:   d2m.triangles
func.func @unknown_scaler(%x: !t, %band: !band, %scaler: !one) -> !col {
  %e0 = tensor.empty() : !t
  %t = linalg.generic {indexing_maps = [#id, #band, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %band : !t, !band) outs(%e0 : !t) {
  ^bb0(%a: !tile, %m: !tile, %o: !tile):
    %r = d2m.tile_add %a, %m {d2m.tril_diagonal = 0 : i64} : !tile
    linalg.yield %r : !tile
  } -> !t
  %e1 = tensor.empty() : !col
  %mx = linalg.generic {indexing_maps = [#id, #zero, #row], iterator_types = ["parallel", "reduction"]} ins(%t, %scaler : !t, !one) outs(%e1 : !col) {
  ^bb0(%a: !tile, %s1: !tile, %acc: !tile):
    %r = d2m.tile_reduce_max <row> %a, %s1, %acc : !tile
    linalg.yield %r : !tile
  } -> !col
  return %mx : !col
}
