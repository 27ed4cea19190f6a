// RUN: %ttlang-opt %s -p d2m-bufferize | FileCheck %s

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<2x2x!tile, #ttcore.memory_space<l1>>>
!t = tensor<2x2x!tile>
#id = affine_map<(d0, d1) -> (d0, d1)>

// A generic stored into a block reserved before it writes the block directly.
// CHECK-LABEL: func.func @store_in_place
// CHECK:      %[[IN:.*]] = d2m.wait %{{.*}} : {{.*}} -> memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
// CHECK-NEXT: %[[OUT:.*]] = d2m.reserve %{{.*}} : {{.*}} -> memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[IN]] : {{.*}}) outs(%[[OUT]] : {{.*}})
// CHECK:        d2m.tile_exp
// CHECK-NOT:  d2m.store
// CHECK-NOT:  tensor
func.func @store_in_place(%in: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %x = d2m.wait %in_cb : !cb -> !t
    %o = d2m.reserve %out_cb : !cb -> !t
    %e = tensor.empty() : !t
    %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !t) outs(%e : !t) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    } -> !t
    d2m.store %o, %y : !t, !t
    d2m.push %out_cb : !cb
    d2m.pop %in_cb : !cb
  }
  return
}

// A temporary gets an intermediate buffer in L1 (d2m-memref-provenance binds it to a CB).
// CHECK-LABEL: func.func @temporary
// CHECK-NOT:  d2m.local_cb
// CHECK:      %[[OUT:.*]] = d2m.reserve %out_cb
// CHECK-NEXT: %[[TMP:.*]] = memref.alloc() : memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[TMP]] : {{.*}})
// CHECK:        d2m.tile_exp
// CHECK:      linalg.generic {{.*}} ins(%[[TMP]] : {{.*}}) outs(%[[OUT]] : {{.*}})
// CHECK:        d2m.tile_recip
// CHECK:      d2m.push %out_cb
func.func @temporary(%in: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %x = d2m.wait %in_cb : !cb -> !t
    %o = d2m.reserve %out_cb : !cb -> !t
    %e = tensor.empty() : !t
    %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !t) outs(%e : !t) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    } -> !t
    %z = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%y : !t) outs(%e : !t) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_recip %a : !tile
      linalg.yield %r : !tile
    } -> !t
    d2m.store %o, %z : !t, !t
    d2m.push %out_cb : !cb
    d2m.pop %in_cb : !cb
  }
  return
}

// Storing a block that is not an operator result copies it with an identity generic.
// CHECK-LABEL: func.func @store_copies
// CHECK:      %[[IN:.*]] = d2m.wait %in_cb
// CHECK-NEXT: %[[OUT:.*]] = d2m.reserve %out_cb
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[IN]] : {{.*}}) outs(%[[OUT]] : {{.*}})
// CHECK-NEXT: ^bb{{.*}}(%[[A:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:   linalg.yield %[[A]]
func.func @store_copies(%in: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %x = d2m.wait %in_cb : !cb -> !t
    %o = d2m.reserve %out_cb : !cb -> !t
    d2m.store %o, %x : !t, !t
    d2m.push %out_cb : !cb
    d2m.pop %in_cb : !cb
  }
  return
}

