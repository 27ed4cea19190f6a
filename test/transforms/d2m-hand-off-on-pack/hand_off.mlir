// RUN: %ttlang-opt %s --split-input-file -p d2m-hand-off-on-pack | FileCheck %s
// RUN: %ttlang-opt %s --split-input-file -p d2m-hand-off-on-pack,d2m-tile-subblock,d2m-dst-allocate,d2m-lower-to-loops | FileCheck %s --check-prefix=LOOPS

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>

// A loop carrying `a` (`a = a + x; out += exp(a)` per chunk) as d2m-bufferize and
// d2m-memref-provenance leave it: `a + x` is read in the iteration, so it is computed
// into a temporary (%t_cb) and copied into the carried CB's back (%a_next, reserved at
// the top of the iteration) at its end. The add packs into both blocks; the copy is
// gone, the temporary's pop follows its last reader, pushes and pops keep their places.
// CHECK-LABEL: func.func @carried_sum
// CHECK:      scf.for
// CHECK-NEXT:   %[[A:.*]] = d2m.wait %[[ACB:.*]] : !d2m.cb<memref<2x2x
// CHECK-NEXT:   %[[NEXT:.*]] = d2m.reserve %[[ACB]] :
// CHECK:        %[[W:.*]] = d2m.reserve %[[TCB:.*]] :
// CHECK-NEXT:   linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %{{.*}} : {{.*}}) outs(%[[W]], %[[NEXT]] : {{.*}}) {
// CHECK-NEXT:   ^bb0(%{{.*}}: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:     %[[S:.*]] = d2m.tile_add
// CHECK-NEXT:     linalg.yield %[[S]], %[[S]] : !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>
// CHECK:        d2m.push %[[TCB]]
// CHECK-NEXT:   %[[T:.*]] = d2m.wait %[[TCB]]
// CHECK-NEXT:   linalg.generic {{.*}} ins(%[[T]], %{{.*}} : {{.*}}) outs(%{{.*}} : {{.*}})
// CHECK:        d2m.tile_exp
// CHECK:        }
// CHECK-NEXT:   d2m.pop %[[TCB]]
// CHECK-NEXT:   d2m.pop %x_cb
// CHECK-NOT:    linalg.generic
// CHECK:        d2m.push %[[ACB]]
// CHECK-NEXT:   d2m.pop %[[ACB]]
// CHECK-NEXT: }
// One section for the add, packing each tile into the temporary and then into the
// carried CB's back; none for a copy.
// LOOPS-LABEL: func.func @carried_sum
// LOOPS:      scf.for
// LOOPS:        d2m.acquire_dst
// LOOPS:        d2m.tile_add
// LOOPS:        d2m.wait_dst
// LOOPS:        memref.store %{{.*}}, %[[W:.*]][%{{.*}}, %{{.*}}] : memref<2x2x
// LOOPS:        memref.store %{{.*}}, %[[NEXT:.*]][%{{.*}}, %{{.*}}] : memref<2x2x
// LOOPS:        d2m.release_dst
// LOOPS:        d2m.acquire_dst
// LOOPS:        d2m.tile_exp
// LOOPS:        d2m.release_dst
// LOOPS-NOT:    d2m.acquire_dst
// LOOPS:      }
func.func @carried_sum(%xd: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%xd : !dram) outs(%out : !dram) {
  ^bb0(%x_cb: !d2m.cb<!blk>, %o_cb: !d2m.cb<!blk>):
    %a_cb = d2m.local_cb : !d2m.cb<!blk>
    %t_cb = d2m.local_cb : !d2m.cb<!blk, 1>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %o = d2m.reserve %o_cb : !d2m.cb<!blk> -> !blk
    %a0 = d2m.reserve %a_cb : !d2m.cb<!blk> -> !blk
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%a0 : !blk) {
    ^bb0(%z: !tile):
      %f = d2m.tile_fill 0.0 : !tile
      linalg.yield %f : !tile
    }
    d2m.push %a_cb : !d2m.cb<!blk>
    scf.for %k = %c0 to %c3 step %c1 {
      %a = d2m.wait %a_cb : !d2m.cb<!blk> -> !blk
      %a_next = d2m.reserve %a_cb : !d2m.cb<!blk> -> !blk
      %x = d2m.wait %x_cb : !d2m.cb<!blk> -> !blk
      %w = d2m.reserve %t_cb : !d2m.cb<!blk, 1> -> !blk
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %x : !blk, !blk) outs(%w : !blk) {
      ^bb0(%at: !tile, %xt: !tile, %ot: !tile):
        %s = d2m.tile_add %at, %xt : !tile
        linalg.yield %s : !tile
      }
      d2m.push %t_cb : !d2m.cb<!blk, 1>
      %t = d2m.wait %t_cb : !d2m.cb<!blk, 1> -> !blk
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t, %x : !blk, !blk) outs(%o : !blk) {
      ^bb0(%tt: !tile, %xt2: !tile, %ot2: !tile):
        %e = d2m.tile_exp %tt : !tile
        linalg.yield %e : !tile
      }
      d2m.pop %x_cb : !d2m.cb<!blk>
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t : !blk) outs(%a_next : !blk) {
      ^bb0(%i: !tile, %n: !tile):
        linalg.yield %i : !tile
      }
      d2m.pop %t_cb : !d2m.cb<!blk, 1>
      d2m.push %a_cb : !d2m.cb<!blk>
      d2m.pop %a_cb : !d2m.cb<!blk>
    }
    %r = d2m.wait %a_cb : !d2m.cb<!blk> -> !blk
    d2m.pop %a_cb : !d2m.cb<!blk>
    d2m.push %o_cb : !d2m.cb<!blk>
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x4x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x4x!tile, #ttcore.memory_space<l1>>
!col = memref<2x1x!tile, #ttcore.memory_space<l1>>
!scaler = memref<1x1x!tile, #ttcore.memory_space<l1>>

