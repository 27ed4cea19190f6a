// User errors print one `file:line:col: error: message` line, no traceback, exit 1.
// RUN: not %ttlang-opt %s -p does-not-exist 2>&1 | FileCheck %s --check-prefix=UNKNOWN-PASS
// RUN: not %ttlang-opt %s -p 'builtin.module(func.func(cse))' 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: not %ttlang-opt %S/Inputs/parse_error.mlir 2>&1 | FileCheck %s --check-prefix=PARSE
// RUN: not %ttlang-opt < %S/Inputs/parse_error.mlir 2>&1 | FileCheck %s --check-prefix=STDIN
// RUN: not %ttlang-opt %S/Inputs/verifier_error.mlir 2>&1 | FileCheck %s --check-prefix=VERIFY

// UNKNOWN-PASS: ttlang-opt: error: unknown pass 'does-not-exist'; registered passes: canonicalize,
// UNKNOWN-PASS-NOT: Traceback

// NESTED: ttlang-opt: error: nested pass pipelines are not supported ('builtin.module(func.func(cse))'); passes run on the whole module
// NESTED-NOT: Traceback

// PARSE: {{.*}}Inputs/parse_error.mlir:4:28: error: Operation d2m.tile_frobnicate is not registered
// PARSE-NOT: Traceback

// STDIN: <stdin>:4:28: error: Operation d2m.tile_frobnicate is not registered

// The failing op is nested in a d2m.generic region: the error points at its line.
// VERIFY: {{.*}}Inputs/verifier_error.mlir:10:10: error: 'd2m.reserve' op returns a tensor of the CB's block shape and element type
// VERIFY-NOT: Traceback

func.func @empty() {
  return
}
