// --verify-diagnostics: each expected-error form matches its line; mismatches fail.
// RUN: %ttlang-opt %s --split-input-file --verify-diagnostics
// RUN: not %ttlang-opt %S/Inputs/wrong_expectations.mlir --verify-diagnostics 2>&1 | FileCheck %s --check-prefix=MISMATCH

// MISMATCH: wrong_expectations.mlir:4:8: error: 'd2m.reserve' op returns a tensor of the CB's block shape and element type {{.*}} (unexpected error)
// MISMATCH: wrong_expectations.mlir:4: error: expected error "this message is not what the verifier says" was not produced
// MISMATCH: wrong_expectations.mlir:6: error: expected error "an error on a line that verifies" was not produced
// MISMATCH: wrong_expectations.mlir:8: error: expected warning "ttlang-opt reports errors only" was not produced

func.func @same_line() {
  %x = d2m.core_index(5) // expected-error {{takes a grid dimension}}
  return
}

// -----

func.func @relative_lines() {
  // expected-error @+2 {{got 7}}
  // expected-error @+2 {{got 8}}
  %x = d2m.core_index(7)
  %y = d2m.core_index(8)
  %z = d2m.core_index(9)
  // expected-error @-1 {{'d2m.core_index' op takes a grid dimension, 0 (rows) or 1 (columns), but got 9.}}
  return
}

// -----

func.func @above_and_below() {
  // expected-error @below {{got 3}}
  %x = d2m.grid_size(3)
  %y = d2m.grid_size(4)
  // expected-error @above {{got 4}}
  return
}

// -----

// A chunk without errors needs no expectations.
func.func @fine() {
  %x = d2m.core_index(1)
  return
}