// A loop-carried block streams through a two-block local CB; the init and the yielded
// value are computed straight into it.
// CHECK-LABEL: func.func @loop_carried
// CHECK:      %[[CARRY:.*]] = d2m.local_cb : !d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
// CHECK:      %[[INIT:.*]] = d2m.reserve %[[CARRY]]
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[INIT]] : {{.*}})
// CHECK:        d2m.tile_fill
// CHECK:      d2m.push %[[CARRY]]
// CHECK-NEXT: scf.for
// CHECK-NEXT:   %[[CUR:.*]] = d2m.wait %[[CARRY]]
// CHECK-NEXT:   %[[NEXT:.*]] = d2m.reserve %[[CARRY]]
// CHECK:        linalg.generic {{.*}} ins(%[[CUR]], %{{.*}} : {{.*}}) outs(%[[NEXT]] : {{.*}})
// CHECK:          d2m.tile_add
// CHECK:        d2m.push %[[CARRY]]
// CHECK-NEXT:   d2m.pop %[[CARRY]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[FINAL:.*]] = d2m.wait %[[CARRY]]
// CHECK:      linalg.generic {{.*}} ins(%[[FINAL]] : {{.*}})
// CHECK:      d2m.pop %[[CARRY]]
func.func @loop_carried(%in: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %e = tensor.empty() : !t
    %zero = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : !t) {
    ^bb0(%b: !tile):
      %f = d2m.tile_fill 0.0 : !tile
      linalg.yield %f : !tile
    } -> !t
    %acc = scf.for %k = %c0 to %c4 step %c1 iter_args(%sum = %zero) -> (!t) {
      %x = d2m.wait %in_cb : !cb -> !t
      %e2 = tensor.empty() : !t
      %next = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%sum, %x : !t, !t) outs(%e2 : !t) {
      ^bb0(%a: !tile, %b: !tile, %c: !tile):
        %r = d2m.tile_add %a, %b : !tile
        linalg.yield %r : !tile
      } -> !t
      d2m.pop %in_cb : !cb
      scf.yield %next : !t
    }
    %o = d2m.reserve %out_cb : !cb -> !t
    d2m.store %o, %acc : !t, !t
    d2m.push %out_cb : !cb
  }
  return
}

// A loop starting from a tensor.empty (d2m-if-to-loops: a block both branches of an
// `if` compute, which no path reads before a branch stores it) reserves and pushes the
// carry CB's first block unwritten.
// CHECK-LABEL: func.func @loop_from_empty
// CHECK:      %[[CARRY:.*]] = d2m.local_cb
// CHECK:      d2m.reserve %[[CARRY]]
// CHECK-NOT:  linalg.generic
// CHECK:      d2m.push %[[CARRY]]
// CHECK-NEXT: scf.for
// CHECK-NEXT:   d2m.wait %[[CARRY]]
// CHECK-NEXT:   %[[NEXT:.*]] = d2m.reserve %[[CARRY]]
// CHECK:        linalg.generic {{.*}} outs(%[[NEXT]] : {{.*}})
// CHECK:          d2m.tile_exp
func.func @loop_from_empty(%in: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %start = tensor.empty() : !t
    %r = scf.for %k = %c0 to %c1 step %c1 iter_args(%cur = %start) -> (!t) {
      %x = d2m.wait %in_cb : !cb -> !t
      %e = tensor.empty() : !t
      %next = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !t) outs(%e : !t) {
      ^bb0(%a: !tile, %b: !tile):
        %y = d2m.tile_exp %a : !tile
        linalg.yield %y : !tile
      } -> !t
      d2m.pop %in_cb : !cb
      scf.yield %next : !t
    }
    %o = d2m.reserve %out_cb : !cb -> !t
    d2m.store %o, %r : !t, !t
    d2m.push %out_cb : !cb
  }
  return
}

