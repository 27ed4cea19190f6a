// Every error convert-d2m-to-ttkernel raises.
// RUN: %ttlang-opt %s -p convert-d2m-to-ttkernel --split-input-file --verify-diagnostics

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>
func.func @iteration_index(%in: !dram) {
  d2m.generic {grid = #ttcore.grid<1x2>, block_factors = [1, 1], threads = [#d2m.thread<datamovement>]} ins(%in : !dram) outs() {
  ^bb0(%cb: !cb):
    // expected-error @+1 {{has no kernel-API form in a reader kernel.}}
    %i = d2m.iter_index(0)
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>
func.func @multicast_non_cb_block(%in: !dram, %other: !blk) {
  d2m.generic {grid = #ttcore.grid<1x2>, block_factors = [1, 1], threads = [#d2m.thread<datamovement>]} ins(%in : !dram) outs() {
  ^bb0(%cb: !cb):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %blk = d2m.reserve %cb : !cb -> !blk
    // expected-error @+1 {{multicasts a block that does not come from d2m.wait or d2m.reserve.}}
    %tx = d2m.dma_mcast %blk, %other core[%c0, %c0] mcast[%c1, %c1] : !blk, !blk -> !d2m.mem_tx
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>
func.func @not_a_kernel_argument(%in: !dram) {
  %other = memref.alloc() : !dram
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<datamovement>]} ins(%other : !dram) outs() {
  ^bb0(%cb: !cb):
    %c0 = arith.constant 0 : index
    %blk = d2m.reserve %cb : !cb -> !blk
    // expected-error @+1 {{moves data to or from a memref that is not a kernel argument.}}
    %tx = d2m.dma_read %other[%c0, %c0], %blk : !dram, !blk -> !d2m.mem_tx
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>
func.func @block_not_from_cb(%in: !dram, %blk: !blk) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<datamovement>]} ins(%in : !dram) outs() {
  ^bb0(%cb: !cb):
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{moves a block that does not come from d2m.wait or d2m.reserve.}}
    %tx = d2m.dma_read %in[%c0, %c0], %blk : !dram, !blk -> !d2m.mem_tx
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<2x2x!tile, #ttcore.memory_space<l1>>>
func.func @loop_carried_index(%in: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<datamovement>]} ins(%in : !dram) outs() {
  ^bb0(%cb: !cb):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{carries values across iterations; kernels take loops without them.}}
    %n = scf.for %k = %c0 to %c1 step %c1 iter_args(%i = %c0) -> (index) {
      scf.yield %i : index
    }
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<2x2x!tile, #ttcore.memory_space<l1>>>
func.func @load_from_dram(%in: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs() {
  ^bb0(%cb: !cb):
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{reads a tile from a memref that is neither DST nor a CB block.}}
    %t = memref.load %in[%c0, %c0] : !dram
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>
func.func @store_without_dst(%in: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %c0 = arith.constant 0 : index
    %x = d2m.wait %in_cb : !cb -> !blk
    %o = d2m.reserve %out_cb : !cb -> !blk
    %t = memref.load %x[%c0, %c0] : !blk
    // expected-error @+1 {{stores a tile that is not packed from DST into a CB block.}}
    memref.store %t, %o[%c0, %c0] : !blk
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>
func.func @sfpu_operand_in_cb(%in: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs() {
  ^bb0(%in_cb: !cb):
    %c0 = arith.constant 0 : index
    %x = d2m.wait %in_cb : !cb -> !blk
    %dst = d2m.acquire_dst : memref<8x!tile, #ttcore.memory_space<dst>>
    %t = memref.load %x[%c0, %c0] : !blk
    // expected-error @+1 {{needs its operand in DST; run d2m-lower-to-loops first.}}
    %e = d2m.tile_exp %t {engine = #d2m.engine<sfpu>} : !tile
    memref.store %e, %dst[%c0] : memref<8x!tile, #ttcore.memory_space<dst>>
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>
func.func @no_engine(%in: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs() {
  ^bb0(%in_cb: !cb):
    %c0 = arith.constant 0 : index
    %x = d2m.wait %in_cb : !cb -> !blk
    %dst = d2m.acquire_dst : memref<8x!tile, #ttcore.memory_space<dst>>
    %t = memref.load %x[%c0, %c0] : !blk
    memref.store %t, %dst[%c0] : memref<8x!tile, #ttcore.memory_space<dst>>
    %d = memref.load %dst[%c0] : memref<8x!tile, #ttcore.memory_space<dst>>
    // expected-error @+1 {{has no engine; run d2m-dst-allocate first.}}
    %e = d2m.tile_exp %d : !tile
    memref.store %e, %dst[%c0] : memref<8x!tile, #ttcore.memory_space<dst>>
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<2x2x!tile, #ttcore.memory_space<l1>>>
func.func @two_generics(%in: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs() {
  ^bb0(%cb: !cb):
  }
  // expected-error @+1 {{is a second d2m.generic in one kernel function; a kernel launches one.}}
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs() {
  ^bb0(%cb: !cb):
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<2x2x!tile, #ttcore.memory_space<l1>>>
func.func @first(%in: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs() {
  ^bb0(%cb: !cb):
  }
  return
}
// expected-error @+1 {{is a second kernel in the module; a program holds one.}}
func.func @second(%in: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs() {
  ^bb0(%cb: !cb):
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<2x2x!tile, #ttcore.memory_space<l1>>>
func.func @branch_with_results(%in: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<datamovement>]} ins(%in : !dram) outs() {
  ^bb0(%cb: !cb):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t = arith.cmpi eq, %c0, %c1 : index
    // expected-error @+1 {{yields values; kernels take branches without them.}}
    %v = scf.if %t -> (index) {
      scf.yield %c0 : index
    } else {
      scf.yield %c1 : index
    }
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>
func.func @engine_disagrees_with_operands(%a: !dram, %b: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%a, %b : !dram, !dram) outs() {
  ^bb0(%a_cb: !cb, %b_cb: !cb):
    %c0 = arith.constant 0 : index
    %x = d2m.wait %a_cb : !cb -> !blk
    %y = d2m.wait %b_cb : !cb -> !blk
    %dst = d2m.acquire_dst : memref<8x!tile, #ttcore.memory_space<dst>>
    %s = memref.load %x[%c0, %c0] : !blk
    %t = memref.load %y[%c0, %c0] : !blk
    // expected-error @+1 {{needs its operand in DST; run d2m-lower-to-loops first.}}
    %r = d2m.tile_add %s, %t {engine = #d2m.engine<dest_to_srca>} : !tile
    memref.store %r, %dst[%c0] : memref<8x!tile, #ttcore.memory_space<dst>>
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>
func.func @causal_mask_into_waited_block(%in: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<datamovement>]} ins(%in : !dram) outs() {
  ^bb0(%cb: !cb):
    %c0 = arith.constant 0 : index
    %blk = d2m.wait %cb : !cb -> !blk
    // expected-error @+1 {{fills a block that does not come from d2m.reserve.}}
    d2m.fill_causal_mask %blk, %c0, %c0 : !blk
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x3x!tile, #ttcore.memory_space<dram>>
!blk = memref<1x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>
func.func @constant_block_past_the_row(%src: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<datamovement>]} ins(%src : !dram) outs() {
  ^bb0(%cb: !cb):
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %blk = d2m.reserve %cb : !cb -> !blk
    // expected-error @+1 {{moves a block of 2 tiles at tile 2 of dim 1, outside `src` (3 tiles).}}
    %tx = d2m.dma_read %src[%c0, %c2], %blk : !dram, !blk -> !d2m.mem_tx
  }
  return
}
