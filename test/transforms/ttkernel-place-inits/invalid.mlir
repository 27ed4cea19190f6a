// Every error ttkernel-place-inits raises.
// RUN: %ttlang-opt %s -p ttkernel-place-inits --split-input-file --verify-diagnostics

func.func @call_without_init() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{does not directly follow its ttkernel.exp_tile_init; ttkernel-place-inits takes convert-d2m-to-ttkernel's output, where every compute call follows its init.}}
  ttkernel.exp_tile(%c0)
  func.return
}

// -----

func.func @call_after_other_init() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %in = ttkernel.get_compile_time_arg_val(0)
  %c0 = arith.constant 0 : i32
  ttkernel.exp_tile_init()
  // expected-error @+1 {{does not directly follow its ttkernel.copy_tile_init}}
  ttkernel.copy_tile(%in, %c0, %c0)
  func.return
}
