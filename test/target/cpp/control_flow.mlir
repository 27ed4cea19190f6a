// C++ emission of loops, loop-carried values, branches, arithmetic and constants, and
// of names the IR does not give or that C++ reserves.
// RUN: %ttlang-translate --ttkernel-to-cpp %s --kernel flow | FileCheck %s

// CHECK-LABEL: void kernel_main() {
func.func @flow() attributes {ttkernel.thread = #ttkernel.thread<writer>} {
  // CHECK-NEXT: uint32_t n = get_arg_val<uint32_t>(0);
  // CHECK-NEXT: uint32_t int_1 = get_arg_val<uint32_t>(1);
  // CHECK-NEXT: uint32_t arg2 = get_arg_val<uint32_t>(2);
  %n = ttkernel.get_arg_val(0)
  %int = ttkernel.get_arg_val(1)
  %0 = ttkernel.get_arg_val(2)
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %big = arith.constant -1 : i32
  // Two values carried round a loop, swapped each iteration: through temporaries.
  // CHECK-NEXT: uint32_t a = 0;
  // CHECK-NEXT: uint32_t b = 1;
  // CHECK-NEXT: for (int32_t i = 0; i < static_cast<int32_t>(n); i += 2) {
  // CHECK-NEXT:   uint32_t a_next = b;
  // CHECK-NEXT:   uint32_t b_next = a;
  // CHECK-NEXT:   a = a_next;
  // CHECK-NEXT:   b = b_next;
  // CHECK-NEXT: }
  %a, %b = scf.for %i = %c0 to %n step %c2 iter_args(%x = %c0, %y = %c1) -> (i32, i32) : i32 {
    scf.yield %y, %x : i32, i32
  }
  // Arithmetic, signed comparisons and a branch that yields a value.
  // CHECK-NEXT: uint32_t sum = a + b;
  // CHECK-NEXT: uint32_t scaled = sum * 4294967295u;
  // CHECK-NEXT: uint32_t half = sum >> 1;
  // CHECK-NEXT: bool negative = static_cast<int32_t>(scaled) < static_cast<int32_t>(0);
  // CHECK-NEXT: bool below = scaled < int_1;
  // CHECK-NEXT: uint32_t magnitude;
  // CHECK-NEXT: if (negative) {
  // CHECK-NEXT:   uint32_t flipped = 0 - scaled;
  // CHECK-NEXT:   magnitude = flipped;
  // CHECK-NEXT: } else {
  // CHECK-NEXT:   magnitude = scaled;
  // CHECK-NEXT: }
  // CHECK-NEXT: uint32_t pick = below ? magnitude : half;
  // CHECK-NEXT: uint32_t floor = static_cast<int32_t>(scaled) / static_cast<int32_t>(2) - (static_cast<int32_t>(scaled) % static_cast<int32_t>(2) != 0 && (static_cast<int32_t>(scaled) < 0) != (static_cast<int32_t>(2) < 0));
  %sum = arith.addi %a, %b : i32
  %scaled = arith.muli %sum, %big : i32
  %half = arith.shrui %sum, %c1 : i32
  %negative = arith.cmpi slt, %scaled, %c0 : i32
  %below = arith.cmpi ult, %scaled, %int : i32
  %magnitude = scf.if %negative -> (i32) {
    %flipped = arith.subi %c0, %scaled : i32
    scf.yield %flipped : i32
  } else {
    scf.yield %scaled : i32
  }
  %pick = arith.select %below, %magnitude, %half : i32
  %floor = arith.floordivsi %scaled, %c2 : i32
  // A branch without results and without else; an index loop.
  // CHECK-NEXT: if (below) {
  // CHECK-NEXT:   noc_async_write_barrier();
  // CHECK-NEXT: }
  // CHECK-NEXT: for (ptrdiff_t k = 0; k < 8; ++k) {
  // CHECK-NEXT:   uint32_t k32 = static_cast<uint32_t>(k);
  // CHECK-NEXT:   cb_push_back(arg2, k32);
  // CHECK-NEXT: }
  // CHECK-NEXT: }
  scf.if %below {
    ttkernel.noc_async_write_barrier()
  }
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %i8 = arith.constant 8 : index
  scf.for %k = %i0 to %i8 step %i1 {
    %k32 = arith.index_cast %k : index to i32
    ttkernel.cb_push_back(%0, %k32)
  }
  func.return
}

// RUN: %ttlang-translate --ttkernel-to-cpp %s --kernel fill | FileCheck %s --check-prefix=FILL
// FILL-LABEL: void kernel_main() {
// FILL-NEXT:   fill_tile_init();
// FILL-NEXT:   fill_tile(0, -__builtin_inff());
// FILL-NEXT:   fill_tile(1, 0.125f);
// FILL-NEXT:   mul_unary_tile(1, 1065353216);
// FILL-NEXT: }
func.func @fill() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %neg_inf = arith.constant 0xFF800000 : f32
  %eighth = arith.constant 0.125 : f32
  %one_bits = arith.constant 1065353216 : i32
  ttkernel.fill_tile_init()
  ttkernel.fill_tile(%c0, %neg_inf)
  ttkernel.fill_tile(%c1, %eighth)
  ttkernel.mul_unary_tile(%c1, %one_bits)
  func.return
}

// --output-dir writes one file per kernel.
// RUN: rm -rf %t && %ttlang-translate --ttkernel-to-cpp %s --output-dir %t
// RUN: FileCheck %s --check-prefix=FILL --input-file %t/fill.cpp
// RUN: FileCheck %s --input-file %t/flow.cpp

// Unnamed loop variables are `i`, unnamed call results are named after the call; a
// name is free again after the loop that declared it.
// RUN: %ttlang-translate --ttkernel-to-cpp %s --kernel loops | FileCheck %s --check-prefix=LOOPS
// LOOPS-LABEL: void kernel_main() {
// LOOPS-NEXT:   for (int32_t i = 0; i < 4; ++i) {
// LOOPS-NEXT:     for (int32_t i_1 = 0; i_1 < 4; ++i_1) {
// LOOPS-NEXT:       uint32_t arg0 = get_arg_val<uint32_t>(0);
// LOOPS-NEXT:       cb_push_back(i, arg0);
// LOOPS-NEXT:     }
// LOOPS-NEXT:   }
// LOOPS-NEXT:   for (int32_t i = 0; i < 4; ++i) {
// LOOPS-NEXT:     uint32_t v0 = i + 1;
// LOOPS-NEXT:     cb_push_back(i, v0);
// LOOPS-NEXT:   }
// LOOPS-NEXT: }
func.func @loops() attributes {ttkernel.thread = #ttkernel.thread<reader>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  scf.for %0 = %c0 to %c4 step %c1 : i32 {
    scf.for %1 = %c0 to %c4 step %c1 : i32 {
      %2 = ttkernel.get_arg_val(0)
      ttkernel.cb_push_back(%0, %2)
    }
  }
  scf.for %3 = %c0 to %c4 step %c1 : i32 {
    %4 = arith.addi %3, %c1 : i32
    ttkernel.cb_push_back(%3, %4)
  }
  func.return
}