// Two loops in a row carrying one block: the second streams it on through the first
// one's CB, whose front holds the first loop's result (no final wait, copy or second
// CB between them); the second loop's result is waited for and popped as usual. A
// result the program reads besides the next loop (@chained_loops_read_between) is
// copied into a CB of the next loop's own instead.
// CHECK-LABEL: func.func @chained_loops
// CHECK:      %[[CARRY:.*]] = d2m.local_cb
// CHECK-NOT:  d2m.local_cb
// CHECK:      scf.for
// CHECK:        d2m.tile_add
// CHECK:        d2m.pop %[[CARRY]]
// CHECK-NEXT: }
// CHECK-NEXT: scf.for
// CHECK-NEXT:   %[[CUR:.*]] = d2m.wait %[[CARRY]]
// CHECK-NEXT:   %[[NEXT:.*]] = d2m.reserve %[[CARRY]]
// CHECK:        linalg.generic {{.*}} ins(%[[CUR]], %{{.*}} : {{.*}}) outs(%[[NEXT]] : {{.*}})
// CHECK:          d2m.tile_mul
// CHECK:        d2m.push %[[CARRY]]
// CHECK-NEXT:   d2m.pop %[[CARRY]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[FINAL:.*]] = d2m.wait %[[CARRY]]
// CHECK:      linalg.generic {{.*}} ins(%[[FINAL]], %[[FINAL]] : {{.*}})
// CHECK:      d2m.pop %[[CARRY]]
// CHECK-NOT:  d2m.pop %[[CARRY]]
// CHECK-LABEL: func.func @chained_loops_read_between
// CHECK:      %[[FIRST:.*]] = d2m.local_cb
// CHECK-NEXT: %[[SECOND:.*]] = d2m.local_cb
// CHECK:      %[[NEXT_INIT:.*]] = d2m.reserve %[[SECOND]]
// CHECK-NEXT: %[[RESULT:.*]] = d2m.wait %[[FIRST]]
// CHECK:      linalg.generic {{.*}} ins(%[[RESULT]] : {{.*}}) outs(%[[NEXT_INIT]] : {{.*}})
func.func @chained_loops(%in: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = d2m.core_index(0)
    %e = tensor.empty() : !t
    %zero = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : !t) {
    ^bb0(%b: !tile):
      %f = d2m.tile_fill 0.0 : !tile
      linalg.yield %f : !tile
    } -> !t
    %sum = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!t) {
      %x = d2m.wait %in_cb : !cb -> !t
      %e2 = tensor.empty() : !t
      %next = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%acc, %x : !t, !t) outs(%e2 : !t) {
      ^bb0(%a: !tile, %b: !tile, %c: !tile):
        %r = d2m.tile_add %a, %b : !tile
        linalg.yield %r : !tile
      } -> !t
      d2m.pop %in_cb : !cb
      scf.yield %next : !t
    }
    %product = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %sum) -> (!t) {
      %x = d2m.wait %in_cb : !cb -> !t
      %e2 = tensor.empty() : !t
      %next = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%acc, %x : !t, !t) outs(%e2 : !t) {
      ^bb0(%a: !tile, %b: !tile, %c: !tile):
        %r = d2m.tile_mul %a, %b : !tile
        linalg.yield %r : !tile
      } -> !t
      d2m.pop %in_cb : !cb
      scf.yield %next : !t
    }
    %e3 = tensor.empty() : !t
    %result = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%product, %product : !t, !t) outs(%e3 : !t) {
    ^bb0(%a: !tile, %b: !tile, %c: !tile):
      %r = d2m.tile_sub %a, %b : !tile
      linalg.yield %r : !tile
    } -> !t
    %o = d2m.reserve %out_cb : !cb -> !t
    d2m.store %o, %result : !t, !t
    d2m.push %out_cb : !cb
  }
  return
}

func.func @chained_loops_read_between(%in: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = d2m.core_index(0)
    %e = tensor.empty() : !t
    %zero = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : !t) {
    ^bb0(%b: !tile):
      %f = d2m.tile_fill 0.0 : !tile
      linalg.yield %f : !tile
    } -> !t
    %sum = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!t) {
      %x = d2m.wait %in_cb : !cb -> !t
      %e2 = tensor.empty() : !t
      %next = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%acc, %x : !t, !t) outs(%e2 : !t) {
      ^bb0(%a: !tile, %b: !tile, %c: !tile):
        %r = d2m.tile_add %a, %b : !tile
        linalg.yield %r : !tile
      } -> !t
      d2m.pop %in_cb : !cb
      scf.yield %next : !t
    }
    %product = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %sum) -> (!t) {
      %x = d2m.wait %in_cb : !cb -> !t
      %e2 = tensor.empty() : !t
      %next = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%acc, %x : !t, !t) outs(%e2 : !t) {
      ^bb0(%a: !tile, %b: !tile, %c: !tile):
        %r = d2m.tile_mul %a, %b : !tile
        linalg.yield %r : !tile
      } -> !t
      d2m.pop %in_cb : !cb
      scf.yield %next : !t
    }
    %e3 = tensor.empty() : !t
    %result = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%product, %sum : !t, !t) outs(%e3 : !t) {
    ^bb0(%a: !tile, %b: !tile, %c: !tile):
      %r = d2m.tile_sub %a, %b : !tile
      linalg.yield %r : !tile
    } -> !t
    %o = d2m.reserve %out_cb : !cb -> !t
    d2m.store %o, %result : !t, !t
    d2m.push %out_cb : !cb
  }
  return
}

