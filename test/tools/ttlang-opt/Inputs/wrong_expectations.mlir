// --verify-diagnostics input whose expectations do not match what happens.
func.func @f(%cb: !d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>) {
  // expected-error @+1 {{this message is not what the verifier says}}
  %o = d2m.reserve %cb : !d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
  // expected-error @+1 {{an error on a line that verifies}}
  %c0 = arith.constant 0 : index
  // expected-warning @+1 {{ttlang-opt reports errors only}}
  return
}
