// convert-ttkernel-to-emitc rejects kernel functions with arguments or results.
// RUN: not %ttlang-opt %s -p convert-ttkernel-to-emitc 2>&1 | FileCheck %s

// CHECK: invalid.mlir:5:1: error: 'func.func' op kernel function @reader must take no arguments and return nothing (it has type (i32) -> ()); pass values as kernel arguments
func.func @reader(%addr: i32) attributes {ttkernel.thread = #ttkernel.thread<reader>} {
  func.return
}
