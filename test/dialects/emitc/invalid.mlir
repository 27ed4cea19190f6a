// Every verifier error of the emitc ops ttlang adds.
// RUN: %ttlang-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{include path must not be empty}}
emitc.include ""

// -----

func.func @assign_wrong_type() {
  %var = emitc.variable 0 : i32 : !emitc.lvalue<i32>
  %value = arith.constant 1 : i64
  // expected-error @+1 {{cannot assign a value of type i64 to a variable of type i32}}
  emitc.assign %value : i64 to %var : !emitc.lvalue<i32>
  func.return
}

// -----

func.func @empty_literal() {
  // expected-error @+1 {{literal must not be empty}}
  %l = emitc.literal "" : i32
  func.return
}
