// Every d2m verifier error, each in its own chunk.
// RUN: %ttlang-opt %s --split-input-file --verify-diagnostics

!tile = !ttcore.tile<32x32, bf16>
// expected-error @+1 {{a circular buffer holds blocks in L1, but its block type is memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>.}}
func.func private @dram_cb(!d2m.cb<memref<2x2x!tile, #ttcore.memory_space<dram>>>)

// -----

!tile = !ttcore.tile<32x32, bf16>
// expected-error @+1 {{a circular buffer needs at least one block, but this one has 0.}}
func.func private @empty_cb(!d2m.cb<memref<2x2x!tile, #ttcore.memory_space<l1>>, 0>)

// -----

!dram = memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
func.func @region_per_thread(%in: !dram) {
  // expected-error @+1 {{'d2m.generic' op has 1 regions but 2 threads; each thread needs exactly one region.}}
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>, #d2m.thread<datamovement>]} ins(%in : !dram) outs() {
  ^bb0(%cb: !cb):
  }
  return
}

// -----

!dram = memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
func.func @two_compute_threads(%in: !dram) {
  // expected-error @+1 {{has 2 compute threads, but a core runs at most 1.}}
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>, #d2m.thread<compute>]} ins(%in : !dram) outs() {
  ^bb0(%cb: !cb):
  }, {
  ^bb0(%cb: !cb):
  }
  return
}

// -----

!dram = memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
func.func @zero_block_factor(%in: !dram) {
  // expected-error @+1 {{block factors must be positive, but got [0, 1].}}
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [0, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs() {
  ^bb0(%cb: !cb):
  }
  return
}

// -----

!dram = memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
func.func @iterators_without_maps(%in: !dram) {
  // expected-error @+1 {{iterator_types needs indexing_maps beside it.}}
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>], iterator_types = [#ttcore.iterator_type<parallel>, #ttcore.iterator_type<parallel>]} ins(%in : !dram) outs() {
  ^bb0(%cb: !cb):
  }
  return
}

// -----

!dram = memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
func.func @bound_uses_an_inner_dim(%in: !dram) {
  // expected-error @+1 {{loop bound 0 ((d0, d1) -> ((d1 + 1))) may use only the loop dimensions outside d0, but uses d1.}}
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>], indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], loop_bounds = [affine_map<(d0, d1) -> (d1 + 1)>, affine_map<(d0, d1) -> ()>]} ins(%in : !dram) outs() {
  ^bb0(%cb: !cb):
  }
  return
}

// -----

!dram = memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
func.func @unknown_deal(%in: !dram) {
  // expected-error @+1 {{deal must be one of ['contiguous', 'serpentine'], but is 'zigzag'.}}
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>], indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], deal = "zigzag"} ins(%in : !dram) outs() {
  ^bb0(%cb: !cb):
  }
  return
}

// -----

!dram = memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
func.func @map_per_operand(%in: !dram, %out: !dram) {
  // expected-error @+1 {{has 2 operands but 1 indexing maps; it needs one map per operand.}}
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>], indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%cb: !cb, %out_cb: !cb):
  }
  return
}

// -----

!dram = memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
func.func @maps_of_different_loops(%in: !dram, %out: !dram) {
  // expected-error @+1 {{all indexing maps must have the same number of dimensions, but they have [2, 3].}}
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>], indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%cb: !cb, %out_cb: !cb):
  }
  return
}

// -----

!dram = memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
func.func @map_rank(%in: !dram) {
  // expected-error @+1 {{indexing map 0 has 1 results, but operand 0 has rank 2.}}
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>], indexing_maps = [affine_map<(d0, d1) -> (d0)>]} ins(%in : !dram) outs() {
  ^bb0(%cb: !cb):
  }
  return
}

// -----

!dram = memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
func.func @factor_per_loop(%in: !dram) {
  // expected-error @+1 {{has 1 block factors but 2 loop dimensions; it needs one factor per dimension.}}
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1], threads = [#d2m.thread<compute>], indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>]} ins(%in : !dram) outs() {
  ^bb0(%cb: !cb):
  }
  return
}

