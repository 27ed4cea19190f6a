// RUN: %ttlang-opt %s --split-input-file -p ttkernel-hoist-cb-pushes | FileCheck %s

// A loop body as d2m-bufferize leaves FlashAttention's: the running sum %l is packed
// first, the accumulator %acc after it, both pushed at the end. %l's push moves up past
// the pop of %l's previous block (the front), the accumulator's section (other CBs, an
// init naming %l) to just after its own section (pack loop, release), and %acc's just
// after %acc's section (past the pop of %l). The pops stay where they are.
// CHECK-LABEL: func.func @carried()
// CHECK:      scf.for
// CHECK-NEXT:   ttkernel.cb_reserve_back(%[[ACC:.*]], %{{.*}})
// CHECK-NEXT:   ttkernel.cb_reserve_back(%[[L:.*]], %{{.*}})
// CHECK-NEXT:   ttkernel.tile_regs_acquire()
// CHECK:        scf.for
// CHECK-NEXT:     ttkernel.pack_tile(%{{.*}}, %[[L]], %{{.*}})
// CHECK-NEXT:   }
// CHECK-NEXT:   ttkernel.tile_regs_release()
// CHECK-NEXT:   ttkernel.cb_push_back(%[[L]], %{{.*}})
// CHECK-NEXT:   ttkernel.tile_regs_acquire()
// CHECK-NEXT:   ttkernel.mm_init(%[[Q:.*]], %[[V:.*]], %[[L]], %{{.*}})
// CHECK:        scf.for
// CHECK-NEXT:     ttkernel.pack_tile(%{{.*}}, %[[ACC]], %{{.*}})
// CHECK-NEXT:   }
// CHECK-NEXT:   ttkernel.tile_regs_release()
// CHECK-NEXT:   ttkernel.cb_push_back(%[[ACC]], %{{.*}})
// CHECK-NEXT:   ttkernel.cb_pop_front(%[[L]], %{{.*}})
// CHECK-NEXT:   ttkernel.cb_pop_front(%[[ACC]], %{{.*}})
// CHECK-NEXT: }
func.func @carried() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %q = ttkernel.get_compile_time_arg_val(0)
  %v = ttkernel.get_compile_time_arg_val(1)
  %l = ttkernel.get_compile_time_arg_val(2)
  %acc = ttkernel.get_compile_time_arg_val(3)
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c8 = arith.constant 8 : i32
  scf.for %n = %c0 to %c4 step %c1 : i32 {
    ttkernel.cb_reserve_back(%acc, %c8)
    ttkernel.cb_reserve_back(%l, %c4)
    ttkernel.tile_regs_acquire()
    ttkernel.tile_regs_commit()
    ttkernel.tile_regs_wait()
    scf.for %i = %c0 to %c4 step %c1 : i32 {
      ttkernel.pack_tile(%i, %l, %i)
    }
    ttkernel.tile_regs_release()
    ttkernel.tile_regs_acquire()
    ttkernel.mm_init(%q, %v, %l, %c0)
    ttkernel.matmul_tiles(%q, %v, %c0, %c0, %c0, %c0)
    ttkernel.tile_regs_commit()
    ttkernel.tile_regs_wait()
    scf.for %i = %c0 to %c8 step %c1 : i32 {
      ttkernel.pack_tile(%i, %acc, %i)
    }
    ttkernel.tile_regs_release()
    ttkernel.cb_pop_front(%l, %c4)
    ttkernel.cb_push_back(%l, %c4)
    ttkernel.cb_push_back(%acc, %c8)
    ttkernel.cb_pop_front(%acc, %c8)
  }
  func.return
}

// -----

// A push stops below a reserve of its CB, and below the definition of its page count;
// a push with nothing naming its CB above it in its block goes to the block's top.
// CHECK-LABEL: func.func @stops()
// CHECK:      ttkernel.cb_reserve_back(%[[A:.*]], %[[C4:.*]])
// CHECK-NEXT: ttkernel.cb_push_back(%[[A]], %[[C4]])
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT: ttkernel.cb_push_back(%[[B:.*]], %[[C2]])
// CHECK-NEXT: ttkernel.tile_regs_acquire()
// CHECK:      scf.for
// CHECK-NEXT:   ttkernel.cb_push_back(%[[B]], %[[C4]])
// CHECK-NEXT:   ttkernel.tile_regs_acquire()
// CHECK-NEXT:   ttkernel.tile_regs_release()
func.func @stops() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %a = ttkernel.get_compile_time_arg_val(0)
  %b = ttkernel.get_compile_time_arg_val(1)
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  ttkernel.cb_reserve_back(%a, %c4)
  %c2 = arith.constant 2 : i32
  ttkernel.tile_regs_acquire()
  ttkernel.tile_regs_release()
  ttkernel.cb_push_back(%b, %c2)
  ttkernel.cb_push_back(%a, %c4)
  scf.for %n = %c0 to %c4 step %c1 : i32 {
    ttkernel.tile_regs_acquire()
    ttkernel.tile_regs_release()
    ttkernel.cb_push_back(%b, %c4)
  }
  func.return
}
