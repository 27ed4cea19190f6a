// A call tt-metal lacks (ttkernel.fill_causal_mask_tile) is defined in the kernel's
// source, once, before kernel_main: plain data-movement C++ writing bf16 through an
// L1 pointer (0xFF80 is -inf), four 16x16 faces per tile.
// RUN: %ttlang-opt %s -p convert-ttkernel-to-emitc | %ttlang-translate --ttkernel-to-cpp --kernel mask_reader | FileCheck %s

// CHECK:      #include "api/dataflow/dataflow_api.h"
// CHECK-EMPTY:
// CHECK-NEXT: static inline void fill_causal_mask_tile(uint32_t l1_addr, int32_t key_offset) {
// CHECK-NEXT:   volatile tt_l1_ptr uint16_t* tile = reinterpret_cast<volatile tt_l1_ptr uint16_t*>(l1_addr);
// CHECK:            int32_t key_past_query = key_offset + (face % 2) * 16 + col - (face / 2) * 16 - row;
// CHECK-NEXT:       tile[face * 256 + row * 16 + col] = key_past_query > 0 ? 0xFF80 : 0x0000;
// CHECK:      {{^}$}}
// CHECK-EMPTY:
// CHECK-NEXT: void kernel_main() {
// CHECK-NOT:  static inline
// CHECK:        fill_causal_mask_tile(
// CHECK:        fill_causal_mask_tile(
func.func @mask_reader() attributes {ttkernel.thread = #ttkernel.thread<reader>} {
  %l1 = ttkernel.get_arg_val(0)
  %offset = ttkernel.get_arg_val(1)
  ttkernel.fill_causal_mask_tile(%l1, %offset)
  ttkernel.fill_causal_mask_tile(%l1, %offset)
  return
}
