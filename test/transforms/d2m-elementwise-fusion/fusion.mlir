// RUN: %ttlang-opt %s -p d2m-elementwise-fusion | FileCheck %s

!tile = !ttcore.tile<32x32, bf16>
!t = tensor<2x2x!tile>
!col = tensor<2x1x!tile>
#id = affine_map<(d0, d1) -> (d0, d1)>
#mm_a = affine_map<(d0, d1, d2) -> (d0, d2)>
#mm_b = affine_map<(d0, d1, d2) -> (d2, d1)>
#mm_c = affine_map<(d0, d1, d2) -> (d0, d1)>

// exp -> add -> recip: one generic; the producers' inputs join the consumer's.
// CHECK-LABEL: func.func @chain
// CHECK:      %[[R:.*]] = linalg.generic {indexing_maps = [{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%y, %x : {{.*}}) outs(%e2 : {{.*}})
// CHECK-NEXT: ^bb0(%[[B:.*]]: !ttcore.tile<32x32, bf16>, %[[A:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:   %[[E:.*]] = d2m.tile_exp %[[A]]
// CHECK-NEXT:   %[[S:.*]] = d2m.tile_add %[[E]], %[[B]]
// CHECK-NEXT:   %[[Q:.*]] = d2m.tile_recip %[[S]]
// CHECK-NEXT:   linalg.yield %[[Q]]
// CHECK-NEXT: } -> tensor<2x2x!ttcore.tile<32x32, bf16>>
// CHECK-NEXT: func.return %[[R]]
func.func @chain(%x: !t, %y: !t) -> !t {
  %e0 = tensor.empty() : !t
  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !t) outs(%e0 : !t) {
  ^bb0(%a: !tile, %o: !tile):
    %r = d2m.tile_exp %a : !tile
    linalg.yield %r : !tile
  } -> !t
  %e1 = tensor.empty() : !t
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%e, %y : !t, !t) outs(%e1 : !t) {
  ^bb0(%a: !tile, %b: !tile, %o: !tile):
    %r = d2m.tile_add %a, %b : !tile
    linalg.yield %r : !tile
  } -> !t
  %e2 = tensor.empty() : !t
  %q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s : !t) outs(%e2 : !t) {
  ^bb0(%a: !tile, %o: !tile):
    %r = d2m.tile_recip %a : !tile
    linalg.yield %r : !tile
  } -> !t
  return %q : !t
}

// A matmul's consumers become its epilogue, run on the accumulator in DST; the bias
// input joins with the matmul's output map.
// CHECK-LABEL: func.func @matmul_epilogue
// CHECK:      linalg.generic {indexing_maps = [{{.*}}, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b, %c : {{.*}})
// CHECK-NEXT: ^bb0(%[[P:.*]]: !ttcore.tile<32x32, bf16>, %[[Q:.*]]: !ttcore.tile<32x32, bf16>, %[[C:.*]]: !ttcore.tile<32x32, bf16>, %[[ACC:.*]]: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:   %[[M:.*]] = d2m.tile_matmul %[[P]], %[[Q]], %[[ACC]]
// CHECK-NEXT:   %[[S:.*]] = d2m.tile_sub %[[M]], %[[C]] {d2m.epilogue}
// CHECK-NEXT:   %[[E:.*]] = d2m.tile_exp %[[S]] {d2m.epilogue}
// CHECK-NEXT:   linalg.yield %[[E]]
func.func @matmul_epilogue(%a: !t, %b: !t, %c: !t) -> !t {
  %e0 = tensor.empty() : !t
  %m = linalg.generic {indexing_maps = [#mm_a, #mm_b, #mm_c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : !t, !t) outs(%e0 : !t) {
  ^bb0(%p: !tile, %q: !tile, %acc: !tile):
    %r = d2m.tile_matmul %p, %q, %acc : !tile, !tile
    linalg.yield %r : !tile
  } -> !t
  %e1 = tensor.empty() : !t
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%m, %c : !t, !t) outs(%e1 : !t) {
  ^bb0(%x: !tile, %y: !tile, %o: !tile):
    %r = d2m.tile_sub %x, %y : !tile
    linalg.yield %r : !tile
  } -> !t
  %e2 = tensor.empty() : !t
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s : !t) outs(%e2 : !t) {
  ^bb0(%v: !tile, %o: !tile):
    %r = d2m.tile_exp %v : !tile
    linalg.yield %r : !tile
  } -> !t
  return %x : !t
}

