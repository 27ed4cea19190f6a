// Compute-engine forms after DST allocation: FPU with dest reuse, DST-to-DST copies,
// transposed matmul B operands.
// RUN: %ttlang-opt %s --split-input-file -p d2m-tile-subblock,d2m-dst-allocate,d2m-lower-to-loops,convert-d2m-to-ttkernel,ttkernel-place-inits,canonicalize,cse | FileCheck %s

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<1x1x!tile, #ttcore.memory_space<dram>>
!blk = memref<1x1x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>
#id = affine_map<(d0, d1) -> (d0, d1)>

// exp(x) - y: the FPU subtracts y (from its CB) from the DST tile in place (dest
// reuse, DST as srcA); a copy of a DST tile that an in-place op would destroy is
// copy_dest_values<format>(from, to), source slot first.
// CHECK-LABEL: func.func @dest_reuse_compute()
// CHECK:      %[[X:.*]] = ttkernel.get_compile_time_arg_val(0)
// CHECK-NEXT: %[[Y:.*]] = ttkernel.get_compile_time_arg_val(1)
// CHECK:      ttkernel.copy_tile(%[[X]], %{{.*}}, %[[S0:.*]])
// CHECK:      ttkernel.exp_tile(%[[S0]])
// CHECK:      ttkernel.binary_dest_reuse_tiles_init<sub, srca> (%[[Y]])
// CHECK-NEXT: ttkernel.binary_dest_reuse_tiles<sub, srca> (%[[Y]], %{{.*}}, %[[S0]])
// CHECK-NOT:  binary_max_tile
// CHECK:      ttkernel.copy_dest_values_init()
// CHECK-NEXT: ttkernel.copy_dest_values <bf16>(%[[S0]], %[[S1:[^)]*]])
// CHECK:      ttkernel.recip_tile(%[[S1]])
// CHECK:      ttkernel.mul_binary_tile(%[[S0]], %[[S1]], %{{.*}})
func.func @dest_reuse(%x: !dram, %y: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%x, %y : !dram, !dram) outs(%out : !dram) {
  ^bb0(%x_cb: !cb, %y_cb: !cb, %out_cb: !cb):
    %a = d2m.wait %x_cb : !cb -> !blk
    %b = d2m.wait %y_cb : !cb -> !blk
    %o = d2m.reserve %out_cb : !cb -> !blk
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%a, %b : !blk, !blk) outs(%o : !blk) {
    ^bb0(%p: !tile, %q: !tile, %c: !tile):
      %e = d2m.tile_exp %p : !tile
      %d = d2m.tile_sub %e, %q : !tile
      %r = d2m.tile_recip %d : !tile
      %m = d2m.tile_mul %d, %r : !tile
      linalg.yield %m : !tile
    }
    d2m.push %out_cb : !cb
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<1x1x!tile, #ttcore.memory_space<dram>>
!blk = memref<1x1x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>

// q @ transpose(k): the transpose takes no DST slot; the matmul reads k's tile from
// its CB with the unpacker's transpose.
// CHECK-LABEL: func.func @transposed_b_compute()
// CHECK:      %[[Q:.*]] = ttkernel.get_compile_time_arg_val(0)
// CHECK-NEXT: %[[K:.*]] = ttkernel.get_compile_time_arg_val(1)
// CHECK:      %[[ONE:.*]] = arith.constant 1 : i32
// CHECK:      ttkernel.mm_init(%[[Q]], %[[K]], %{{.*}}, %[[ONE]])
// CHECK-NEXT: ttkernel.matmul_tiles(%[[Q]], %[[K]], %{{.*}}, %{{.*}}, %{{.*}}, %[[ONE]])
// CHECK-NOT:  transpose_wh
func.func @transposed_b(%q: !dram, %k: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%q, %k : !dram, !dram) outs(%out : !dram) {
  ^bb0(%q_cb: !cb, %k_cb: !cb, %out_cb: !cb):
    %a = d2m.wait %q_cb : !cb -> !blk
    %b = d2m.wait %k_cb : !cb -> !blk
    %o = d2m.reserve %out_cb : !cb -> !blk
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : !blk, !blk) outs(%o : !blk) {
    ^bb0(%p: !tile, %r: !tile, %acc: !tile):
      %rt = d2m.tile_transpose %r : !tile
      %m = d2m.tile_matmul %p, %rt, %acc : !tile, !tile
      linalg.yield %m : !tile
    }
    d2m.push %out_cb : !cb
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<1x1x!tile, #ttcore.memory_space<dram>>
!blk = memref<1x1x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>
#id = affine_map<(d0, d1) -> (d0, d1)>

// FlashAttention's exp(s - bcast(m_new)) then exp(m - m_new) on column vectors: the
// second sub (engine fpu_bcast_col) is sub_tiles_bcast<col> too, so its init equals
// the first one's (same op, same tile types) and ttkernel-place-inits drops it; the
// exp_tile_init holds as well.
// CHECK-LABEL: func.func @column_vectors_compute()
// CHECK:      %[[S:.*]] = ttkernel.get_compile_time_arg_val(0)
// CHECK-NEXT: %[[M:.*]] = ttkernel.get_compile_time_arg_val(1)
// CHECK-NEXT: %[[N:.*]] = ttkernel.get_compile_time_arg_val(2)
// CHECK:      ttkernel.init_bcast<sub, col> (%[[S]], %[[N]], %{{.*}})
// CHECK-NEXT: ttkernel.sub_tiles_bcast<col> (%[[S]], %[[N]]
// CHECK-NEXT: ttkernel.exp_tile_init()
// CHECK-NEXT: ttkernel.exp_tile(
// CHECK-NOT:  _init
// CHECK:      ttkernel.sub_tiles_bcast<col> (%[[M]], %[[N]]
// CHECK-NEXT: ttkernel.exp_tile(
// CHECK-NOT:  ttkernel.sub_tiles(
func.func @column_vectors(%s: !dram, %m: !dram, %n: !dram, %out: !dram, %alpha: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%s, %m, %n : !dram, !dram, !dram) outs(%out, %alpha : !dram, !dram) {
  ^bb0(%s_cb: !cb, %m_cb: !cb, %n_cb: !cb, %out_cb: !cb, %alpha_cb: !cb):
    %a = d2m.wait %s_cb : !cb -> !blk
    %b = d2m.wait %m_cb : !cb -> !blk
    %c = d2m.wait %n_cb : !cb -> !blk
    %o = d2m.reserve %out_cb : !cb -> !blk
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%a, %c : !blk, !blk) outs(%o : !blk) {
    ^bb0(%p: !tile, %q: !tile, %acc: !tile):
      %qb = d2m.tile_bcast <col> %q : !tile
      %d = d2m.tile_sub %p, %qb : !tile
      %e = d2m.tile_exp %d : !tile
      linalg.yield %e : !tile
    }
    d2m.push %out_cb : !cb
    %o2 = d2m.reserve %alpha_cb : !cb -> !blk
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%b, %c : !blk, !blk) outs(%o2 : !blk) {
    ^bb0(%p: !tile, %q: !tile, %acc: !tile):
      %d = d2m.tile_sub %p, %q {d2m.column_vectors} : !tile
      %e = d2m.tile_exp %d : !tile
      linalg.yield %e : !tile
    }
    d2m.push %alpha_cb : !cb
  }
  return
}