// A block carried through two nested loops: the outer loop is streamed first, so the
// inner loop's result is a value its body hands off to the outer CB's next block (and
// the inner CB's final block is popped after that copy, never after the terminator).
// CHECK-LABEL: func.func @nested_loops_carried
// CHECK:      %[[OUTER:.*]] = d2m.local_cb
// CHECK-NEXT: %[[INNER:.*]] = d2m.local_cb
// CHECK:      scf.for %i
// CHECK:        %[[CUR:.*]] = d2m.wait %[[OUTER]]
// CHECK-NEXT:   %[[NEXT:.*]] = d2m.reserve %[[OUTER]]
// CHECK:        scf.for %j
// CHECK-NEXT:     d2m.wait %[[INNER]]
// CHECK-NEXT:     d2m.reserve %[[INNER]]
// CHECK:            d2m.tile_add
// CHECK:          d2m.push %[[INNER]]
// CHECK-NEXT:     d2m.pop %[[INNER]]
// CHECK-NEXT:   }
// CHECK-NEXT:   %[[ROW:.*]] = d2m.wait %[[INNER]]
// CHECK-NEXT:   linalg.generic {{.*}} ins(%[[ROW]] : {{.*}}) outs(%[[NEXT]] : {{.*}})
// CHECK:        d2m.pop %[[INNER]]
// CHECK-NEXT:   d2m.push %[[OUTER]]
// CHECK-NEXT:   d2m.pop %[[OUTER]]
// CHECK-NEXT: }
// CHECK-NEXT: d2m.wait %[[OUTER]]
func.func @nested_loops_carried(%in: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %e = tensor.empty() : !t
    %zero = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : !t) {
    ^bb0(%b: !tile):
      %f = d2m.tile_fill 0.0 : !tile
      linalg.yield %f : !tile
    } -> !t
    %acc = scf.for %i = %c0 to %c2 step %c1 iter_args(%outer = %zero) -> (!t) {
      %row = scf.for %j = %c0 to %c2 step %c1 iter_args(%sum = %outer) -> (!t) {
        %x = d2m.wait %in_cb : !cb -> !t
        %e2 = tensor.empty() : !t
        %next = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%sum, %x : !t, !t) outs(%e2 : !t) {
        ^bb0(%a: !tile, %b: !tile, %c: !tile):
          %r = d2m.tile_add %a, %b : !tile
          linalg.yield %r : !tile
        } -> !t
        d2m.pop %in_cb : !cb
        scf.yield %next : !t
      }
      scf.yield %row : !t
    }
    %o = d2m.reserve %out_cb : !cb -> !t
    d2m.store %o, %acc : !t, !t
    d2m.push %out_cb : !cb
  }
  return
}

// A yielded value the iteration also reads (m = max(m, x); y = x - m) is computed into
// an intermediate buffer, read from there, and copied into the carried CB's next block
// (the unpacker cannot read the back block it would otherwise be written to).
// CHECK-LABEL: func.func @carried_and_read
// CHECK:      %[[CARRY:.*]] = d2m.local_cb
// CHECK:      scf.for
// CHECK-NEXT:   %[[CUR:.*]] = d2m.wait %[[CARRY]]
// CHECK-NEXT:   %[[NEXT:.*]] = d2m.reserve %[[CARRY]]
// CHECK:        %[[NEW:.*]] = memref.alloc() : memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
// CHECK-NEXT:   linalg.generic {{.*}} ins(%[[CUR]], %{{.*}} : {{.*}}) outs(%[[NEW]] : {{.*}})
// CHECK:          d2m.tile_maximum
// CHECK:        linalg.generic {{.*}} ins(%{{.*}}, %[[NEW]] : {{.*}}) outs(%{{.*}} : {{.*}})
// CHECK:          d2m.tile_sub
// CHECK:        linalg.generic {{.*}} ins(%[[NEW]] : {{.*}}) outs(%[[NEXT]] : {{.*}})
// CHECK-NEXT:   ^bb{{.*}}(%[[A:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:     linalg.yield %[[A]]
// CHECK:        d2m.push %[[CARRY]]
// CHECK-NEXT:   d2m.pop %[[CARRY]]
func.func @carried_and_read(%in: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %e = tensor.empty() : !t
    %low = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : !t) {
    ^bb0(%b: !tile):
      %f = d2m.tile_fill -100.0 : !tile
      linalg.yield %f : !tile
    } -> !t
    %m = scf.for %k = %c0 to %c4 step %c1 iter_args(%run = %low) -> (!t) {
      %x = d2m.wait %in_cb : !cb -> !t
      %e2 = tensor.empty() : !t
      %new = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%run, %x : !t, !t) outs(%e2 : !t) {
      ^bb0(%a: !tile, %b: !tile, %c: !tile):
        %r = d2m.tile_maximum %a, %b : !tile
        linalg.yield %r : !tile
      } -> !t
      %o = d2m.reserve %out_cb : !cb -> !t
      %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %new : !t, !t) outs(%e2 : !t) {
      ^bb0(%a: !tile, %b: !tile, %c: !tile):
        %r = d2m.tile_sub %a, %b : !tile
        linalg.yield %r : !tile
      } -> !t
      d2m.store %o, %y : !t, !t
      d2m.push %out_cb : !cb
      d2m.pop %in_cb : !cb
      scf.yield %new : !t
    }
  }
  return
}

