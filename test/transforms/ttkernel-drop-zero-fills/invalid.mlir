// Every error ttkernel-drop-zero-fills raises.
// RUN: %ttlang-opt %s -p ttkernel-drop-zero-fills --split-input-file --verify-diagnostics

func.func @fill_without_init() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant 0.000000e+00 : f32
  ttkernel.tile_regs_acquire()
  // expected-error @+1 {{does not directly follow its ttkernel.fill_tile_init; ttkernel-drop-zero-fills takes convert-d2m-to-ttkernel's output, where every compute call follows its init.}}
  ttkernel.fill_tile(%c0, %zero)
  ttkernel.tile_regs_commit()
  func.return
}