// Not fused: an exp feeding a matmul operand (the matmul unpacks A from a CB), an exp
// with two users, and a row max read through a broadcast (the broadcast unpacks it
// from a CB).
// CHECK-LABEL: func.func @not_fused
// CHECK-COUNT-5: linalg.generic
// CHECK-NOT:     linalg.generic
func.func @not_fused(%a: !t, %b: !t, %s: !t, %scaler: !t) -> (!t, !t, !t) {
  %e0 = tensor.empty() : !t
  %ea = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : !t) outs(%e0 : !t) {
  ^bb0(%v: !tile, %o: !tile):
    %r = d2m.tile_exp %v : !tile
    linalg.yield %r : !tile
  } -> !t
  %e1 = tensor.empty() : !t
  %m = linalg.generic {indexing_maps = [#mm_a, #mm_b, #mm_c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ea, %b : !t, !t) outs(%e1 : !t) {
  ^bb0(%p: !tile, %q: !tile, %acc: !tile):
    %r = d2m.tile_matmul %p, %q, %acc : !tile, !tile
    linalg.yield %r : !tile
  } -> !t
  %e2 = tensor.empty() : !t
  %twice = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%ea, %ea : !t, !t) outs(%e2 : !t) {
  ^bb0(%x: !tile, %y: !tile, %o: !tile):
    %r = d2m.tile_mul %x, %y : !tile
    linalg.yield %r : !tile
  } -> !t
  %e3 = tensor.empty() : !col
  %mx = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (0, 0)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%s, %scaler : !t, !t) outs(%e3 : !col) {
  ^bb0(%x: !tile, %sc: !tile, %acc: !tile):
    %r = d2m.tile_reduce_max <row> %x, %sc, %acc : !tile
    linalg.yield %r : !tile
  } -> !col
  %e4 = tensor.empty() : !t
  %d = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d0, 0)>, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %mx : !t, !col) outs(%e4 : !t) {
  ^bb0(%x: !tile, %y: !tile, %o: !tile):
    %bc = d2m.tile_bcast <col> %y : !tile
    %r = d2m.tile_sub %x, %bc : !tile
    linalg.yield %r : !tile
  } -> !t
  return %m, %twice, %d : !t, !t, !t
}

// Fusing two producers of the same input leaves it read twice: it is read once.
// CHECK-LABEL: func.func @repeated_input
// CHECK:      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : {{.*}})
// CHECK-NEXT: ^bb0(%[[A:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:   %[[E:.*]] = d2m.tile_exp %[[A]]
// CHECK-NEXT:   %[[N:.*]] = d2m.tile_abs %[[A]]
// CHECK-NEXT:   d2m.tile_div %[[E]], %[[N]]
func.func @repeated_input(%x: !t) -> !t {
  %e0 = tensor.empty() : !t
  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !t) outs(%e0 : !t) {
  ^bb0(%a: !tile, %o: !tile):
    %r = d2m.tile_exp %a : !tile
    linalg.yield %r : !tile
  } -> !t
  %e1 = tensor.empty() : !t
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !t) outs(%e1 : !t) {
  ^bb0(%a: !tile, %o: !tile):
    %r = d2m.tile_abs %a : !tile
    linalg.yield %r : !tile
  } -> !t
  %e2 = tensor.empty() : !t
  %q = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%e, %n : !t, !t) outs(%e2 : !t) {
  ^bb0(%a: !tile, %b: !tile, %o: !tile):
    %r = d2m.tile_div %a, %b : !tile
    linalg.yield %r : !tile
  } -> !t
  return %q : !t
}

