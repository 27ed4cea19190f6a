// RUN: %ttlang-opt %s --split-input-file -p ttkernel-drop-zero-fills | FileCheck %s

// A block of zeros: the fills (and their inits) in the section's loop go; the section
// packs DST's zeros. A second section starts from zeros again.
// CHECK-LABEL: func.func @zeros_block()
// CHECK:      ttkernel.tile_regs_acquire()
// CHECK-NEXT: scf.for
// CHECK-NEXT: }
// CHECK-NEXT: ttkernel.tile_regs_commit()
// CHECK:      ttkernel.pack_tile
// CHECK:      ttkernel.tile_regs_acquire()
// CHECK-NEXT: ttkernel.tile_regs_commit()
// CHECK-NOT:  fill_tile
func.func @zeros_block() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %out = ttkernel.get_compile_time_arg_val(0)
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %zero = arith.constant 0.000000e+00 : f32
  ttkernel.tile_regs_acquire()
  scf.for %i = %c0 to %c4 step %c1 : i32 {
    ttkernel.fill_tile_init()
    ttkernel.fill_tile(%i, %zero)
  }
  ttkernel.tile_regs_commit()
  ttkernel.tile_regs_wait()
  ttkernel.pack_tile(%c0, %out, %c0)
  ttkernel.tile_regs_release()
  ttkernel.tile_regs_acquire()
  ttkernel.fill_tile_init()
  ttkernel.fill_tile(%c0, %zero)
  ttkernel.tile_regs_commit()
  func.return
}

// -----

// What stays: a fill of another value; a zero fill after another compute call of the
// section (the copy wrote DST); a fill of -0.0 (another bit pattern); zero fills in a
// loop with another compute call (its second iteration follows that call). Sections
// nested in a loop are handled too: the first fill there goes.
// CHECK-LABEL: func.func @kept()
// CHECK:      ttkernel.tile_regs_acquire()
// CHECK-NEXT: ttkernel.fill_tile_init()
// CHECK-NEXT: ttkernel.fill_tile(%{{.*}}, %[[ONE:.*]])
// CHECK-NEXT: ttkernel.fill_tile_init()
// CHECK-NEXT: ttkernel.fill_tile(%{{.*}}, %[[ZERO:.*]])
// CHECK-NEXT: ttkernel.tile_regs_commit()
// CHECK-NEXT: ttkernel.tile_regs_acquire()
// CHECK-NEXT: ttkernel.fill_tile_init()
// CHECK-NEXT: ttkernel.fill_tile(%{{.*}}, %[[NEG:.*]])
// CHECK-NEXT: ttkernel.tile_regs_commit()
// CHECK-NEXT: ttkernel.tile_regs_acquire()
// CHECK-NEXT: scf.for
// CHECK-NEXT:   ttkernel.fill_tile_init()
// CHECK-NEXT:   ttkernel.fill_tile(%{{.*}}, %[[ZERO]])
// CHECK-NEXT:   ttkernel.copy_tile_init
// CHECK-NEXT:   ttkernel.copy_tile
// CHECK-NEXT: }
// CHECK-NEXT: ttkernel.tile_regs_commit()
// CHECK-NEXT: scf.for
// CHECK-NEXT:   ttkernel.tile_regs_acquire()
// CHECK-NEXT:   ttkernel.copy_tile_init
// CHECK-NEXT:   ttkernel.copy_tile
// CHECK-NEXT:   ttkernel.tile_regs_commit()
// CHECK-NEXT: }
func.func @kept() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %in = ttkernel.get_compile_time_arg_val(0)
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %zero = arith.constant 0.000000e+00 : f32
  %one = arith.constant 1.000000e+00 : f32
  %neg = arith.constant -0.000000e+00 : f32
  ttkernel.tile_regs_acquire()
  ttkernel.fill_tile_init()
  ttkernel.fill_tile(%c0, %one)
  ttkernel.fill_tile_init()
  ttkernel.fill_tile(%c1, %zero)
  ttkernel.tile_regs_commit()
  ttkernel.tile_regs_acquire()
  ttkernel.fill_tile_init()
  ttkernel.fill_tile(%c0, %neg)
  ttkernel.tile_regs_commit()
  ttkernel.tile_regs_acquire()
  scf.for %i = %c0 to %c2 step %c1 : i32 {
    ttkernel.fill_tile_init()
    ttkernel.fill_tile(%i, %zero)
    ttkernel.copy_tile_init(%in)
    ttkernel.copy_tile(%in, %i, %c1)
  }
  ttkernel.tile_regs_commit()
  scf.for %i = %c0 to %c2 step %c1 : i32 {
    ttkernel.tile_regs_acquire()
    ttkernel.fill_tile_init()
    ttkernel.fill_tile(%i, %zero)
    ttkernel.copy_tile_init(%in)
    ttkernel.copy_tile(%in, %i, %i)
    ttkernel.tile_regs_commit()
  }
  func.return
}

// -----

// Data-movement kernels are not compute kernels: nothing changes.
// CHECK-LABEL: func.func @reader()
// CHECK: ttkernel.noc_async_read_barrier()
func.func @reader() attributes {ttkernel.thread = #ttkernel.thread<reader>} {
  ttkernel.noc_async_read_barrier()
  func.return
}

// -----

// maximum(rowmax(x), 0.0): a MAX reduce into a tile not yet written starts from its
// input, not DST's zeros, so the section's zero fill stays (a SUM reduce's goes).
// CHECK-LABEL: func.func @max_reduce_keeps_its_zero()
// CHECK:      ttkernel.tile_regs_acquire()
// CHECK-NEXT: ttkernel.fill_tile_init()
// CHECK-NEXT: ttkernel.fill_tile(%{{.*}}, %[[ZERO:.*]])
// CHECK-NEXT: ttkernel.reduce_init<max, row>
// CHECK-NEXT: ttkernel.reduce_tile<max, row>
// CHECK-NEXT: ttkernel.tile_regs_commit()
// CHECK-NEXT: ttkernel.tile_regs_acquire()
// CHECK-NEXT: ttkernel.reduce_init<sum, row>
// CHECK-NEXT: ttkernel.reduce_tile<sum, row>
// CHECK-NEXT: ttkernel.tile_regs_commit()
func.func @max_reduce_keeps_its_zero() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %in = ttkernel.get_compile_time_arg_val(0)
  %scaler = ttkernel.get_compile_time_arg_val(1)
  %out = ttkernel.get_compile_time_arg_val(2)
  %c0 = arith.constant 0 : i32
  %zero = arith.constant 0.000000e+00 : f32
  ttkernel.tile_regs_acquire()
  ttkernel.fill_tile_init()
  ttkernel.fill_tile(%c0, %zero)
  ttkernel.reduce_init<max, row>(%in, %scaler, %out)
  ttkernel.reduce_tile<max, row>(%in, %scaler, %c0, %c0, %c0)
  ttkernel.tile_regs_commit()
  ttkernel.tile_regs_acquire()
  ttkernel.fill_tile_init()
  ttkernel.fill_tile(%c0, %zero)
  ttkernel.reduce_init<sum, row>(%in, %scaler, %out)
  ttkernel.reduce_tile<sum, row>(%in, %scaler, %c0, %c0, %c0)
  ttkernel.tile_regs_commit()
  func.return
}
