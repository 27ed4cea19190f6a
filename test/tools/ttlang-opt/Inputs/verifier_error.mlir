// A d2m.reserve with the wrong result shape, at line 10, column 10, inside a generic.
!dram = memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>

func.func @f(%out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]}
      ins() outs(%out : !dram) {
  ^bb0(%out_cb: !cb):
    %c0 = arith.constant 0 : index
    %o = d2m.reserve %out_cb : !cb -> tensor<1x1x!ttcore.tile<32x32, bf16>>
  }
  return
}
