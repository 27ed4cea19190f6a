// Pass pipelines: both spellings, --print-ir-after-all (every pass, the last one too),
// -o, stdin, and the registered passes in --help.
// RUN: %ttlang-opt %s -p cse | FileCheck %s --check-prefix=CSE
// RUN: %ttlang-opt %s --pass-pipeline='builtin.module(cse)' | FileCheck %s --check-prefix=CSE
// RUN: %ttlang-opt -p cse < %s | FileCheck %s --check-prefix=CSE
// RUN: %ttlang-opt %s -p cse -o %t && FileCheck %s --check-prefix=CSE < %t
// RUN: %ttlang-opt %s -p canonicalize | FileCheck %s --check-prefix=CANON
// RUN: %ttlang-opt %s -p 'builtin.module(canonicalize,cse)' --print-ir-after-all -o %t 2>&1 | FileCheck %s --check-prefix=DUMP
// RUN: %ttlang-opt --help | FileCheck %s --check-prefix=HELP

!tile = !ttcore.tile<32x32, bf16>

// Tile ops are pure: CSE merges the two identical adds (and drops the unused exp);
// canonicalize alone drops the unused exp but keeps both adds.
// CSE-LABEL: func.func @pure_tile_ops
// CSE-NEXT: %[[SUM:.*]] = d2m.tile_add %{{.*}}, %{{.*}} : !ttcore.tile<32x32, bf16>
// CSE-NEXT: func.return %[[SUM]], %[[SUM]]

// CANON-LABEL: func.func @pure_tile_ops
// CANON-NEXT: %[[X:.*]] = d2m.tile_add
// CANON-NEXT: %[[Y:.*]] = d2m.tile_add
// CANON-NEXT: func.return %[[X]], %[[Y]]

// DUMP: // -----// IR Dump After canonicalize //----- //
// DUMP: d2m.tile_add
// DUMP-NEXT: d2m.tile_add
// DUMP-NOT: d2m.tile_exp
// DUMP: // -----// IR Dump After cse //----- //
// DUMP-NEXT: builtin.module {
// DUMP-NEXT: func.func @pure_tile_ops
// DUMP-NEXT: %[[SUM:.*]] = d2m.tile_add
// DUMP-NEXT: func.return %[[SUM]], %[[SUM]]

// HELP: registered passes:
// HELP-NEXT: canonicalize
// HELP: cse
func.func @pure_tile_ops(%a: !tile, %b: !tile) -> (!tile, !tile) {
  %x = d2m.tile_add %a, %b : !tile
  %y = d2m.tile_add %a, %b : !tile
  %unused = d2m.tile_exp %x : !tile
  return %x, %y : !tile, !tile
}
