// The calls tt-metal lacks (ttkernel.fill_causal_mask_tile, ttkernel.causal_mask_first_tile)
// are defined in the kernel's source, once each, before kernel_main, in the order the
// kernel first calls them: plain data-movement C++. fill_causal_mask_tile writes bf16
// through an L1 pointer (0xFF80 is -inf; uniform tiles two values per 32-bit store) and
// charges its time through the emulator's cost hook TTLANG_MODELED_COST, empty on
// tt-metal; causal_mask_first_tile is index arithmetic.
// RUN: %ttlang-opt %s -p convert-ttkernel-to-emitc | %ttlang-translate --ttkernel-to-cpp --kernel mask_reader | FileCheck %s

// CHECK:      #include "api/dataflow/dataflow_api.h"
// CHECK-EMPTY:
// CHECK-NEXT: static inline int32_t causal_mask_first_tile(int32_t key_offset, int32_t row, int32_t col, int32_t cols) {
// CHECK-NEXT:   int32_t diagonal = col - row;
// CHECK-NEXT:   if (key_offset >= 32) {
// CHECK-NEXT:     int32_t first = diagonal - (key_offset - 32) / 32;
// CHECK-NEXT:     return first > 0 ? first : 0;
// CHECK-NEXT:   }
// CHECK-NEXT:   if (key_offset <= -31) {
// CHECK-NEXT:     int32_t last = diagonal + (-31 - key_offset) / 32;
// CHECK-NEXT:     return last < 0 ? -last * cols : 0;
// CHECK-NEXT:   }
// CHECK-NEXT:   int32_t back = row < col ? row : col;
// CHECK-NEXT:   return (row - back) * cols + col - back;
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: #ifndef TTLANG_MODELED_COST
// CHECK-NEXT: #define TTLANG_MODELED_COST(helper)
// CHECK-NEXT: #endif
// CHECK-NEXT: static inline void fill_causal_mask_tile(uint32_t l1_addr, int32_t key_offset) {
// CHECK-NEXT:   if (key_offset <= -31 || key_offset >= 32) {
// CHECK-NEXT:     TTLANG_MODELED_COST("fill_uniform_tile");
// CHECK-NEXT:     uint32_t value = key_offset >= 32 ? 0xFF80FF80u : 0u;
// CHECK:        TTLANG_MODELED_COST("fill_causal_mask_tile");
// CHECK-NEXT:   volatile tt_l1_ptr uint16_t* tile = reinterpret_cast<volatile tt_l1_ptr uint16_t*>(l1_addr);
// CHECK:            int32_t key_past_query = key_offset + (face % 2) * 16 + col - (face / 2) * 16 - row;
// CHECK-NEXT:       tile[face * 256 + row * 16 + col] = key_past_query > 0 ? 0xFF80 : 0x0000;
// CHECK:      {{^}$}}
// CHECK-EMPTY:
// CHECK-NEXT: void kernel_main() {
// CHECK-NOT:  static inline
// CHECK:        uint32_t first = causal_mask_first_tile(
// CHECK:        fill_causal_mask_tile(
// CHECK:        uint32_t again = causal_mask_first_tile(
// CHECK:        fill_causal_mask_tile(
func.func @mask_reader() attributes {ttkernel.thread = #ttkernel.thread<reader>} {
  %l1 = ttkernel.get_arg_val(0)
  %offset = ttkernel.get_arg_val(1)
  %row = ttkernel.get_arg_val(2)
  %col = ttkernel.get_arg_val(3)
  %cols = arith.constant 8 : i32
  %first = ttkernel.causal_mask_first_tile(%offset, %row, %col, %cols)
  ttkernel.fill_causal_mask_tile(%l1, %offset)
  %again = ttkernel.causal_mask_first_tile(%offset, %row, %col, %cols)
  ttkernel.fill_causal_mask_tile(%l1, %offset)
  return
}
