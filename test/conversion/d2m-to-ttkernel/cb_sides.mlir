// Tile loads and stores go through the memref provenance analysis: the unpacker reads a
// CB's front (d2m.wait), the packer writes its back (d2m.reserve); anything else is an
// error, never a silent read of the wrong block.
// RUN: %ttlang-opt %s -p convert-d2m-to-ttkernel --split-input-file --verify-diagnostics

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!l1 = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
func.func @load_from_reserved(%in: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs() {
  ^bb0(%cb: !cb):
    %c0 = arith.constant 0 : index
    %blk = d2m.reserve %cb : !cb -> !l1
    // expected-error @+1 {{reads a tile of a block taken with d2m.reserve; the unpacker reads only a CB's front (a block taken with d2m.wait).}}
    %t = memref.load %blk[%c0, %c0] : !l1
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!l1 = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
func.func @pack_into_waited(%in: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs() {
  ^bb0(%cb: !cb):
    %c0 = arith.constant 0 : index
    %blk = d2m.wait %cb : !cb -> !l1
    %dst = d2m.acquire_dst : memref<8x!tile, #ttcore.memory_space<dst>>
    %t = memref.load %dst[%c0] : memref<8x!tile, #ttcore.memory_space<dst>>
    // expected-error @+1 {{packs a tile into a block taken with d2m.wait; the packer writes only a CB's back (a block taken with d2m.reserve).}}
    memref.store %t, %blk[%c0, %c0] : !l1
  }
  return
}