// -----

!dram = memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
func.func @iterator_per_loop(%in: !dram) {
  // expected-error @+1 {{has 1 iterator types but 2 loop dimensions; it needs one per dimension.}}
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>], indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = [#ttcore.iterator_type<parallel>]} ins(%in : !dram) outs() {
  ^bb0(%cb: !cb):
  }
  return
}

// -----

!dram = memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
func.func @cb_per_operand(%in: !dram, %out: !dram) {
  // expected-error @+1 {{region 0 has 1 block arguments, but the generic has 2 operands; each thread needs one CB per operand.}}
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%cb: !cb):
  }
  return
}

// -----

!dram = memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>
func.func @argument_not_a_cb(%in: !dram) {
  // expected-error @+1 {{block argument 0 of region 0 must be a !d2m.cb for operand 0, but it is index.}}
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs() {
  ^bb0(%i: index):
  }
  return
}

// -----

!dram = memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<2x2x!ttcore.tile<32x32, f32>, #ttcore.memory_space<l1>>>
func.func @cb_element_type(%in: !dram) {
  // expected-error @+1 {{the CB of operand 0 in region 0 holds !ttcore.tile<32x32, f32>, but the operand holds !ttcore.tile<32x32, bf16>.}}
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs() {
  ^bb0(%cb: !cb):
  }
  return
}

// -----

!dram = memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<4x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
func.func @cb_rank(%in: !dram) {
  // expected-error @+1 {{the CB of operand 0 in region 0 has blocks of rank 1, but the operand has rank 2.}}
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs() {
  ^bb0(%cb: !cb):
  }
  return
}

// -----

!dram = memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
func.func @extra_argument(%in: !dram) {
  // expected-error @+1 {{block argument 1 of region 0 comes after the CBs, so it must be a !d2m.semaphore, but it is index.}}
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<datamovement>]} ins(%in : !dram) outs() {
  ^bb0(%cb: !cb, %i: index):
  }
  return
}

// -----

// Kernel-local CBs (CB arguments after the operands') come before the semaphores.
!dram = memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
func.func @kernel_local_cb_after_a_semaphore(%in: !dram) {
  // expected-error @+1 {{block argument 3 of region 0 comes after the CBs, so it must be a !d2m.semaphore, but it is !d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>.}}
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<datamovement>]} ins(%in : !dram) outs() {
  ^bb0(%cb: !cb, %local: !cb, %sem: !d2m.semaphore, %late: !cb):
  }
  return
}

// -----

// Every thread sees the same kernel-local CBs.
!dram = memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
func.func @kernel_local_cbs_differ(%in: !dram) {
  // expected-error @+1 {{region 1 has 0 kernel-local CBs and region 0 1, or their types differ; every thread sees the same kernel-local CBs.}}
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<datamovement>, #d2m.thread<datamovement>]} ins(%in : !dram) outs() {
  ^bb0(%cb: !cb, %local: !cb):
  }, {
  ^bb0(%cb_1: !cb):
  }
  return
}

// -----

!cb = !d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
func.func @wait_memref(%cb: !cb) {
  // expected-error @+1 {{'d2m.wait' op returns the CB's block, memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>, but the result type is memref<1x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>.}}
  %blk = d2m.wait %cb : !cb -> memref<1x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
  return
}

// -----

// Compute sees a bfp8_b block as the unpacker hands it over: bf16 tiles.
!cb = !d2m.cb<memref<2x2x!ttcore.tile<32x32, bfp8_b>, #ttcore.memory_space<l1>>>
func.func @wait_bfp8_as_bfp8(%cb: !cb) {
  // expected-error @+1 {{'d2m.wait' op returns a tensor of the CB's block shape and element type (memref<2x2x!ttcore.tile<32x32, bfp8_b>, #ttcore.memory_space<l1>>, !ttcore.tile<32x32, bf16> tiles as compute sees them), but the result type is tensor<2x2x!ttcore.tile<32x32, bfp8_b>>.}}
  %blk = d2m.wait %cb : !cb -> tensor<2x2x!ttcore.tile<32x32, bfp8_b>>
  return
}