// Compute sees a bfp8_b CB's block as the unpacker hands it over, bf16 tiles; storing it
// into a bf16 block copies it through DST.
// CHECK-LABEL: func.func @bfp8_block_copy
// CHECK:      %[[IN:.*]] = d2m.wait %{{.*}} : !d2m.cb<memref<2x2x!ttcore.tile<32x32, bfp8_b>, #ttcore.memory_space<l1>>> -> memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
// CHECK-NEXT: %[[OUT:.*]] = d2m.reserve %{{.*}} : {{.*}} -> memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[IN]] : {{.*}}) outs(%[[OUT]] : {{.*}})
// CHECK-NEXT: ^{{.*}}(%{{.*}}: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
!bfp8_dram = memref<2x2x!ttcore.tile<32x32, bfp8_b>, #ttcore.memory_space<dram>>
!bfp8_cb = !d2m.cb<memref<2x2x!ttcore.tile<32x32, bfp8_b>, #ttcore.memory_space<l1>>>
func.func @bfp8_block_copy(%in: !bfp8_dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !bfp8_dram) outs(%out : !dram) {
  ^bb0(%in_cb: !bfp8_cb, %out_cb: !cb):
    %x = d2m.wait %in_cb : !bfp8_cb -> !t
    %o = d2m.reserve %out_cb : !cb -> !t
    d2m.store %o, %x : !t, !t
    d2m.push %out_cb : !cb
    d2m.pop %in_cb : !bfp8_cb
  }
  return
}

// A block the loop yields unchanged (assigned only in a branch the DSL dropped at
// compile time) is loop-invariant: its init is read inside the loop and after it, it gets
// no carry CB and no hand-off; the block the loop changes still streams.
// CHECK-LABEL: func.func @carried_unchanged
// CHECK:      %[[CARRY:.*]] = d2m.local_cb
// CHECK-NOT:  d2m.local_cb
// CHECK:      %[[KEPT:.*]] = memref.alloc() : memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[KEPT]] : {{.*}})
// CHECK:        d2m.tile_fill 1.000000e+00
// CHECK:      scf.for
// CHECK-NEXT:   %[[CUR:.*]] = d2m.wait %[[CARRY]]
// CHECK-NEXT:   %[[NEXT:.*]] = d2m.reserve %[[CARRY]]
// CHECK:        linalg.generic {{.*}} ins(%[[CUR]], %[[KEPT]], %{{.*}} : {{.*}}) outs(%[[NEXT]] : {{.*}})
// CHECK:        d2m.push %[[CARRY]]
// CHECK-NEXT:   d2m.pop %[[CARRY]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[FINAL:.*]] = d2m.wait %[[CARRY]]
// CHECK:      linalg.generic {{.*}} ins(%[[FINAL]], %[[KEPT]] : {{.*}})
// CHECK:      d2m.pop %[[CARRY]]
func.func @carried_unchanged(%in: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %e = tensor.empty() : !t
    %zero = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : !t) {
    ^bb0(%b: !tile):
      %f = d2m.tile_fill 0.0 : !tile
      linalg.yield %f : !tile
    } -> !t
    %one = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : !t) {
    ^bb0(%b: !tile):
      %f = d2m.tile_fill 1.0 : !tile
      linalg.yield %f : !tile
    } -> !t
    %acc, %kept = scf.for %k = %c0 to %c4 step %c1 iter_args(%sum = %zero, %same = %one) -> (!t, !t) {
      %x = d2m.wait %in_cb : !cb -> !t
      %e2 = tensor.empty() : !t
      %next = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%sum, %same, %x : !t, !t, !t) outs(%e2 : !t) {
      ^bb0(%a: !tile, %s: !tile, %b: !tile, %c: !tile):
        %p = d2m.tile_mul %s, %b : !tile
        %r = d2m.tile_add %a, %p : !tile
        linalg.yield %r : !tile
      } -> !t
      d2m.pop %in_cb : !cb
      scf.yield %next, %same : !t, !t
    }
    %o = d2m.reserve %out_cb : !cb -> !t
    %e3 = tensor.empty() : !t
    %res = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%acc, %kept : !t, !t) outs(%e3 : !t) {
    ^bb0(%a: !tile, %b: !tile, %c: !tile):
      %r = d2m.tile_add %a, %b : !tile
      linalg.yield %r : !tile
    } -> !t
    d2m.store %o, %res : !t, !t
    d2m.push %out_cb : !cb
  }
  return
}