// The consumer comes after the producer's input block is popped: fusing would read
// the popped block, so the two stay apart.
// CHECK-LABEL: func.func @popped_input
// CHECK:      d2m.wait
// CHECK:      linalg.generic
// CHECK:      d2m.tile_exp
// CHECK:      d2m.pop
// CHECK:      linalg.generic
// CHECK:      d2m.tile_add_scalar
func.func @popped_input(%cb: !d2m.cb<memref<2x2x!tile, #ttcore.memory_space<l1>>>) -> !t {
  %x = d2m.wait %cb : !d2m.cb<memref<2x2x!tile, #ttcore.memory_space<l1>>> -> !t
  %e0 = tensor.empty() : !t
  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !t) outs(%e0 : !t) {
  ^bb0(%a: !tile, %o: !tile):
    %r = d2m.tile_exp %a : !tile
    linalg.yield %r : !tile
  } -> !t
  d2m.pop %cb : !d2m.cb<memref<2x2x!tile, #ttcore.memory_space<l1>>>
  %e1 = tensor.empty() : !t
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%e : !t) outs(%e1 : !t) {
  ^bb0(%a: !tile, %o: !tile):
    %r = d2m.tile_add_scalar %a, 1.0 : !tile
    linalg.yield %r : !tile
  } -> !t
  return %s : !t
}

// The same through a view: the producer reads rows of the popped block.
// CHECK-LABEL: func.func @popped_view
// CHECK:      d2m.block_view
// CHECK:      linalg.generic
// CHECK:      d2m.tile_exp
// CHECK:      d2m.pop
// CHECK:      linalg.generic
// CHECK:      d2m.tile_add_scalar
func.func @popped_view(%cb: !d2m.cb<memref<4x2x!tile, #ttcore.memory_space<l1>>>) -> !t {
  %x = d2m.wait %cb : !d2m.cb<memref<4x2x!tile, #ttcore.memory_space<l1>>> -> tensor<4x2x!tile>
  %xv = d2m.block_view %x rows(2, 4) : tensor<4x2x!tile> -> !t
  %e0 = tensor.empty() : !t
  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%xv : !t) outs(%e0 : !t) {
  ^bb0(%a: !tile, %o: !tile):
    %r = d2m.tile_exp %a : !tile
    linalg.yield %r : !tile
  } -> !t
  d2m.pop %cb : !d2m.cb<memref<4x2x!tile, #ttcore.memory_space<l1>>>
  %e1 = tensor.empty() : !t
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%e : !t) outs(%e1 : !t) {
  ^bb0(%a: !tile, %o: !tile):
    %r = d2m.tile_add_scalar %a, 1.0 : !tile
    linalg.yield %r : !tile
  } -> !t
  return %s : !t
}

// An elementwise producer of an epilogue input fuses into the epilogue.
// CHECK-LABEL: func.func @epilogue_producer
// CHECK:      ^bb0(%[[P:.*]]: !ttcore.tile<32x32, bf16>, %[[Q:.*]]: !ttcore.tile<32x32, bf16>, %[[C:.*]]: !ttcore.tile<32x32, bf16>, %[[ACC:.*]]: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:   %[[M:.*]] = d2m.tile_matmul %[[P]], %[[Q]], %[[ACC]]
// CHECK-NEXT:   %[[E:.*]] = d2m.tile_exp %[[C]] {d2m.epilogue}
// CHECK-NEXT:   %[[S:.*]] = d2m.tile_add %[[M]], %[[E]] {d2m.epilogue}
// CHECK-NEXT:   linalg.yield %[[S]]
func.func @epilogue_producer(%a: !t, %b: !t, %c: !t) -> !t {
  %e0 = tensor.empty() : !t
  %m = linalg.generic {indexing_maps = [#mm_a, #mm_b, #mm_c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : !t, !t) outs(%e0 : !t) {
  ^bb0(%p: !tile, %q: !tile, %acc: !tile):
    %r = d2m.tile_matmul %p, %q, %acc : !tile, !tile
    linalg.yield %r : !tile
  } -> !t
  %e1 = tensor.empty() : !t
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : !t) outs(%e1 : !t) {
  ^bb0(%v: !tile, %o: !tile):
    %r = d2m.tile_exp %v : !tile
    linalg.yield %r : !tile
  } -> !t
  %e2 = tensor.empty() : !t
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%m, %x : !t, !t) outs(%e2 : !t) {
  ^bb0(%u: !tile, %w: !tile, %o: !tile):
    %r = d2m.tile_add %u, %w : !tile
    linalg.yield %r : !tile
  } -> !t
  return %s : !t
}

