// Every error ttkernel-stream-cb-blocks raises.
// RUN: %ttlang-opt %s -p ttkernel-stream-cb-blocks --split-input-file --verify-diagnostics

!blk = memref<1x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
builtin.module attributes {ttlang.program = {cbs = [!d2m.cb<!blk>]}} {
  func.func @cb_not_an_argument() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    // expected-error @+1 {{names a CB that is not a compile-time argument; which CB it is, and so which block it streams, is unknown.}}
    ttkernel.cb_push_back(%c0, %c1)
    func.return
  }
}