// An unchanged carried block that is a CB's block is read in place inside the loop; its
// CB may release it before the loop result's last use, so the result is copied once,
// right after the loop (an unused result is not).
// CHECK-LABEL: func.func @carried_unchanged_cb_block
// CHECK-NOT:  d2m.local_cb
// CHECK:      %[[IN:.*]] = d2m.wait %in_cb
// CHECK:      scf.for
// CHECK-NEXT:   %[[Y:.*]] = memref.alloc()
// CHECK-NEXT:   linalg.generic {{.*}} ins(%[[IN]] : {{.*}}) outs(%[[Y]] : {{.*}})
// CHECK:          d2m.tile_exp
// CHECK-NEXT:     linalg.yield
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: %[[COPY:.*]] = memref.alloc()
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[IN]] : {{.*}}) outs(%[[COPY]] : {{.*}})
// CHECK-NEXT: ^bb{{.*}}(%[[A:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:   linalg.yield %[[A]]
// CHECK:      d2m.pop %in_cb
// CHECK-NEXT: %[[OUT:.*]] = d2m.reserve %out_cb
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[COPY]] : {{.*}}) outs(%[[OUT]] : {{.*}})
func.func @carried_unchanged_cb_block(%in: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %x = d2m.wait %in_cb : !cb -> !t
    %kept = scf.for %k = %c0 to %c4 step %c1 iter_args(%same = %x) -> (!t) {
      %e = tensor.empty() : !t
      %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%same : !t) outs(%e : !t) {
      ^bb0(%a: !tile, %b: !tile):
        %r = d2m.tile_exp %a : !tile
        linalg.yield %r : !tile
      } -> !t
      scf.yield %same : !t
    }
    d2m.pop %in_cb : !cb
    %o = d2m.reserve %out_cb : !cb -> !t
    %e2 = tensor.empty() : !t
    %z = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%kept : !t) outs(%e2 : !t) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_recip %a : !tile
      linalg.yield %r : !tile
    } -> !t
    d2m.store %o, %z : !t, !t
    d2m.push %out_cb : !cb
  }
  return
}