// -----

!cb = !d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
func.func @reserve_tensor(%cb: !cb) {
  // expected-error @+1 {{'d2m.reserve' op returns a tensor of the CB's block shape and element type}}
  %blk = d2m.reserve %cb : !cb -> tensor<2x2x!ttcore.tile<32x32, f32>>
  return
}

// -----

func.func @store_shape(%dst: tensor<2x2x!ttcore.tile<32x32, bf16>>, %value: tensor<2x1x!ttcore.tile<32x32, bf16>>) {
  // expected-error @+1 {{'d2m.store' op needs a value of the destination's shape and element type, but stores tensor<2x1x!ttcore.tile<32x32, bf16>> into tensor<2x2x!ttcore.tile<32x32, bf16>>.}}
  d2m.store %dst, %value : tensor<2x2x!ttcore.tile<32x32, bf16>>, tensor<2x1x!ttcore.tile<32x32, bf16>>
  return
}

// -----

func.func @tile_types_disagree(%a: !ttcore.tile<32x32, bf16>, %b: !ttcore.tile<32x32, f32>) {
  // expected-error @+1 {{all tiles of this op must have the same type, but got !ttcore.tile<32x32, bf16> and !ttcore.tile<32x32, f32>.}}
  %x = "d2m.tile_mul"(%a, %b) : (!ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, f32>) -> !ttcore.tile<32x32, bf16>
  return
}

// -----

func.func @matmul_acc(%a: !ttcore.tile<32x32, bf16>, %acc: !ttcore.tile<32x32, f32>) {
  // expected-error @+1 {{all tiles of this op must have the same type, but got !ttcore.tile<32x32, f32> and !ttcore.tile<32x32, bf16>.}}
  %x = "d2m.tile_matmul"(%a, %a, %acc) : (!ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, f32>) -> !ttcore.tile<32x32, bf16>
  return
}

// -----

func.func @dst_in_l1() {
  // expected-error @+1 {{'d2m.acquire_dst' op returns a memref in #ttcore.memory_space<dst>, but got memref<8x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>.}}
  %dst = d2m.acquire_dst : memref<8x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
  return
}

// -----

func.func @commit_l1(%l1: memref<8x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>) {
  // expected-error @+1 {{'d2m.commit_dst' op takes a memref in #ttcore.memory_space<dst>, but got memref<8x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>.}}
  d2m.commit_dst %l1 : memref<8x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
  return
}

// -----

!dram = memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>
func.func @dma_into_dram(%src: !dram, %dst: !dram, %i: index) {
  // expected-error @+1 {{'d2m.dma_read' op needs an L1 block on its L1 side}}
  %tx = d2m.dma_read %src[%i, %i], %dst : !dram, !dram -> !d2m.mem_tx
  return
}

// -----

!dram = memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>
!l1 = memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
func.func @dma_index_count(%src: !l1, %dst: !dram, %i: index) {
  // expected-error @+1 {{'d2m.dma_write' op indexes a rank-2 memref with 1 tile indices; it needs one index per dimension.}}
  %tx = d2m.dma_write %src, %dst[%i] : !l1, !dram -> !d2m.mem_tx
  return
}

// -----

!dram = memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>
!l1 = memref<4x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
func.func @dma_rank(%src: !dram, %dst: !l1, %i: index) {
  // expected-error @+1 {{moves a rank-1 block to or from a rank-2 memref; the ranks must match.}}
  %tx = d2m.dma_read %src[%i, %i], %dst : !dram, !l1 -> !d2m.mem_tx
  return
}

// -----

