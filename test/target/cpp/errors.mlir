// ttlang-translate's errors: one line each, exit status 1.
// RUN: not %ttlang-translate --ttkernel-to-cpp %s 2>&1 | FileCheck %s
// RUN: not %ttlang-translate --ttkernel-to-cpp %S/eltwise_add.mlir --kernel nowhere 2>&1 | FileCheck %s --check-prefix=KERNEL
// RUN: echo 'func.func @broken( {' | not %ttlang-translate --ttkernel-to-cpp 2>&1 | FileCheck %s --check-prefix=PARSE
// RUN: echo 'func.func @helper() { func.return }' | not %ttlang-translate --ttkernel-to-cpp 2>&1 | FileCheck %s --check-prefix=NONE

// CHECK: errors.mlir:15:8: error: 'arith.maxsi' op has no C++ form in the kernel emitter
// CHECK-NOT: Traceback
// KERNEL: ttlang-translate: error: no kernel @nowhere; kernels: add_compute, reader
// PARSE: <stdin>:1:20: error:
// PARSE-NOT: Traceback
// NONE: <stdin>: error: the module holds no kernel function (func.func with ttkernel.thread)
func.func @unsupported() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %c0 = arith.constant 0 : i32
  %m = arith.maxsi %c0, %c0 : i32
  func.return
}
