// Every error ttkernel-sink-cb-waits raises.
// RUN: %ttlang-opt %s -p ttkernel-sink-cb-waits --split-input-file --verify-diagnostics

func.func @cb_not_an_argument() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // expected-error @+1 {{names a CB that is not a compile-time argument; which CB it is, and so which waits may move past it, is unknown.}}
  ttkernel.cb_wait_front(%c0, %c1)
  func.return
}

// -----

func.func @use_not_an_argument() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %a = ttkernel.get_compile_time_arg_val(0)
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  ttkernel.cb_wait_front(%a, %c1)
  // expected-error @+1 {{'ttkernel.copy_tile' op names a CB that is not a compile-time argument}}
  ttkernel.copy_tile(%c1, %c0, %c0)
  func.return
}
