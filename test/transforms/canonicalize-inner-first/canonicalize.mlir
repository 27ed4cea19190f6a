// RUN: %ttlang-opt %s --split-input-file -p canonicalize-inner-first | FileCheck %s
// xDSL's canonicalize gives the same IR, in more walks over the module:
// RUN: %ttlang-opt %s --split-input-file -p canonicalize | FileCheck %s
// Nothing to report:
// RUN: %ttlang-opt %s --split-input-file -p canonicalize-inner-first --verify-diagnostics

// A single-trip loop inlined in a loop nested in another: its index arithmetic folds to
// a constant, which leaves both loops around it.
// CHECK-LABEL: func.func @folded_in_nested_loops
// CHECK-NEXT: %[[CB:.*]] = ttkernel.get_compile_time_arg_val(0)
// CHECK-DAG: %[[C6:.*]] = arith.constant 6 : i32
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i32
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NOT: arith.constant
// CHECK: scf.for %[[I:.*]] = %[[C0]] to %[[C4]] step %[[C1]] : i32 {
// CHECK-NEXT: scf.for %[[K:.*]] = %[[C0]] to %[[C4]] step %[[C1]] : i32 {
// CHECK-NEXT: ttkernel.pack_tile(%[[C6]], %[[CB]], %[[K]])
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: func.return
func.func @folded_in_nested_loops() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %cb = ttkernel.get_compile_time_arg_val(0)
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c4 = arith.constant 4 : i32
  scf.for %i = %c0 to %c4 step %c1 : i32 {
    scf.for %k = %c0 to %c4 step %c1 : i32 {
      scf.for %j = %c0 to %c1 step %c1 : i32 {
        %a = arith.addi %j, %c2 : i32
        %b = arith.muli %a, %c2 : i32
        %t = arith.addi %b, %c2 : i32
        ttkernel.pack_tile(%t, %cb, %k)
      }
    }
  }
  func.return
}

// -----

// What no pattern matches stays: loops with more than one trip, arithmetic on their
// induction variables.
// CHECK-LABEL: func.func @unchanged
// CHECK: scf.for %[[I:.*]] =
// CHECK-NEXT: %[[T:.*]] = arith.addi %[[I]], %{{.*}} : i32
// CHECK-NEXT: ttkernel.pack_tile(%[[T]], %{{.*}}, %[[I]])
func.func @unchanged() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %cb = ttkernel.get_compile_time_arg_val(0)
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  scf.for %i = %c0 to %c4 step %c1 : i32 {
    %t = arith.addi %i, %c3 : i32
    ttkernel.pack_tile(%t, %cb, %i)
  }
  func.return
}
