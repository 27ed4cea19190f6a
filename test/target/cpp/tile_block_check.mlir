// The bounds check of a transfer's block (ttkernel.check_tile_block) is a call of the
// macro TTLANG_CHECK_TILE_BLOCK, which the source defines empty unless the emulator's
// headers define it (tt-metal has no such call): tensor name, source line, rank, block
// shape, tensor shape, then the block's first tile in each dimension.
// RUN: %ttlang-opt %s -p convert-ttkernel-to-emitc | %ttlang-translate --ttkernel-to-cpp | FileCheck %s

// CHECK:      #include "api/dataflow/dataflow_api.h"
// CHECK-EMPTY:
// CHECK-NEXT: #ifndef TTLANG_CHECK_TILE_BLOCK  // the emulator's check of a transfer's tiles against its tensor
// CHECK-NEXT: #define TTLANG_CHECK_TILE_BLOCK(...)
// CHECK-NEXT: #endif
// CHECK:      void kernel_main() {
// CHECK-NEXT:   uint32_t [[COL:.*]] = get_arg_val<uint32_t>(0);
// CHECK-NEXT:   TTLANG_CHECK_TILE_BLOCK("x", "k.py:7", 2, 1, 2, 2, 3, 0, [[COL]]);
// CHECK-NEXT:   TTLANG_CHECK_TILE_BLOCK("q \"quoted\"", "", 1, 1, 4, [[COL]]);
func.func @reader() attributes {ttkernel.thread = #ttkernel.thread<reader>} {
  %col = ttkernel.get_arg_val(0)
  %c0 = arith.constant 0 : i32
  ttkernel.check_tile_block(%c0, %col) tensor "x" block [1, 2] of [2, 3] at "k.py:7"
  ttkernel.check_tile_block(%col) tensor "q \"quoted\"" block [1] of [4] at ""
  return
}
