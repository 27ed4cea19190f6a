// --split-input-file: chunks are parsed and printed independently, joined by `// -----`;
// an error in one chunk does not stop the others, and the exit status is 1.
// RUN: %ttlang-opt %s --split-input-file | FileCheck %s
// RUN: not %ttlang-opt %S/Inputs/split_with_error.mlir --split-input-file 2>%t.err | FileCheck %s --check-prefix=PARTIAL
// RUN: FileCheck %s --check-prefix=PARTIAL-ERR < %t.err

// CHECK-LABEL: func.func @first
// CHECK: // -----
// CHECK-LABEL: func.func @second
// CHECK-NOT: // -----

// PARTIAL-LABEL: func.func @before
// PARTIAL-NEXT: func.return
// PARTIAL: // -----
// PARTIAL-NEXT: builtin.module {
// PARTIAL-NEXT: func.func @after

// The line number counts from the start of the file, not of the chunk.
// PARTIAL-ERR: split_with_error.mlir:8:8: error: 'd2m.core_index' op takes a grid dimension, 0 (rows) or 1 (columns), but got 3.

func.func @first() {
  return
}

// -----

func.func @second() {
  return
}
