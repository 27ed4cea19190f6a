// RUN: %ttlang-opt %s -p d2m-memref-provenance | FileCheck %s

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!l1 = memref<2x2x!tile, #ttcore.memory_space<l1>>
!row = memref<2x1x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
#id = affine_map<(d0, d1) -> (d0, d1)>
#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>

// (A @ B) @ C: the first product's temporary is bound to a one-block local CB in L1;
// the second matmul reads it from that CB's front.
// CHECK-LABEL: func.func @chained_matmuls
// CHECK:      ^bb0(%a_cb: {{.*}}, %b_cb: {{.*}}, %c_cb: {{.*}}, %out_cb: {{.*}}):
// CHECK-NEXT: %[[TMP_CB:.*]] = d2m.local_cb : !d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>, 1>
// CHECK:      %[[AB_W:.*]] = d2m.reserve %[[TMP_CB]]
// CHECK-NEXT: linalg.generic {{.*}} ins(%a, %b : {{.*}}) outs(%[[AB_W]] : {{.*}})
// CHECK:        d2m.tile_matmul
// CHECK:      d2m.push %[[TMP_CB]]
// CHECK-NEXT: %[[AB_R:.*]] = d2m.wait %[[TMP_CB]]
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[AB_R]], %c : {{.*}}) outs(%o : {{.*}})
// CHECK:        d2m.tile_matmul
// CHECK:      d2m.pop %[[TMP_CB]]
// CHECK-NEXT: d2m.push %out_cb
// CHECK-NOT:  memref.alloc
func.func @chained_matmuls(%da: !dram, %db: !dram, %dc: !dram, %dout: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%da, %db, %dc : !dram, !dram, !dram) outs(%dout : !dram) {
  ^bb0(%a_cb: !cb, %b_cb: !cb, %c_cb: !cb, %out_cb: !cb):
    %a = d2m.wait %a_cb : !cb -> !l1
    %b = d2m.wait %b_cb : !cb -> !l1
    %c = d2m.wait %c_cb : !cb -> !l1
    %o = d2m.reserve %out_cb : !cb -> !l1
    %ab = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : !l1, !l1) outs(%ab : !l1) {
    ^bb0(%x: !tile, %y: !tile, %acc: !tile):
      %r = d2m.tile_matmul %x, %y, %acc : !tile, !tile
      linalg.yield %r : !tile
    }
    linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ab, %c : !l1, !l1) outs(%o : !l1) {
    ^bb0(%x: !tile, %y: !tile, %acc: !tile):
      %r = d2m.tile_matmul %x, %y, %acc : !tile, !tile
      linalg.yield %r : !tile
    }
    d2m.push %out_cb : !cb
  }
  return
}

