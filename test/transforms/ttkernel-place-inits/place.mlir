// RUN: %ttlang-opt %s --split-input-file -p ttkernel-place-inits | FileCheck %s

// An init alone in its loop is hoisted out (innermost loop first); an init equal to
// the one in force is dropped; a loop with two kinds of inits keeps them.
// CHECK-LABEL: func.func @hoist_and_dedupe()
// CHECK:      %[[IN:.*]] = ttkernel.get_compile_time_arg_val(0)
// CHECK:      ttkernel.copy_tile_init(%[[IN]])
// CHECK-NEXT: scf.for
// CHECK-NEXT:   scf.for
// CHECK-NEXT:     ttkernel.copy_tile(%[[IN]]
// CHECK:      scf.for
// CHECK-NEXT:   ttkernel.copy_tile_init(%[[IN]])
// CHECK-NEXT:   ttkernel.copy_tile(%[[IN]]
// CHECK-NEXT:   ttkernel.exp_tile_init()
// CHECK-NEXT:   ttkernel.exp_tile(
// CHECK-NEXT:   ttkernel.exp_tile(
// CHECK-NEXT: }
// CHECK-NEXT: func.return
func.func @hoist_and_dedupe() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %in = ttkernel.get_compile_time_arg_val(0)
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  scf.for %i = %c0 to %c2 step %c1 : i32 {
    scf.for %j = %c0 to %c2 step %c1 : i32 {
      ttkernel.copy_tile_init(%in)
      ttkernel.copy_tile(%in, %j, %j)
    }
  }
  scf.for %i = %c0 to %c2 step %c1 : i32 {
    ttkernel.copy_tile_init(%in)
    ttkernel.copy_tile(%in, %i, %c0)
    ttkernel.exp_tile_init()
    ttkernel.exp_tile(%c0)
    ttkernel.exp_tile_init()
    ttkernel.exp_tile(%c0)
  }
  func.return
}

// -----

// After a reduction, the next init of another kind gets reduce_uninit before it.
// CHECK-LABEL: func.func @reduce_uninit()
// CHECK:      ttkernel.reduce_init<sum, row>
// CHECK-NEXT: scf.for
// CHECK-NEXT:   ttkernel.reduce_tile<sum, row>
// CHECK-NEXT: }
// CHECK-NEXT: ttkernel.reduce_uninit()
// CHECK-NEXT: ttkernel.exp_tile_init()
func.func @reduce_uninit() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %a = ttkernel.get_compile_time_arg_val(0)
  %s = ttkernel.get_compile_time_arg_val(1)
  %o = ttkernel.get_compile_time_arg_val(2)
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  scf.for %j = %c0 to %c2 step %c1 : i32 {
    ttkernel.reduce_init<sum, row>(%a, %s, %o)
    ttkernel.reduce_tile<sum, row>(%a, %s, %j, %c0, %c0)
  }
  ttkernel.exp_tile_init()
  ttkernel.exp_tile(%c0)
  func.return
}

// -----

// The next init after a reduction sits in a loop (with another init, so neither is
// hoisted): reduce_uninit goes before that loop, once, not into every iteration.
// CHECK-LABEL: func.func @reduce_uninit_before_loop()
// CHECK:      ttkernel.reduce_tile<max, row>
// CHECK-NEXT: ttkernel.reduce_uninit()
// CHECK-NEXT: scf.for
// CHECK-NEXT:   ttkernel.exp_tile_init()
// CHECK-NEXT:   ttkernel.exp_tile(
// CHECK-NEXT:   ttkernel.recip_tile_init()
// CHECK-NEXT:   ttkernel.recip_tile(
// CHECK-NEXT: }
// CHECK-NOT:  reduce_uninit
func.func @reduce_uninit_before_loop() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %a = ttkernel.get_compile_time_arg_val(0)
  %s = ttkernel.get_compile_time_arg_val(1)
  %o = ttkernel.get_compile_time_arg_val(2)
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  ttkernel.reduce_init<max, row>(%a, %s, %o)
  ttkernel.reduce_tile<max, row>(%a, %s, %c0, %c0, %c0)
  scf.for %j = %c0 to %c2 step %c1 : i32 {
    ttkernel.exp_tile_init()
    ttkernel.exp_tile(%j)
    ttkernel.recip_tile_init()
    ttkernel.recip_tile(%j)
  }
  func.return
}

// -----

// Data-movement kernels are left alone.
// CHECK-LABEL: func.func @reader()
// CHECK-NEXT: ttkernel.get_compile_time_arg_val(0)
// CHECK-NEXT: func.return
func.func @reader() attributes {ttkernel.thread = #ttkernel.thread<reader>} {
  %in = ttkernel.get_compile_time_arg_val(0)
  func.return
}