// A view of a waited-for block (`blk[1:3]`) becomes a view of its L1 block. Carried
// unchanged by a loop, it is a CB's block too: the loop reads the view in place and
// the result is a copy of it made right after the loop, before the CB's pop.
// CHECK-LABEL: func.func @carried_unchanged_view
// CHECK:      %[[IN:.*]] = d2m.wait %in_cb : {{.*}} -> memref<4x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
// CHECK-NEXT: %[[V:.*]] = d2m.block_view %[[IN]] rows(1, 3) : memref<4x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>> -> memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
// CHECK:      scf.for
// CHECK:        linalg.generic {{.*}} ins(%[[V]] : {{.*}})
// CHECK:          d2m.tile_exp
// CHECK:      %[[COPY:.*]] = memref.alloc()
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[V]] : {{.*}}) outs(%[[COPY]] : {{.*}})
// CHECK:      d2m.pop %in_cb
// CHECK-NEXT: %[[OUT:.*]] = d2m.reserve %out_cb
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[COPY]] : {{.*}}) outs(%[[OUT]] : {{.*}})
func.func @carried_unchanged_view(%in: memref<4x2x!tile, #ttcore.memory_space<dram>>, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : memref<4x2x!tile, #ttcore.memory_space<dram>>) outs(%out : !dram) {
  ^bb0(%in_cb: !d2m.cb<memref<4x2x!tile, #ttcore.memory_space<l1>>>, %out_cb: !cb):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %x = d2m.wait %in_cb : !d2m.cb<memref<4x2x!tile, #ttcore.memory_space<l1>>> -> tensor<4x2x!tile>
    %xv = d2m.block_view %x rows(1, 3) : tensor<4x2x!tile> -> !t
    %kept = scf.for %k = %c0 to %c4 step %c1 iter_args(%same = %xv) -> (!t) {
      %e = tensor.empty() : !t
      %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%same : !t) outs(%e : !t) {
      ^bb0(%a: !tile, %b: !tile):
        %r = d2m.tile_exp %a : !tile
        linalg.yield %r : !tile
      } -> !t
      scf.yield %same : !t
    }
    d2m.pop %in_cb : !d2m.cb<memref<4x2x!tile, #ttcore.memory_space<l1>>>
    %o = d2m.reserve %out_cb : !cb -> !t
    %e2 = tensor.empty() : !t
    %z = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%kept : !t) outs(%e2 : !t) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_recip %a : !tile
      linalg.yield %r : !tile
    } -> !t
    d2m.store %o, %z : !t, !t
    d2m.push %out_cb : !cb
  }
  return
}

// Two carries the loop swaps (`a, b = b, a`): each next block is a copy of the other
// carry's current block, and both copies come before either CB pops its current block
// (the second copy reads the block the first CB's pop would release).
// CHECK-LABEL: func.func @carried_swapped
// CHECK:      %[[A:.*]] = d2m.local_cb
// CHECK:      %[[B:.*]] = d2m.local_cb
// CHECK:      scf.for
// CHECK-NEXT:   %[[CUR_B:.*]] = d2m.wait %[[B]]
// CHECK-NEXT:   %[[NEXT_B:.*]] = d2m.reserve %[[B]]
// CHECK-NEXT:   %[[CUR_A:.*]] = d2m.wait %[[A]]
// CHECK-NEXT:   %[[NEXT_A:.*]] = d2m.reserve %[[A]]
// CHECK:        linalg.generic {{.*}} ins(%[[CUR_B]] : {{.*}}) outs(%[[NEXT_A]] : {{.*}})
// CHECK:        linalg.generic {{.*}} ins(%[[CUR_A]] : {{.*}}) outs(%[[NEXT_B]] : {{.*}})
// CHECK:        d2m.push %[[A]]
// CHECK-NEXT:   d2m.pop %[[A]]
// CHECK-NEXT:   d2m.push %[[B]]
// CHECK-NEXT:   d2m.pop %[[B]]
// CHECK-NEXT: }
func.func @carried_swapped(%in: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %e = tensor.empty() : !t
    %zero = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : !t) {
    ^bb0(%b: !tile):
      %f = d2m.tile_fill 0.0 : !tile
      linalg.yield %f : !tile
    } -> !t
    %one = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : !t) {
    ^bb0(%b: !tile):
      %f = d2m.tile_fill 1.0 : !tile
      linalg.yield %f : !tile
    } -> !t
    %a, %b = scf.for %k = %c0 to %c4 step %c1 iter_args(%x = %zero, %y = %one) -> (!t, !t) {
      scf.yield %y, %x : !t, !t
    }
    %o = d2m.reserve %out_cb : !cb -> !t
    %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%a, %b : !t, !t) outs(%e : !t) {
    ^bb0(%p: !tile, %q: !tile, %r: !tile):
      %t = d2m.tile_sub %p, %q : !tile
      linalg.yield %t : !tile
    } -> !t
    d2m.store %o, %s : !t, !t
    d2m.push %out_cb : !cb
  }
  return
}