// Temporaries of one block type share a CB when their lifetimes do not overlap (%t1
// dies before %t3 is written); overlapping ones (%t1, %t2) and other block types (%r)
// get CBs of their own. A buffer without a memory space goes to L1.
// CHECK-LABEL: func.func @sharing
// CHECK:      ^bb0(
// CHECK-NEXT: %[[CB_A:.*]] = d2m.local_cb : !d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>, 1>
// CHECK-NEXT: %[[CB_B:.*]] = d2m.local_cb : !d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>, 1>
// CHECK-NEXT: %[[CB_R:.*]] = d2m.local_cb : !d2m.cb<memref<2x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>, 1>
// CHECK-NOT:  d2m.local_cb
// CHECK:      d2m.reserve %[[CB_A]]
// CHECK:        d2m.tile_exp
// CHECK:      d2m.reserve %[[CB_B]]
// CHECK:        d2m.tile_recip
// CHECK:      %[[T1:.*]] = d2m.wait %[[CB_A]]
// CHECK-NEXT: %[[T2:.*]] = d2m.wait %[[CB_B]]
// CHECK-NEXT: %[[R_W:.*]] = d2m.reserve %[[CB_R]] : {{.*}} -> memref<2x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[T1]], %[[T2]] : {{.*}}) outs(%[[R_W]] : {{.*}})
// CHECK:      d2m.pop %[[CB_B]]
// CHECK-NEXT: d2m.pop %[[CB_A]]
// CHECK:      d2m.reserve %[[CB_A]]
// CHECK:        d2m.tile_neg
// CHECK:      d2m.pop %[[CB_A]]
// CHECK:      d2m.pop %[[CB_R]]
func.func @sharing(%din: !dram, %dout: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%din : !dram) outs(%dout : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %x = d2m.wait %in_cb : !cb -> !l1
    %o = d2m.reserve %out_cb : !cb -> !l1
    %t1 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t1 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %e = d2m.tile_exp %a : !tile
      linalg.yield %e : !tile
    }
    %t2 = memref.alloc() : memref<2x2x!tile>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t2 : memref<2x2x!tile>) {
    ^bb0(%a: !tile, %b: !tile):
      %e = d2m.tile_recip %a : !tile
      linalg.yield %e : !tile
    }
    %r = memref.alloc() : !row
    linalg.generic {indexing_maps = [#id, #id, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%t1, %t2 : !l1, memref<2x2x!tile>) outs(%r : !row) {
    ^bb0(%a: !tile, %b: !tile, %acc: !tile):
      %s = d2m.tile_reduce_sum <row> %a, %b, %acc : !tile
      linalg.yield %s : !tile
    }
    %t3 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t3 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %e = d2m.tile_neg %a : !tile
      linalg.yield %e : !tile
    }
    linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d0, 0)>, #id], iterator_types = ["parallel", "parallel"]} ins(%t3, %r : !l1, !row) outs(%o : !l1) {
    ^bb0(%a: !tile, %b: !tile, %c: !tile):
      %bc = d2m.tile_bcast <col> %b : !tile
      %s = d2m.tile_mul %a, %bc : !tile
      linalg.yield %s : !tile
    }
    d2m.push %out_cb : !cb
    d2m.pop %in_cb : !cb
  }
  return
}

// A temporary written inside a loop lives within one iteration; one written before the
// loop and read inside it is popped after the loop.
// CHECK-LABEL: func.func @loops
// CHECK:      %[[CB_IN:.*]] = d2m.local_cb
// CHECK-NEXT: %[[CB_OUT:.*]] = d2m.local_cb
// CHECK:      d2m.reserve %[[CB_IN]]
// CHECK:      %[[SCALE:.*]] = d2m.wait %[[CB_IN]]
// CHECK-NEXT: scf.for
// CHECK:        d2m.reserve %[[CB_OUT]]
// CHECK:        %[[O:.*]] = d2m.reserve %out_cb
// CHECK-NEXT:   %[[E:.*]] = d2m.wait %[[CB_OUT]]
// CHECK-NEXT:   linalg.generic {{.*}} ins(%[[E]], %[[SCALE]] : {{.*}}) outs(%[[O]] : {{.*}})
// CHECK:        d2m.pop %[[CB_OUT]]
// CHECK:      }
// CHECK-NEXT: d2m.pop %[[CB_IN]]
func.func @loops(%din: !dram, %dout: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%din : !dram) outs(%dout : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %scale = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%scale : !l1) {
    ^bb0(%b: !tile):
      %f = d2m.tile_fill 2.0 : !tile
      linalg.yield %f : !tile
    }
    scf.for %k = %c0 to %c4 step %c1 {
      %x = d2m.wait %in_cb : !cb -> !l1
      %e = memref.alloc() : !l1
      linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%e : !l1) {
      ^bb0(%a: !tile, %b: !tile):
        %r = d2m.tile_exp %a : !tile
        linalg.yield %r : !tile
      }
      %o = d2m.reserve %out_cb : !cb -> !l1
      linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%e, %scale : !l1, !l1) outs(%o : !l1) {
      ^bb0(%a: !tile, %b: !tile, %c: !tile):
        %r = d2m.tile_mul %a, %b : !tile
        linalg.yield %r : !tile
      }
      d2m.push %out_cb : !cb
      d2m.pop %in_cb : !cb
    }
  }
  return
}