// A transpose feeding a matmul's B operand: the unpacker transposes B tiles, so the
// transpose joins the matmul's body (not its epilogue) and k is read directly.
// CHECK-LABEL: func.func @transposed_b
// CHECK:      linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%q, %k : {{.*}})
// CHECK-NEXT: ^bb0(%[[Q:.*]]: !ttcore.tile<32x32, bf16>, %[[K:.*]]: !ttcore.tile<32x32, bf16>, %[[ACC:.*]]: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:   %[[KT:.*]] = d2m.tile_transpose %[[K]] : !ttcore.tile<32x32, bf16>
// CHECK-NEXT:   d2m.tile_matmul %[[Q]], %[[KT]], %[[ACC]] : !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>
func.func @transposed_b(%q: !t, %k: !t) -> !t {
  %e0 = tensor.empty() : !t
  %kt = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, #id], iterator_types = ["parallel", "parallel"]} ins(%k : !t) outs(%e0 : !t) {
  ^bb0(%a: !tile, %o: !tile):
    %r = d2m.tile_transpose %a : !tile
    linalg.yield %r : !tile
  } -> !t
  %e1 = tensor.empty() : !t
  %s = linalg.generic {indexing_maps = [#mm_a, #mm_b, #mm_c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%q, %kt : !t, !t) outs(%e1 : !t) {
  ^bb0(%p: !tile, %r: !tile, %acc: !tile):
    %m = d2m.tile_matmul %p, %r, %acc : !tile, !tile
    linalg.yield %m : !tile
  } -> !t
  return %s : !t
}

// Skipped iterations (`d2m.triangles`) stay: a tril on a matmul result fused as its
// epilogue keeps the matmul's triangle (the tril's, through the output map, the same
// one); an exp fused into its consumer runs where the consumer runs.
// CHECK-LABEL: func.func @skipped_tiles
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]{{.*}} attrs = {{.*}}{d2m.triangles = [#d2m.triangle<rows = 0, cols = 1, diagonal = 0>]}
// CHECK:           d2m.tile_matmul
// CHECK:           d2m.tile_add {{.*}} {d2m.tril_diagonal = 0 : i64, d2m.epilogue}
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]{{.*}} attrs = {{.*}}{d2m.triangles = [#d2m.triangle<rows = 0, cols = 1, diagonal = 0>]}
// CHECK:           d2m.tile_exp
// CHECK:           d2m.tile_neg
func.func @skipped_tiles(%p: !t, %q: !t, %band: tensor<1x3x!tile>) -> (!t, !t) {
  %e0 = tensor.empty() : !t
  %s = linalg.generic {indexing_maps = [#mm_a, #mm_b, #mm_c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%p, %q : !t, !t) outs(%e0 : !t) attrs = {d2m.triangles = [#d2m.triangle<rows = 0, cols = 1, diagonal = 0>]} {
  ^bb0(%a: !tile, %b: !tile, %acc: !tile):
    %r = d2m.tile_matmul %a, %b, %acc : !tile, !tile
    linalg.yield %r : !tile
  } -> !t
  %e1 = tensor.empty() : !t
  %t = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (0, d1 - d0 + 1)>, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %band : !t, tensor<1x3x!tile>) outs(%e1 : !t) attrs = {d2m.triangles = [#d2m.triangle<rows = 0, cols = 1, diagonal = 0>]} {
  ^bb0(%x: !tile, %m: !tile, %o: !tile):
    %r = d2m.tile_add %x, %m {d2m.tril_diagonal = 0 : i64} : !tile
    linalg.yield %r : !tile
  } -> !t
  %e2 = tensor.empty() : !t
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%p : !t) outs(%e2 : !t) attrs = {d2m.triangles = [#d2m.triangle<rows = 0, cols = 1, diagonal = 0>]} {
  ^bb0(%a: !tile, %o: !tile):
    %r = d2m.tile_exp %a : !tile
    linalg.yield %r : !tile
  } -> !t
  %e3 = tensor.empty() : !t
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !t) outs(%e3 : !t) attrs = {d2m.triangles = [#d2m.triangle<rows = 0, cols = 1, diagonal = 0>]} {
  ^bb0(%a: !tile, %o: !tile):
    %r = d2m.tile_neg %a : !tile
    linalg.yield %r : !tile
  } -> !t
  return %t, %y : !t, !t
}
