// RUN: %ttlang-opt %s --split-input-file -p d2m-scalar-tile-operand | FileCheck %s

!tile = !ttcore.tile<32x32, bf16>
!t = tensor<2x2x!tile>
#id = affine_map<(d0, d1) -> (d0, d1)>

// x * c and x - c on a block read from a CB: one constant tile per value, made at the
// top of the function, read through a broadcast; the ops become FPU binary ops.
// CHECK-LABEL: func.func @scale_and_shift
// CHECK:      %[[E:.*]] = tensor.empty() : tensor<1x1x!ttcore.tile<32x32, bf16>>
// CHECK-NEXT: %[[C:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%[[E]] : tensor<1x1x!ttcore.tile<32x32, bf16>>)
// CHECK-NEXT: ^bb0(%{{.*}}: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:   %[[F:.*]] = d2m.tile_fill 1.250000e-01
// CHECK-NEXT:   linalg.yield %[[F]]
// CHECK:      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], {{.*}} ins(%x, %[[C]] : {{.*}})
// CHECK-NEXT: ^bb0(%[[A:.*]]: !ttcore.tile<32x32, bf16>, %[[K:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:   %[[B:.*]] = d2m.tile_bcast <scalar> %[[K]]
// CHECK-NEXT:   %[[M:.*]] = d2m.tile_mul %[[A]], %[[B]]
// CHECK-NEXT:   d2m.tile_exp %[[M]]
// CHECK:      linalg.generic {{.*}} ins(%x, %{{.*}} : {{.*}})
// CHECK:        d2m.tile_bcast <scalar>
// CHECK-NEXT:   d2m.tile_sub
// CHECK-NOT:  d2m.tile_mul_scalar
// CHECK-NOT:  d2m.tile_sub_scalar
func.func @scale_and_shift(%x: !t) -> (!t, !t) {
  %e = tensor.empty() : !t
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !t) outs(%e : !t) {
  ^bb0(%a: !tile, %o: !tile):
    %m = d2m.tile_mul_scalar %a, 0.125 : !tile
    %x2 = d2m.tile_exp %m : !tile
    linalg.yield %x2 : !tile
  } -> !t
  %e2 = tensor.empty() : !t
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !t) outs(%e2 : !t) {
  ^bb0(%a: !tile, %o: !tile):
    %d = d2m.tile_sub_scalar %a, 2.0 : !tile
    linalg.yield %d : !tile
  } -> !t
  return %r, %s : !t, !t
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!one = tensor<1x1x!tile>
#id = affine_map<(d0, d1) -> (d0, d1)>

// A one-tile block in a loop: converted (the constant is made once, before the loop).
// CHECK-LABEL: func.func @in_a_loop
// CHECK:      d2m.tile_fill 5.000000e-01
// CHECK:      scf.for
// CHECK:        d2m.tile_bcast <scalar>
// CHECK-NEXT:   d2m.tile_mul
func.func @in_a_loop(%x: !one, %n: index) -> !one {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (!one) {
    %e = tensor.empty() : !one
    %m = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%acc : !one) outs(%e : !one) {
    ^bb0(%a: !tile, %o: !tile):
      %p = d2m.tile_mul_scalar %a, 0.5 : !tile
      linalg.yield %p : !tile
    } -> !one
    scf.yield %m : !one
  }
  return %r : !one
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!one = tensor<1x1x!tile>
!t = tensor<2x2x!tile>
#id = affine_map<(d0, d1) -> (d0, d1)>

// Left alone: a one-tile block outside any loop (the constant's fill would cost more
// than it saves), a scalar applied to a value computed in DST, and c - x (the FPU
// broadcasts its second operand only).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:  d2m.tile_bcast
// CHECK:      d2m.tile_mul_scalar
// CHECK:      d2m.tile_add_scalar
// CHECK:      d2m.tile_rsub_scalar
func.func @left_alone(%x: !one, %y: !t) -> (!one, !t, !t) {
  %e = tensor.empty() : !one
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !one) outs(%e : !one) {
  ^bb0(%a: !tile, %o: !tile):
    %m = d2m.tile_mul_scalar %a, 0.5 : !tile
    linalg.yield %m : !tile
  } -> !one
  %e2 = tensor.empty() : !t
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%y : !t) outs(%e2 : !t) {
  ^bb0(%a: !tile, %o: !tile):
    %x2 = d2m.tile_exp %a : !tile
    %p = d2m.tile_add_scalar %x2, 1.0 : !tile
    linalg.yield %p : !tile
  } -> !t
  %e3 = tensor.empty() : !t
  %u = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%y : !t) outs(%e3 : !t) {
  ^bb0(%a: !tile, %o: !tile):
    %q = d2m.tile_rsub_scalar %a, 1.0 : !tile
    linalg.yield %q : !tile
  } -> !t
  return %r, %s, %u : !one, !t, !t
}