// A temporary's wait goes before its first reader, not right after its push: the
// generic in between (exp of b) runs while the packer finishes the block.
// CHECK-LABEL: func.func @wait_at_first_reader
// CHECK:      linalg.generic {{.*}} ins(%a : {{.*}})
// CHECK:      d2m.push
// CHECK-NEXT: d2m.reserve
// CHECK-NEXT: linalg.generic {{.*}} ins(%b : {{.*}})
// CHECK:      d2m.push
// CHECK-NEXT: d2m.wait
// CHECK-NEXT: d2m.wait
// CHECK-NEXT: linalg.generic
// CHECK:        d2m.tile_add
func.func @wait_at_first_reader(%da: !dram, %db: !dram, %dout: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%da, %db : !dram, !dram) outs(%dout : !dram) {
  ^bb0(%a_cb: !cb, %b_cb: !cb, %out_cb: !cb):
    %a = d2m.wait %a_cb : !cb -> !l1
    %b = d2m.wait %b_cb : !cb -> !l1
    %o = d2m.reserve %out_cb : !cb -> !l1
    %t = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : !l1) outs(%t : !l1) {
    ^bb0(%x: !tile, %out: !tile):
      %r = d2m.tile_exp %x : !tile
      linalg.yield %r : !tile
    }
    %u = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%b : !l1) outs(%u : !l1) {
    ^bb0(%x: !tile, %out: !tile):
      %r = d2m.tile_exp %x : !tile
      linalg.yield %r : !tile
    }
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%t, %u : !l1, !l1) outs(%o : !l1) {
    ^bb0(%x: !tile, %y: !tile, %out: !tile):
      %r = d2m.tile_add %x, %y : !tile
      linalg.yield %r : !tile
    }
    d2m.push %out_cb : !cb
  }
  return
}

// A view of a waited-for block is a CB front like the block: the matmul reads rows 2..3
// of a's 4x2-tile block, and its temporary result is bound to a CB as usual.
// CHECK-LABEL: func.func @view_operand
// CHECK:      %[[A:.*]] = d2m.wait %a_cb
// CHECK-NEXT: %[[V:.*]] = d2m.block_view %[[A]] rows(2, 4)
// CHECK:      %[[T:.*]] = d2m.reserve %{{[0-9]+}}
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[V]], %b : {{.*}}) outs(%[[T]] : {{.*}})
// CHECK-NOT:  memref.alloc
func.func @view_operand(%da: memref<4x2x!tile, #ttcore.memory_space<dram>>, %db: !dram, %dout: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%da, %db : memref<4x2x!tile, #ttcore.memory_space<dram>>, !dram) outs(%dout : !dram) {
  ^bb0(%a_cb: !d2m.cb<memref<4x2x!tile, #ttcore.memory_space<l1>>>, %b_cb: !cb, %out_cb: !cb):
    %a = d2m.wait %a_cb : !d2m.cb<memref<4x2x!tile, #ttcore.memory_space<l1>>> -> memref<4x2x!tile, #ttcore.memory_space<l1>>
    %av = d2m.block_view %a rows(2, 4) : memref<4x2x!tile, #ttcore.memory_space<l1>> -> !l1
    %b = d2m.wait %b_cb : !cb -> !l1
    %o = d2m.reserve %out_cb : !cb -> !l1
    %ab = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%av, %b : !l1, !l1) outs(%ab : !l1) {
    ^bb0(%x: !tile, %y: !tile, %acc: !tile):
      %r = d2m.tile_matmul %x, %y, %acc : !tile, !tile
      linalg.yield %r : !tile
    }
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%ab : !l1) outs(%o : !l1) {
    ^bb0(%x: !tile, %y: !tile):
      %r = d2m.tile_exp %x : !tile
      linalg.yield %r : !tile
    }
    d2m.push %out_cb : !cb
  }
  return
}
