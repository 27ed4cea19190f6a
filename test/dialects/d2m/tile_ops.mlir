// Round trip of every d2m tile op, in custom and generic form.
// RUN: %ttlang-opt %s | %ttlang-opt | FileCheck %s
// RUN: %ttlang-opt %s --mlir-print-op-generic | %ttlang-opt | FileCheck %s
// RUN: %ttlang-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

!tile = !ttcore.tile<32x32, bf16>
!acc = !ttcore.tile<32x32, f32>

// CHECK-LABEL: func.func @elementwise
// CHECK-SAME: (%[[A:.*]]: !ttcore.tile<32x32, bf16>, %[[B:.*]]: !ttcore.tile<32x32, bf16>)
// CHECK-NEXT: %{{.*}} = d2m.tile_add %[[A]], %[[B]] : !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %{{.*}} = d2m.tile_sub %[[A]], %[[B]] : !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %{{.*}} = d2m.tile_mul %[[A]], %[[B]] : !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %{{.*}} = d2m.tile_div %[[A]], %[[B]] : !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %{{.*}} = d2m.tile_maximum %[[A]], %[[B]] : !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %{{.*}} = d2m.tile_add_scalar %[[A]], 2.500000e+00 : !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %{{.*}} = d2m.tile_sub_scalar %[[A]], 1.000000e+00 : !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %{{.*}} = d2m.tile_rsub_scalar %[[A]], 1.000000e+00 : !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %{{.*}} = d2m.tile_mul_scalar %[[A]], -5.000000e-01 : !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %{{.*}} = d2m.tile_div_scalar %[[A]], 8.000000e+00 : !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %{{.*}} = d2m.tile_exp %[[A]] : !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %{{.*}} = d2m.tile_sqrt %[[A]] : !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %{{.*}} = d2m.tile_rsqrt %[[A]] : !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %{{.*}} = d2m.tile_recip %[[A]] : !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %{{.*}} = d2m.tile_neg %[[A]] : !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %{{.*}} = d2m.tile_abs %[[A]] : !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %{{.*}} = d2m.tile_transpose %[[A]] : !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %[[FILL:.*]] = d2m.tile_fill -3.000000e+00 : !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %{{.*}} = d2m.tile_where %[[A]], %[[B]], %[[FILL]] : !ttcore.tile<32x32, bf16>
// CHECK-NEXT: func.return

// GENERIC-LABEL: "func.func"() <{sym_name = "elementwise"
// GENERIC: "d2m.tile_add"(%{{.*}}, %{{.*}}) : (!ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>) -> !ttcore.tile<32x32, bf16>
// GENERIC: "d2m.tile_add_scalar"(%{{.*}}) <{scalar = 2.500000e+00 : f32}> : (!ttcore.tile<32x32, bf16>) -> !ttcore.tile<32x32, bf16>
// GENERIC: "d2m.tile_fill"() <{value = -3.000000e+00 : f32}> : () -> !ttcore.tile<32x32, bf16>

func.func @elementwise(%a: !tile, %b: !tile) {
  %add = d2m.tile_add %a, %b : !tile
  %sub = d2m.tile_sub %a, %b : !tile
  %mul = d2m.tile_mul %a, %b : !tile
  %div = d2m.tile_div %a, %b : !tile
  %max = d2m.tile_maximum %a, %b : !tile
  %adds = d2m.tile_add_scalar %a, 2.5 : !tile
  %subs = d2m.tile_sub_scalar %a, 1.0 : !tile
  %rsubs = d2m.tile_rsub_scalar %a, 1.0 : !tile
  %muls = d2m.tile_mul_scalar %a, -0.5 : !tile
  %divs = d2m.tile_div_scalar %a, 8.0 : !tile
  %exp = d2m.tile_exp %a : !tile
  %sqrt = d2m.tile_sqrt %a : !tile
  %rsqrt = d2m.tile_rsqrt %a : !tile
  %recip = d2m.tile_recip %a : !tile
  %neg = d2m.tile_neg %a : !tile
  %abs = d2m.tile_abs %a : !tile
  %tr = d2m.tile_transpose %a : !tile
  %fill = d2m.tile_fill -3.0 : !tile
  %where = d2m.tile_where %a, %b, %fill : !tile
  return
}

