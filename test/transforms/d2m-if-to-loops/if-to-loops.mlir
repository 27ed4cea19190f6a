// RUN: %ttlang-opt %s --split-input-file -p d2m-if-to-loops | FileCheck %s

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<1x2x!tile, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<1x2x!tile, #ttcore.memory_space<l1>>>
!t = tensor<1x2x!tile>
#id = affine_map<(d0, d1) -> (d0, d1)>

// The DSL's `if c: acc = acc + x` (the else region yields acc): one loop, run when %c
// holds, carrying acc; the body reads the carried value, not acc.
// CHECK-LABEL: func.func @then_only
// CHECK:      %[[ACC:.*]] = d2m.wait %in_cb
// CHECK:      %[[C:.*]] = arith.cmpi eq
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[TRIPS:.*]] = arith.select %[[C]], %[[ONE]], %[[ZERO]] : index
// CHECK-NEXT: %[[R:.*]] = scf.for %{{.*}} = %[[ZERO]] to %[[TRIPS]] step %[[ONE]] iter_args(%[[A:.*]] = %[[ACC]]) -> (tensor<1x2x!ttcore.tile<32x32, bf16>>) {
// CHECK:        %[[N:.*]] = linalg.generic {{.*}} ins(%[[A]], %[[A]] : {{.*}})
// CHECK:        scf.yield %[[N]]
// CHECK-NEXT: }
// CHECK-NOT:  scf.if
// CHECK:      d2m.store %{{.*}}, %[[R]]
func.func @then_only(%in: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %acc = d2m.wait %in_cb : !cb -> !t
    %i = d2m.core_index(0)
    %zero = arith.constant 0 : index
    %c = arith.cmpi eq, %i, %zero : index
    %r = scf.if %c -> (!t) {
      %e = tensor.empty() : !t
      %n = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%acc, %acc : !t, !t) outs(%e : !t) {
      ^bb0(%a: !tile, %b: !tile, %o: !tile):
        %s = d2m.tile_add %a, %b : !tile
        linalg.yield %s : !tile
      } -> !t
      scf.yield %n : !t
    } else {
      scf.yield %acc : !t
    }
    %o = d2m.reserve %out_cb : !cb -> !t
    d2m.store %o, %r : !t, !t
    d2m.push %out_cb : !cb
    d2m.pop %in_cb : !cb
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<1x2x!tile, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<1x2x!tile, #ttcore.memory_space<l1>>>
!t = tensor<1x2x!tile>
#id = affine_map<(d0, d1) -> (d0, d1)>

// Both branches compute the block: the first loop starts from a tensor.empty that no
// path reads, the second, run when %c does not hold, carries the first's result.
// CHECK-LABEL: func.func @both_branches
// CHECK:      %[[C:.*]] = arith.cmpi eq
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[START:.*]] = tensor.empty() : tensor<1x2x!ttcore.tile<32x32, bf16>>
// CHECK-NEXT: %[[T:.*]] = arith.select %[[C]], %[[ONE]], %[[ZERO]] : index
// CHECK-NEXT: %[[R1:.*]] = scf.for %{{.*}} = %[[ZERO]] to %[[T]] step %[[ONE]] iter_args(%{{.*}} = %[[START]])
// CHECK:        d2m.tile_exp
// CHECK:      %[[E:.*]] = arith.select %[[C]], %[[ZERO]], %[[ONE]] : index
// CHECK-NEXT: %[[R2:.*]] = scf.for %{{.*}} = %[[ZERO]] to %[[E]] step %[[ONE]] iter_args(%{{.*}} = %[[R1]])
// CHECK:        d2m.tile_recip
// CHECK:      d2m.store %{{.*}}, %[[R2]]
func.func @both_branches(%in: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %x = d2m.wait %in_cb : !cb -> !t
    %i = d2m.core_index(0)
    %zero = arith.constant 0 : index
    %c = arith.cmpi eq, %i, %zero : index
    %r = scf.if %c -> (!t) {
      %e = tensor.empty() : !t
      %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !t) outs(%e : !t) {
      ^bb0(%a: !tile, %o: !tile):
        %s = d2m.tile_exp %a : !tile
        linalg.yield %s : !tile
      } -> !t
      scf.yield %n : !t
    } else {
      %e = tensor.empty() : !t
      %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !t) outs(%e : !t) {
      ^bb0(%a: !tile, %o: !tile):
        %s = d2m.tile_recip %a : !tile
        linalg.yield %s : !tile
      } -> !t
      scf.yield %n : !t
    }
    %o = d2m.reserve %out_cb : !cb -> !t
    d2m.store %o, %r : !t, !t
    d2m.push %out_cb : !cb
    d2m.pop %in_cb : !cb
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<1x2x!tile, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<1x2x!tile, #ttcore.memory_space<l1>>>
!t = tensor<1x2x!tile>
#id = affine_map<(d0, d1) -> (d0, d1)>

// The then branch leaves the block unchanged and the else branch computes it: the
// first loop carries it unchanged (d2m-bufferize drops such a carry), the second,
// run when %c does not hold, computes it from the carried value.
// CHECK-LABEL: func.func @else_computes
// CHECK:      %[[X:.*]] = d2m.wait %in_cb
// CHECK:      %[[R1:.*]] = scf.for %{{.*}} iter_args(%[[A:.*]] = %[[X]])
// CHECK-NEXT:   scf.yield %[[A]]
// CHECK-NEXT: }
// CHECK:      %[[R2:.*]] = scf.for %{{.*}} iter_args(%[[B:.*]] = %[[R1]])
// CHECK:        linalg.generic {{.*}} ins(%[[B]] : {{.*}})
// CHECK:      d2m.store %{{.*}}, %[[R2]]
func.func @else_computes(%in: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %x = d2m.wait %in_cb : !cb -> !t
    %i = d2m.core_index(0)
    %zero = arith.constant 0 : index
    %c = arith.cmpi eq, %i, %zero : index
    %r = scf.if %c -> (!t) {
      scf.yield %x : !t
    } else {
      %e = tensor.empty() : !t
      %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !t) outs(%e : !t) {
      ^bb0(%a: !tile, %o: !tile):
        %s = d2m.tile_recip %a : !tile
        linalg.yield %s : !tile
      } -> !t
      scf.yield %n : !t
    }
    %o = d2m.reserve %out_cb : !cb -> !t
    d2m.store %o, %r : !t, !t
    d2m.push %out_cb : !cb
    d2m.pop %in_cb : !cb
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<1x2x!tile, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<1x2x!tile, #ttcore.memory_space<l1>>>
!t = tensor<1x2x!tile>

// Left alone: an `if` yielding indices, and one yielding nothing.
// CHECK-LABEL: func.func @no_blocks
// CHECK:      scf.if %{{.*}} -> (index)
// CHECK:      scf.if
// CHECK-NOT:  scf.for
func.func @no_blocks(%in: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %i = d2m.core_index(0)
    %zero = arith.constant 0 : index
    %c = arith.cmpi eq, %i, %zero : index
    %j = scf.if %c -> (index) {
      scf.yield %i : index
    } else {
      scf.yield %zero : index
    }
    scf.if %c {
      %x = d2m.wait %in_cb : !cb -> !t
      %o = d2m.reserve %out_cb : !cb -> !t
      d2m.store %o, %x : !t, !t
      d2m.push %out_cb : !cb
      d2m.pop %in_cb : !cb
    }
  }
  return
}
