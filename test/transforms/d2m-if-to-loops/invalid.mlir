// Every error d2m-if-to-loops raises.
// RUN: %ttlang-opt %s -p d2m-if-to-loops --verify-diagnostics

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<1x2x!tile, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<1x2x!tile, #ttcore.memory_space<l1>>>
!t = tensor<1x2x!tile>
func.func @block_and_index(%in: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %x = d2m.wait %in_cb : !cb -> !t
    %i = d2m.core_index(0)
    %zero = arith.constant 0 : index
    %c = arith.cmpi eq, %i, %zero : index
    // expected-error @+1 {{assigns both blocks and other values (indices) in a run-time branch; assign the indices before the `if`, or in a separate `if`.}}
    %r:2 = scf.if %c -> (!t, index) {
      scf.yield %x, %i : !t, index
    } else {
      scf.yield %x, %zero : !t, index
    }
    %o = d2m.reserve %out_cb : !cb -> !t
    d2m.store %o, %r#0 : !t, !t
    d2m.push %out_cb : !cb
    d2m.pop %in_cb : !cb
  }
  return
}
