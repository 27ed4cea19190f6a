// RUN: %ttlang-opt %s --split-input-file -p ttkernel-sink-cb-waits | FileCheck %s

// The row max of a score block %s onto the running max %m: the wait for %s moves past
// the reserve of another CB, the DST acquire, the copy of %m (another CB) and the
// reduce_init naming %s (an init touches no page), to the loop reading %s's tiles.
// CHECK-LABEL: func.func @past_other_generic_inputs()
// CHECK:      ttkernel.cb_reserve_back(%[[OUT:.*]], %{{.*}})
// CHECK-NEXT: ttkernel.tile_regs_acquire()
// CHECK-NEXT: ttkernel.copy_tile_init(%[[M:.*]])
// CHECK-NEXT: scf.for
// CHECK-NEXT:   ttkernel.copy_tile(%[[M]]
// CHECK-NEXT: }
// CHECK-NEXT: ttkernel.reduce_init<max, row> (%[[S:.*]], %{{.*}}, %[[OUT]])
// CHECK-NEXT: ttkernel.cb_wait_front(%[[S]], %{{.*}})
// CHECK-NEXT: scf.for
// CHECK-NEXT:   ttkernel.reduce_tile<max, row> (%[[S]]
func.func @past_other_generic_inputs() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %s = ttkernel.get_compile_time_arg_val(0)
  %scaler = ttkernel.get_compile_time_arg_val(1)
  %m = ttkernel.get_compile_time_arg_val(2)
  %out = ttkernel.get_compile_time_arg_val(3)
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c32 = arith.constant 32 : i32
  ttkernel.cb_wait_front(%s, %c32)
  ttkernel.cb_reserve_back(%out, %c4)
  ttkernel.tile_regs_acquire()
  ttkernel.copy_tile_init(%m)
  scf.for %i = %c0 to %c4 step %c1 : i32 {
    ttkernel.copy_tile(%m, %i, %i)
  }
  ttkernel.reduce_init<max, row>(%s, %scaler, %out)
  scf.for %i = %c0 to %c32 step %c1 : i32 {
    ttkernel.reduce_tile<max, row>(%s, %scaler, %i, %c0, %c0)
  }
  func.return
}

// -----

// A loop-carried CB %acc waited for at the top of the body: the wait passes the
// reserve of %acc's back (the other end), a data-format reconfiguration naming it and
// the matmul on other CBs, and stops at the first loop reading %acc. The wait for %v
// passes the matmul's init, to the matmul reading %v.
// CHECK-LABEL: func.func @loop_carried()
// CHECK:      scf.for
// CHECK-NEXT:   ttkernel.cb_reserve_back(%[[ACC:.*]], %{{.*}})
// CHECK-NEXT:   ttkernel.reconfig_data_format_srca(%[[ACC]])
// CHECK-NEXT:   ttkernel.mm_init(%[[Q:.*]], %[[V:.*]], %[[Q]], %{{.*}})
// CHECK-NEXT:   ttkernel.cb_wait_front(%[[V]], %{{.*}})
// CHECK-NEXT:   ttkernel.matmul_tiles(
// CHECK-NEXT:   ttkernel.cb_wait_front(%[[ACC]], %{{.*}})
// CHECK-NEXT:   scf.for
// CHECK-NEXT:     ttkernel.copy_tile(%[[ACC]]
// CHECK:        ttkernel.pack_tile(%{{.*}}, %[[ACC]]
// CHECK-NEXT:   ttkernel.cb_pop_front(%[[ACC]]
// CHECK-NEXT:   ttkernel.cb_push_back(%[[ACC]]
// CHECK-NEXT: }
func.func @loop_carried() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %q = ttkernel.get_compile_time_arg_val(0)
  %v = ttkernel.get_compile_time_arg_val(1)
  %acc = ttkernel.get_compile_time_arg_val(2)
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  scf.for %j = %c0 to %c2 step %c1 : i32 {
    ttkernel.cb_wait_front(%acc, %c2)
    ttkernel.cb_wait_front(%v, %c1)
    ttkernel.cb_reserve_back(%acc, %c2)
    ttkernel.reconfig_data_format_srca(%acc)
    ttkernel.mm_init(%q, %v, %q, %c0)
    ttkernel.matmul_tiles(%q, %v, %c0, %c0, %c0, %c0)
    scf.for %i = %c0 to %c2 step %c1 : i32 {
      ttkernel.copy_tile(%acc, %i, %i)
    }
    ttkernel.pack_tile(%c0, %acc, %c0)
    ttkernel.cb_pop_front(%acc, %c2)
    ttkernel.cb_push_back(%acc, %c2)
  }
  func.return
}