!dram = memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>
!l1 = memref<2x2x!ttcore.tile<32x32, f32>, #ttcore.memory_space<l1>>
func.func @dma_element_type(%src: !dram, %dst: !l1, %i: index) {
  // expected-error @+1 {{moves !ttcore.tile<32x32, f32> tiles to or from a memref of !ttcore.tile<32x32, bf16>; the element types must match.}}
  %tx = d2m.dma_read %src[%i, %i], %dst : !dram, !l1 -> !d2m.mem_tx
  return
}

// -----

!dram = memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>
func.func @mcast_from_dram(%blk: !dram, %i: index) {
  // expected-error @+1 {{'d2m.dma_mcast' op copies between L1 blocks, but got memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>.}}
  %tx = d2m.dma_mcast %blk, %blk core[%i, %i] mcast[%i, %i] : !dram, !dram -> !d2m.mem_tx
  return
}

// -----

!l1 = memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
!l1_small = memref<1x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
func.func @mcast_types(%src: !l1, %dst: !l1_small, %i: index) {
  // expected-error @+1 {{copies a block to a block of the same type}}
  %tx = d2m.dma_mcast %src, %dst core[%i, %i] mcast[%i, %i] : !l1, !l1_small -> !d2m.mem_tx
  return
}

// -----

!dram = memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>
!l1 = memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
func.func @dma_rows_outside(%src: !dram, %dst: !l1, %i: index) {
  // expected-error @+1 {{'d2m.dma_read' op moves tile rows 1 to 3 of a block with 2 tile rows; they need 0 <= start < stop <= 2.}}
  %tx = d2m.dma_read %src[%i, %i], %dst rows(1, 3) : !dram, !l1 -> !d2m.mem_tx
  return
}

// -----

!l1 = memref<2x2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
func.func @mcast_rows_not_one_run(%blk: !l1, %i: index) {
  // expected-error @+1 {{'d2m.dma_mcast' op moves tile rows of memref<2x2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>; they are one run of tiles only in a block of rank >= 2 whose dims before its rows are 1.}}
  %tx = d2m.dma_mcast %blk, %blk core[%i, %i] mcast[%i, %i] rows(0, 1) : !l1, !l1 -> !d2m.mem_tx
  return
}

// -----

!l1 = memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
func.func @mcast_core(%blk: !l1, %i: index) {
  // expected-error @+1 {{needs a core coordinate of two indices (row, column), but got 1.}}
  %tx = d2m.dma_mcast %blk, %blk core[%i] mcast[%i, %i] : !l1, !l1 -> !d2m.mem_tx
  return
}

// -----

!l1 = memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
func.func @mcast_shape(%blk: !l1, %i: index) {
  // expected-error @+1 {{needs a multicast shape of two indices (rows, columns), but got 3.}}
  %tx = d2m.dma_mcast %blk, %blk core[%i, %i] mcast[%i, %i, %i] : !l1, !l1 -> !d2m.mem_tx
  return
}

// -----

func.func @semaphore_mcast_without_core(%sem: !d2m.semaphore, %i: index) {
  // expected-error @+1 {{'d2m.semaphore_set' op needs the rectangle's first core beside its multicast shape.}}
  d2m.semaphore_set %sem, %i mcast[%i, %i]
  return
}

// -----

func.func @semaphore_inc_core(%sem: !d2m.semaphore, %i: index) {
  // expected-error @+1 {{'d2m.semaphore_inc' op needs a core coordinate of two indices (row, column), but got 3.}}
  d2m.semaphore_inc %sem, %i core[%i, %i, %i]
  return
}

// -----

func.func @grid_dim() {
  // expected-error @+1 {{'d2m.core_index' op takes a grid dimension, 0 (rows) or 1 (columns), but got 2.}}
  %x = d2m.core_index(2)
  // expected-error @+1 {{'d2m.grid_size' op takes a grid dimension, 0 (rows) or 1 (columns), but got -1.}}
  %y = d2m.grid_size(-1)
  return
}

// -----

func.func @loop_dim() {
  // expected-error @+1 {{'d2m.iter_index' op takes a loop dimension >= 0, but got -1.}}
  %x = d2m.iter_index(-1)
  return
}