// The writer is a row max into a fresh block (its accumulator the output tile, which
// starts at -inf), its result the init of a following loop's carried CB (%m_cb,
// reserved before the max) and also read right away. The max packs into both; the
// accumulator is still the first output's tile (-inf fill, no load from either block).
// CHECK-LABEL: func.func @row_max_init
// CHECK:      %[[M0:.*]] = d2m.reserve %m_cb
// CHECK:      %[[W:.*]] = d2m.reserve %t_cb
// CHECK-NEXT: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, 0)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%x, %s : {{.*}}) outs(%[[W]], %[[M0]] : {{.*}}) {
// CHECK-NEXT: ^bb0(%{{.*}}: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>, %[[ACC:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT:   %[[R:.*]] = d2m.tile_reduce_max <row> %{{.*}}, %{{.*}}, %[[ACC]]
// CHECK-NEXT:   linalg.yield %[[R]], %[[R]]
// CHECK-NOT:  linalg.generic {{.*}} outs(%[[M0]]
// CHECK:      d2m.push %m_cb
// LOOPS-LABEL: func.func @row_max_init
// LOOPS:      d2m.acquire_dst
// LOOPS:      d2m.tile_fill
// LOOPS:      d2m.tile_reduce_max
// LOOPS:      d2m.wait_dst
// LOOPS:      memref.store %{{.*}}, %[[W:.*]][%{{.*}}, %{{.*}}] : memref<2x1x
// LOOPS:      memref.store %{{.*}}, %[[M0:.*]][%{{.*}}, %{{.*}}] : memref<2x1x
// LOOPS:      d2m.release_dst
func.func @row_max_init(%xd: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%xd : !dram) outs(%out : !dram) {
  ^bb0(%x_cb: !d2m.cb<!blk>, %o_cb: !d2m.cb<!blk>):
    %m_cb = d2m.local_cb : !d2m.cb<!col>
    %t_cb = d2m.local_cb : !d2m.cb<!col, 1>
    %s_cb = d2m.local_cb : !d2m.cb<!scaler, 1>
    %s = d2m.wait %s_cb : !d2m.cb<!scaler, 1> -> !scaler
    %x = d2m.wait %x_cb : !d2m.cb<!blk> -> !blk
    %m0 = d2m.reserve %m_cb : !d2m.cb<!col> -> !col
    %w = d2m.reserve %t_cb : !d2m.cb<!col, 1> -> !col
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, 0)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%x, %s : !blk, !scaler) outs(%w : !col) {
    ^bb0(%xt: !tile, %st: !tile, %acc: !tile):
      %r = d2m.tile_reduce_max <row> %xt, %st, %acc : !tile
      linalg.yield %r : !tile
    }
    d2m.push %t_cb : !d2m.cb<!col, 1>
    %t = d2m.wait %t_cb : !d2m.cb<!col, 1> -> !col
    %o = d2m.reserve %o_cb : !d2m.cb<!blk> -> !blk
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %t : !blk, !col) outs(%o : !blk) {
    ^bb0(%xt2: !tile, %tt: !tile, %ot: !tile):
      %b = d2m.tile_bcast <col> %tt : !tile
      %d = d2m.tile_sub %xt2, %b : !tile
      linalg.yield %d : !tile
    }
    d2m.push %o_cb : !d2m.cb<!blk>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t : !col) outs(%m0 : !col) {
    ^bb0(%i: !tile, %n: !tile):
      linalg.yield %i : !tile
    }
    d2m.pop %t_cb : !d2m.cb<!col, 1>
    d2m.pop %x_cb : !d2m.cb<!blk>
    d2m.pop %s_cb : !d2m.cb<!scaler, 1>
    d2m.push %m_cb : !d2m.cb<!col>
    %m = d2m.wait %m_cb : !d2m.cb<!col> -> !col
    d2m.pop %m_cb : !d2m.cb<!col>
  }
  return
}