// -----

// Where a wait stops: a pack into its CB, a pop of it, a second wait on it (which
// itself moves on, to the loop), an operation naming it through another SSA value of
// the same compile-time argument, a loop using it, and the block's end (it never
// leaves its block).
// CHECK-LABEL: func.func @stops()
// CHECK:      ttkernel.tile_regs_acquire()
// CHECK-NEXT: ttkernel.cb_wait_front(%[[A:.*]], %{{.*}})
// CHECK-NEXT: ttkernel.pack_tile(%{{.*}}, %[[A]]
// CHECK-NEXT: ttkernel.tile_regs_release()
// CHECK-NEXT: ttkernel.cb_wait_front(%[[B:.*]], %{{.*}})
// CHECK-NEXT: ttkernel.cb_pop_front(%[[B]]
// CHECK-NEXT: ttkernel.tile_regs_acquire()
// CHECK-NEXT: ttkernel.cb_wait_front(%[[A]], %[[C1:.*]])
// CHECK-NEXT: ttkernel.tile_regs_release()
// CHECK-NEXT: ttkernel.cb_wait_front(%[[B]],
// CHECK-NEXT: ttkernel.copy_tile(%[[B2:.*]], %
// CHECK-NEXT: ttkernel.cb_wait_front(%[[A]], %[[C2:.*]])
// CHECK-NEXT: scf.for
// CHECK-NEXT:   ttkernel.tile_regs_acquire()
// CHECK-NEXT:   ttkernel.tile_regs_release()
// CHECK-NEXT:   ttkernel.cb_wait_front(%[[A]],
// CHECK-NEXT: }
// CHECK-NEXT: func.return
func.func @stops() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %a = ttkernel.get_compile_time_arg_val(0)
  %b = ttkernel.get_compile_time_arg_val(1)
  %b2 = ttkernel.get_compile_time_arg_val(1)
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  ttkernel.cb_wait_front(%a, %c1)
  ttkernel.tile_regs_acquire()
  ttkernel.pack_tile(%c0, %a, %c0)
  ttkernel.cb_wait_front(%b, %c1)
  ttkernel.tile_regs_release()
  ttkernel.cb_pop_front(%b, %c1)
  ttkernel.cb_wait_front(%a, %c1)
  ttkernel.tile_regs_acquire()
  ttkernel.cb_wait_front(%a, %c2)
  ttkernel.cb_wait_front(%b, %c1)
  ttkernel.tile_regs_release()
  ttkernel.copy_tile(%b2, %c0, %c0)
  scf.for %j = %c0 to %c2 step %c1 : i32 {
    ttkernel.cb_wait_front(%a, %c1)
    ttkernel.tile_regs_acquire()
    ttkernel.tile_regs_release()
  }
  func.return
}

// -----

// Data-movement kernels keep their waits where they are.
// CHECK-LABEL: func.func @writer()
// CHECK-NEXT: ttkernel.get_compile_time_arg_val(0)
// CHECK-NEXT: arith.constant
// CHECK-NEXT: ttkernel.cb_wait_front
// CHECK-NEXT: ttkernel.noc_async_write_barrier()
func.func @writer() attributes {ttkernel.thread = #ttkernel.thread<writer>} {
  %out = ttkernel.get_compile_time_arg_val(0)
  %c1 = arith.constant 1 : i32
  ttkernel.cb_wait_front(%out, %c1)
  ttkernel.noc_async_write_barrier()
  ttkernel.cb_pop_front(%out, %c1)
  func.return
}
