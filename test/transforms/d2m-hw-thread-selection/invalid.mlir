// RUN: %ttlang-opt %s -p d2m-hw-thread-selection --split-input-file --verify-diagnostics

!tile = !ttcore.tile<32x32, bf16>
!l1 = memref<1x1x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
!dram = memref<1x1x!tile, #ttcore.memory_space<dram>>
func.func @reads_and_writes(%in: !dram, %out: !dram) {
  // expected-error @+1 {{has 3 data-movement threads, but a core runs at most 2, and thread 2 both reads and writes (or waits on semaphores while writing), so it cannot be merged into another; move fewer operands by hand (implicit operands get generated movement) or merge the threads yourself}}
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<datamovement>, #d2m.thread<datamovement>, #d2m.thread<datamovement>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%i: !cb, %o: !cb):
    %b = d2m.reserve %i : !cb -> !l1
  }, {
  ^bb0(%i: !cb, %o: !cb):
    %b = d2m.wait %o : !cb -> !l1
  }, {
  ^bb0(%i: !cb, %o: !cb):
    %c0 = arith.constant 0 : index
    %b = d2m.reserve %i : !cb -> !l1
    %rx = d2m.dma_read %in[%c0, %c0], %b : !dram, !l1 -> !d2m.mem_tx
    %w = d2m.wait %o : !cb -> !l1
    %tx = d2m.dma_write %w, %out[%c0, %c0] : !l1, !dram -> !d2m.mem_tx
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!l1 = memref<1x1x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
!dram = memref<1x1x!tile, #ttcore.memory_space<dram>>
func.func @bound_not_constant(%out: !dram, %n: index) {
  // expected-error @+1 {{has more data-movement threads than a core runs, and the one to merge loops over a bound that is not a constant, so its CBs cannot be sized to hold all their blocks; make a data-movement thread's body `pass`}}
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<datamovement>, #d2m.thread<datamovement>, #d2m.thread<datamovement>]} ins() outs(%out : !dram) {
  ^bb0(%o: !cb):
    %b = d2m.wait %o : !cb -> !l1
  }, {
  ^bb0(%o: !cb):
    %b = d2m.wait %o : !cb -> !l1
  }, {
  ^bb0(%o: !cb):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %k = %c0 to %n step %c1 {
      %w = d2m.wait %o : !cb -> !l1
      %tx = d2m.dma_write %w, %out[%c0, %c0] : !l1, !dram -> !d2m.mem_tx
    }
  }
  return
}
