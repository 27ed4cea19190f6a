// Every error ttkernel-hoist-cb-pushes raises.
// RUN: %ttlang-opt %s -p ttkernel-hoist-cb-pushes --split-input-file --verify-diagnostics

func.func @cb_not_an_argument() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // expected-error @+1 {{names a CB that is not a compile-time argument; which CB it is, and so which waits may move past it, is unknown.}}
  ttkernel.cb_push_back(%c0, %c1)
  func.return
}
