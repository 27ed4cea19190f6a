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

// -----

func.func @no_program() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %in = ttkernel.get_compile_time_arg_val(0)
  // expected-error @+1 {{has no CB data formats to compare: the module has no ttlang.program (convert-d2m-to-ttkernel's launch description lists each CB's format).}}
  ttkernel.binary_op_init_common(%in, %in, %in)
  func.return
}

// -----

!cb = !d2m.cb<memref<1x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
builtin.module attributes {ttlang.program = {cbs = [!cb]}} {
  func.func @cb_not_listed() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
    %in = ttkernel.get_compile_time_arg_val(0)
    %out = ttkernel.get_compile_time_arg_val(1)
    // expected-error @+1 {{reads CB 1, but the module's ttlang.program lists 1 CBs.}}
    ttkernel.binary_op_init_common(%in, %in, %out)
    func.return
  }
}

// -----

!cb = !d2m.cb<memref<1x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
builtin.module attributes {ttlang.program = {cbs = [!cb]}} {
  func.func @cb_not_an_argument() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
    %in = ttkernel.get_compile_time_arg_val(0)
    %c0 = arith.constant 0 : i32
    ttkernel.binary_op_init_common(%in, %in, %in)
    // expected-error @+1 {{reads a CB that is not a compile-time argument; its data format is unknown.}}
    ttkernel.copy_tile_init(%c0)
    func.return
  }
}
