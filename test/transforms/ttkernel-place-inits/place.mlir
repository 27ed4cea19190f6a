// RUN: %ttlang-opt %s --split-input-file -p ttkernel-place-inits | FileCheck %s

// An init alone in its loop is hoisted out (innermost loop first); a loop with one
// unpacker/FPU init and one SFPU init gets both hoisted; an init equal to the one in
// force for its group is dropped.
// CHECK-LABEL: func.func @hoist_and_dedupe()
// CHECK:      %[[IN:.*]] = ttkernel.get_compile_time_arg_val(0)
// CHECK:      ttkernel.copy_tile_init(%[[IN]])
// CHECK-NEXT: scf.for
// CHECK-NEXT:   scf.for
// CHECK-NEXT:     ttkernel.copy_tile(%[[IN]]
// CHECK:      ttkernel.exp_tile_init()
// CHECK-NEXT: scf.for
// CHECK-NEXT:   ttkernel.copy_tile(%[[IN]]
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

// Two inits of one group in a loop (here both unpacker/FPU) stay in it: each undoes
// the other every iteration. The SFPU init in force before the loop still holds
// after it (the loop changes only the FPU group), so the second exp_tile_init goes.
// CHECK-LABEL: func.func @same_group_stays()
// CHECK:      ttkernel.exp_tile_init()
// CHECK-NEXT: ttkernel.exp_tile(
// CHECK-NEXT: scf.for
// CHECK-NEXT:   ttkernel.init_bcast
// CHECK-NEXT:   ttkernel.mul_tiles_bcast
// CHECK-NEXT:   ttkernel.mm_init
// CHECK-NEXT:   ttkernel.matmul_tiles
// CHECK-NEXT: }
// CHECK-NEXT: ttkernel.exp_tile(
// CHECK-NEXT: func.return
func.func @same_group_stays() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %a = ttkernel.get_compile_time_arg_val(0)
  %b = ttkernel.get_compile_time_arg_val(1)
  %o = ttkernel.get_compile_time_arg_val(2)
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  ttkernel.exp_tile_init()
  ttkernel.exp_tile(%c0)
  scf.for %j = %c0 to %c2 step %c1 : i32 {
    ttkernel.init_bcast<mul, col>(%a, %b, %o)
    ttkernel.mul_tiles_bcast<col>(%a, %b, %j, %j, %c0)
    ttkernel.mm_init(%a, %b, %o, %c0)
    ttkernel.matmul_tiles(%a, %b, %j, %j, %c0, %c0)
  }
  ttkernel.exp_tile_init()
  ttkernel.exp_tile(%c0)
  func.return
}

// -----

// A loop holding a reduce_init and another init keeps both (reduce_uninit, placed
// before the next init of another kind, must not land before the loop); a reduction
// between two equal SFPU inits keeps the second (its packer configuration is undone
// by reduce_uninit, which goes before that init).
// CHECK-LABEL: func.func @reduce_not_hoisted_with_others()
// CHECK:      scf.for
// CHECK-NEXT:   ttkernel.reduce_init<sum, row>
// CHECK-NEXT:   ttkernel.reduce_tile<sum, row>
// CHECK-NEXT:   ttkernel.reduce_uninit()
// CHECK-NEXT:   ttkernel.exp_tile_init()
// CHECK-NEXT:   ttkernel.exp_tile(
// CHECK-NEXT: }
// CHECK-NEXT: ttkernel.reduce_init<max, row>
// CHECK-NEXT: ttkernel.reduce_tile<max, row>
// CHECK-NEXT: ttkernel.reduce_uninit()
// CHECK-NEXT: ttkernel.exp_tile_init()
// CHECK-NEXT: ttkernel.exp_tile(
func.func @reduce_not_hoisted_with_others() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %a = ttkernel.get_compile_time_arg_val(0)
  %s = ttkernel.get_compile_time_arg_val(1)
  %o = ttkernel.get_compile_time_arg_val(2)
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  scf.for %j = %c0 to %c2 step %c1 : i32 {
    ttkernel.reduce_init<sum, row>(%a, %s, %o)
    ttkernel.reduce_tile<sum, row>(%a, %s, %j, %c0, %c0)
    ttkernel.exp_tile_init()
    ttkernel.exp_tile(%c0)
  }
  ttkernel.reduce_init<max, row>(%a, %s, %o)
  ttkernel.reduce_tile<max, row>(%a, %s, %c0, %c0, %c0)
  ttkernel.exp_tile_init()
  ttkernel.exp_tile(%c0)
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