// -----

func.func @spill_nothing(%cb: !d2m.cb<memref<1x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>, 1>) {
  // expected-error @+1 {{'d2m.dst_spill' op spills no value; it needs at least one.}}
  "d2m.dst_spill"(%cb) {operandSegmentSizes = array<i32: 1, 0>} : (!d2m.cb<memref<1x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>, 1>) -> ()
  return
}

// -----

func.func @accumulate_f32_onto_bf16(%a: !ttcore.tile<32x32, f32>, %acc: !ttcore.tile<32x32, bf16>) {
  // expected-error @+1 {{all tiles of this op must have the same type, but got !ttcore.tile<32x32, f32> and !ttcore.tile<32x32, bf16>.}}
  %x = "d2m.tile_accumulate"(%a, %acc) : (!ttcore.tile<32x32, f32>, !ttcore.tile<32x32, bf16>) -> !ttcore.tile<32x32, bf16>
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
func.func @sfpu_accumulate(%a: !tile, %b: !tile) {
  // expected-error @+1 {{'d2m.tile_accumulate' op cannot run on the sfpu engine; it runs on: fpu.}}
  %m = d2m.tile_accumulate %a, %b {engine = #d2m.engine<sfpu>} : !tile
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
func.func @sfpu_matmul(%a: !tile, %b: !tile) {
  // expected-error @+1 {{'d2m.tile_matmul' op cannot run on the sfpu engine; it runs on: fpu.}}
  %m = d2m.tile_matmul %a, %b, %a {engine = #d2m.engine<sfpu>} : !tile, !tile
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
func.func @dest_reuse_div(%a: !tile, %b: !tile) {
  // expected-error @+1 {{'d2m.tile_div' op cannot run on the dest_to_srca engine; it runs on: sfpu.}}
  %d = d2m.tile_div %a, %b {engine = #d2m.engine<dest_to_srca>} : !tile
  return
}

// -----

// The column-broadcast FPU form is for add/sub/mul only (div runs on the SFPU).
!tile = !ttcore.tile<32x32, bf16>
func.func @bcast_col_div(%a: !tile, %b: !tile) {
  // expected-error @+1 {{'d2m.tile_div' op cannot run on the fpu_bcast_col engine; it runs on: sfpu.}}
  %d = d2m.tile_div %a, %b {engine = #d2m.engine<fpu_bcast_col>} : !tile
  return
}

// -----

!blk = memref<2x2x!ttcore.tile<32x32, f32>, #ttcore.memory_space<l1>>
func.func @f32_causal_mask(%blk: !blk, %row: index, %col: index) {
  // expected-error @+1 {{'d2m.fill_causal_mask' op writes bf16 tiles, but the block holds !ttcore.tile<32x32, f32>.}}
  d2m.fill_causal_mask %blk, %row, %col : !blk
  return
}

// -----

!blk = memref<2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
func.func @rank1_causal_mask(%blk: !blk, %row: index, %col: index) {
  // expected-error @+1 {{'d2m.fill_causal_mask' op fills a block of rank >= 2 (rows x columns of tiles), but got memref<2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>.}}
  d2m.fill_causal_mask %blk, %row, %col : !blk
  return
}

// -----

!blk = memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>
func.func @dram_causal_mask(%blk: !blk, %row: index, %col: index) {
  // expected-error @+1 {{'d2m.fill_causal_mask' op fills an L1 block, but got memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>.}}
  d2m.fill_causal_mask %blk, %row, %col : !blk
  return
}

// -----

!dram = memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
func.func @pack_l1_acc_in_datamovement(%in: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<datamovement>]} ins(%in : !dram) outs() {
  ^bb0(%cb: !cb):
    %on = arith.constant true
    // expected-error @+1 {{'d2m.pack_l1_acc' op configures the packer, which only a compute thread has; it must be in a d2m.generic's compute region.}}
    d2m.pack_l1_acc %on
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!cb = !d2m.cb<memref<1x8x2x!tile, #ttcore.memory_space<l1>>>
func.func @view_rows_outside(%cb: !cb) {
  %k = d2m.wait %cb : !cb -> tensor<1x8x2x!tile>
  // expected-error @+1 {{views tile rows 6 to 10 of a block with 8 tile rows; they need 0 <= start < stop <= 8.}}
  %v = d2m.block_view %k rows(6, 10) : tensor<1x8x2x!tile> -> tensor<1x4x2x!tile>
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!cb = !d2m.cb<memref<1x8x2x!tile, #ttcore.memory_space<l1>>>
func.func @view_empty(%cb: !cb) {
  %k = d2m.wait %cb : !cb -> tensor<1x8x2x!tile>
  // expected-error @+1 {{views tile rows 3 to 3 of a block with 8 tile rows}}
  %v = d2m.block_view %k rows(3, 3) : tensor<1x8x2x!tile> -> tensor<1x0x2x!tile>
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!cb = !d2m.cb<memref<1x8x2x!tile, #ttcore.memory_space<l1>>>
func.func @view_wrong_shape(%cb: !cb) {
  %k = d2m.wait %cb : !cb -> tensor<1x8x2x!tile>
  // expected-error @+1 {{views 4 tile rows of tensor<1x8x2x!ttcore.tile<32x32, bf16>>, so its result has shape 1x4x2, but it is tensor<1x4x1x!ttcore.tile<32x32, bf16>>.}}
  %v = d2m.block_view %k rows(0, 4) : tensor<1x8x2x!tile> -> tensor<1x4x1x!tile>
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!cb = !d2m.cb<memref<1x8x2x!tile, #ttcore.memory_space<l1>>>
func.func @view_tensor_as_memref(%cb: !cb) {
  %k = d2m.wait %cb : !cb -> tensor<1x8x2x!tile>
  // expected-error @+1 {{views a block as a block of the same kind and tiles}}
  %v = d2m.block_view %k rows(0, 4) : tensor<1x8x2x!tile> -> memref<1x4x2x!tile, #ttcore.memory_space<l1>>
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!cb = !d2m.cb<memref<1x8x2x!tile, #ttcore.memory_space<l1>>>
func.func @view_of_reserved(%cb: !cb) {
  %k = d2m.reserve %cb : !cb -> tensor<1x8x2x!tile>
  // expected-error @+1 {{views a block taken with d2m.wait (a CB's front), but its source is not one.}}
  %v = d2m.block_view %k rows(0, 4) : tensor<1x8x2x!tile> -> tensor<1x4x2x!tile>
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<1x8x2x!tile, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<1x8x2x!tile, #ttcore.memory_space<l1>>>
!l1 = memref<1x8x2x!tile, #ttcore.memory_space<l1>>
func.func @view_in_data_movement(%k: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1, 1], threads = [#d2m.thread<datamovement>]} ins(%k : !dram) outs() {
  ^bb0(%k_cb: !cb):
    %b = d2m.wait %k_cb : !cb -> !l1
    // expected-error @+1 {{is a compute thread's view; data movement moves whole blocks.}}
    %v = d2m.block_view %b rows(0, 4) : !l1 -> memref<1x4x2x!tile, #ttcore.memory_space<l1>>
    d2m.pop %k_cb : !cb
  }
  return
}

// -----

func.func @tril_mask_two_rows() {
  // expected-error @+1 {{'d2m.tril_mask' op is one row of tiles (1 x N), but got tensor<2x3x!ttcore.tile<32x32, bf16>>.}}
  %band = d2m.tril_mask {row = 32 : i64} : tensor<2x3x!ttcore.tile<32x32, bf16>>
  return
}

// -----

func.func @f32_tril_mask() {
  // expected-error @+1 {{'d2m.tril_mask' op holds bf16 tiles, but got !ttcore.tile<32x32, f32>.}}
  %band = d2m.tril_mask {row = 32 : i64} : tensor<1x3x!ttcore.tile<32x32, f32>>
  return
}