// CHECK-LABEL: func.func @accumulating
// CHECK-SAME: (%[[A:.*]]: !ttcore.tile<32x32, bf16>, %[[B:.*]]: !ttcore.tile<32x32, bf16>, %[[ACC:.*]]: !ttcore.tile<32x32, f32>)
// CHECK-NEXT: %{{.*}} = d2m.tile_matmul %[[A]], %[[B]], %[[ACC]] : !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, f32>
// CHECK-NEXT: %{{.*}} = d2m.tile_matmul %[[A]], %[[B]], %[[A]] : !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %{{.*}} = d2m.tile_reduce_sum <row> %[[A]], %[[B]], %[[A]] : !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %{{.*}} = d2m.tile_reduce_max <col> %[[A]], %[[B]], %[[A]] : !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %{{.*}} = d2m.tile_reduce_sum <scalar> %[[A]], %[[B]], %[[A]] : !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %{{.*}} = d2m.tile_accumulate %[[B]], %[[A]] : !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %{{.*}} = d2m.tile_bcast <row> %[[A]] : !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %{{.*}} = d2m.tile_bcast <col> %[[A]] : !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %{{.*}} = d2m.tile_bcast <scalar> %[[A]] : !ttcore.tile<32x32, bf16>
// CHECK-NEXT: func.return

// GENERIC-LABEL: "func.func"() <{sym_name = "accumulating"
// GENERIC: "d2m.tile_matmul"(%{{.*}}, %{{.*}}, %{{.*}}) : (!ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, f32>) -> !ttcore.tile<32x32, f32>
// GENERIC: "d2m.tile_reduce_sum"(%{{.*}}, %{{.*}}, %{{.*}}) <{dim = #d2m.reduce_dim<row>}>
// GENERIC: "d2m.tile_accumulate"(%{{.*}}, %{{.*}}) : (!ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>) -> !ttcore.tile<32x32, bf16>
// GENERIC: "d2m.tile_bcast"(%{{.*}}) <{kind = #d2m.bcast<row>}>

func.func @accumulating(%a: !tile, %b: !tile, %acc: !acc) {
  %mm = d2m.tile_matmul %a, %b, %acc : !tile, !acc
  %mm16 = d2m.tile_matmul %a, %b, %a : !tile, !tile
  %rowsum = d2m.tile_reduce_sum <row> %a, %b, %a : !tile
  %colmax = d2m.tile_reduce_max <col> %a, %b, %a : !tile
  %total = d2m.tile_reduce_sum <scalar> %a, %b, %a : !tile
  %sum = d2m.tile_accumulate %b, %a : !tile
  %brow = d2m.tile_bcast <row> %a : !tile
  %bcol = d2m.tile_bcast <col> %a : !tile
  %bscalar = d2m.tile_bcast <scalar> %a : !tile
  return
}

// The engine d2m-dst-allocate records on a tile op, one of each.
// CHECK-LABEL: func.func @engines
// CHECK-NEXT: d2m.tile_add %{{.*}}, %{{.*}} {engine = #d2m.engine<fpu>}
// CHECK-NEXT: d2m.tile_sub %{{.*}}, %{{.*}} {engine = #d2m.engine<dest_to_srca>}
// CHECK-NEXT: d2m.tile_mul %{{.*}}, %{{.*}} {engine = #d2m.engine<dest_to_srcb>}
// CHECK-NEXT: d2m.tile_exp %{{.*}} {engine = #d2m.engine<sfpu>}
// CHECK-NEXT: d2m.tile_bcast <col> %{{.*}} {engine = #d2m.engine<unpack>}
// GENERIC-LABEL: "func.func"() <{sym_name = "engines"
// GENERIC: "d2m.tile_add"(%{{.*}}, %{{.*}}) <{engine = #d2m.engine<fpu>}>
func.func @engines(%a: !tile, %b: !tile) {
  %add = d2m.tile_add %a, %b {engine = #d2m.engine<fpu>} : !tile
  %sub = d2m.tile_sub %a, %b {engine = #d2m.engine<dest_to_srca>} : !tile
  %mul = d2m.tile_mul %a, %b {engine = #d2m.engine<dest_to_srcb>} : !tile
  %exp = d2m.tile_exp %a {engine = #d2m.engine<sfpu>} : !tile
  %bcast = d2m.tile_bcast <col> %a {engine = #d2m.engine<unpack>} : !tile
  return
}
