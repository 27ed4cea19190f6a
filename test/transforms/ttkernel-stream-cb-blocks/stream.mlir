// RUN: %ttlang-opt %s --split-input-file -p ttkernel-stream-cb-blocks | FileCheck %s

// An output block of 4x2 bf16 tiles (2 KiB pages), packed a tile row (a DST section) per
// iteration of the subblock loop and written by the writer a tile row at a time: the
// compute kernel pushes each row after its section (its packs rebased on the moved write
// pointer), the writer waits for the first row before the loop and for row r's pages at
// the top of iteration r. The loop of one trip around the writer's row loop stands for it.
// CHECK-LABEL: func.func @compute()
// CHECK:      ttkernel.cb_reserve_back(%[[OUT:.*]], %{{.*}})
// CHECK-NEXT: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK:        scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK:          %[[PAGE:.*]] = arith.addi %{{.*}}, %[[J]] : i32
// CHECK-NEXT:     %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-NEXT:     %[[OFF:.*]] = arith.muli %[[R]], %[[TWO]] : i32
// CHECK-NEXT:     %[[REBASED:.*]] = arith.subi %[[PAGE]], %[[OFF]] : i32
// CHECK-NEXT:     ttkernel.pack_tile(%[[J]], %[[OUT]], %[[REBASED]])
// CHECK-NEXT:   }
// CHECK-NEXT:   ttkernel.tile_regs_release()
// CHECK-NEXT:   %[[PIECE:.*]] = arith.constant 2 : i32
// CHECK-NEXT:   ttkernel.cb_push_back(%[[OUT]], %[[PIECE]])
// CHECK-NEXT: }
// CHECK-NOT:  ttkernel.cb_push_back
// CHECK-LABEL: func.func @writer()
// CHECK:      ttkernel.get_interleaved_addr_gen_fast
// CHECK-NEXT: %[[FIRST:.*]] = arith.constant 2 : i32
// CHECK-NEXT: ttkernel.cb_wait_front(%[[WOUT:.*]], %[[FIRST]])
// CHECK-NEXT: %[[PTR:.*]] = ttkernel.get_read_ptr(%[[WOUT]])
// CHECK:      scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK-NEXT:   scf.for %[[WR:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK-NEXT:     %[[PER_ROW:.*]] = arith.constant 2 : i32
// CHECK-NEXT:     %[[PIECE2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:     %[[DONE:.*]] = arith.muli %[[WR]], %[[PER_ROW]] : i32
// CHECK-NEXT:     %[[UPTO:.*]] = arith.addi %[[DONE]], %[[PIECE2]] : i32
// CHECK-NEXT:     ttkernel.cb_wait_front(%[[WOUT]], %[[UPTO]])
// CHECK:            ttkernel.noc_async_write_tile
// CHECK:      ttkernel.noc_async_write_barrier()
// CHECK-NEXT: ttkernel.cb_pop_front(%[[WOUT]], %{{.*}})
!blk = memref<4x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
builtin.module attributes {ttlang.program = {cbs = [!d2m.cb<!blk>]}} {
  func.func @compute() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
    %out = ttkernel.get_compile_time_arg_val(0)
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c4 = arith.constant 4 : i32
    %c8 = arith.constant 8 : i32
    ttkernel.cb_reserve_back(%out, %c8)
    scf.for %r = %c0 to %c4 step %c1 : i32 {
      ttkernel.tile_regs_acquire()
      ttkernel.tile_regs_commit()
      ttkernel.tile_regs_wait()
      scf.for %j = %c0 to %c2 step %c1 : i32 {
        %row = arith.muli %r, %c2 : i32
        %page = arith.addi %row, %j : i32
        ttkernel.pack_tile(%j, %out, %page)
      }
      ttkernel.tile_regs_release()
    }
    ttkernel.cb_push_back(%out, %c8)
    func.return
  }
  func.func @writer() attributes {ttkernel.thread = #ttkernel.thread<writer>} {
    %out = ttkernel.get_compile_time_arg_val(0)
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c4 = arith.constant 4 : i32
    %c8 = arith.constant 8 : i32
    %c2048 = arith.constant 2048 : i32
    %addr = ttkernel.get_arg_val(0)
    %pages = ttkernel.get_interleaved_addr_gen_fast(%addr, %c2048) format <bf16> : !ttkernel.interleaved_addr_gen_fast<dram>
    ttkernel.cb_wait_front(%out, %c8)
    %ptr = ttkernel.get_read_ptr(%out)
    scf.for %t = %c0 to %c1 step %c1 : i32 {
      scf.for %r = %c0 to %c4 step %c1 : i32 {
        scf.for %j = %c0 to %c2 step %c1 : i32 {
          %block = arith.muli %t, %c8 : i32
          %row = arith.muli %r, %c2 : i32
          %in_block = arith.addi %row, %j : i32
          %page = arith.addi %block, %in_block : i32
          %bytes = arith.muli %page, %c2048 : i32
          %l1 = arith.addi %ptr, %bytes : i32
          ttkernel.noc_async_write_tile(%page, %pages, %l1) : !ttkernel.interleaved_addr_gen_fast<dram>
        }
      }
    }
    ttkernel.noc_async_write_barrier()
    ttkernel.cb_pop_front(%out, %c8)
    func.return
  }
}

// -----

// Left as they are: each iteration packs a tile column (pages j * 4 + r, not one piece
// of consecutive pages), and the writer reads a column per iteration likewise.
// CHECK-LABEL: func.func @columns()
// CHECK:      scf.for
// CHECK:        ttkernel.pack_tile(%{{.*}}, %[[OUT:.*]], %{{.*}})
// CHECK:      ttkernel.tile_regs_release()
// CHECK-NEXT: }
// CHECK-NEXT: ttkernel.cb_push_back(%[[OUT]], %{{.*}})
// CHECK-LABEL: func.func @column_writer()
// CHECK:      ttkernel.cb_wait_front(%{{.*}}, %[[ALL:.*]])
// CHECK-NOT:  ttkernel.cb_wait_front
!blk = memref<2x4x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
builtin.module attributes {ttlang.program = {cbs = [!d2m.cb<!blk>]}} {
  func.func @columns() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
    %out = ttkernel.get_compile_time_arg_val(0)
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c4 = arith.constant 4 : i32
    %c8 = arith.constant 8 : i32
    ttkernel.cb_reserve_back(%out, %c8)
    scf.for %r = %c0 to %c4 step %c1 : i32 {
      ttkernel.tile_regs_acquire()
      ttkernel.tile_regs_commit()
      ttkernel.tile_regs_wait()
      scf.for %j = %c0 to %c2 step %c1 : i32 {
        %col = arith.muli %j, %c4 : i32
        %page = arith.addi %col, %r : i32
        ttkernel.pack_tile(%j, %out, %page)
      }
      ttkernel.tile_regs_release()
    }
    ttkernel.cb_push_back(%out, %c8)
    func.return
  }
  func.func @column_writer() attributes {ttkernel.thread = #ttkernel.thread<writer>} {
    %out = ttkernel.get_compile_time_arg_val(0)
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c4 = arith.constant 4 : i32
    %c8 = arith.constant 8 : i32
    %c2048 = arith.constant 2048 : i32
    %addr = ttkernel.get_arg_val(0)
    %pages = ttkernel.get_interleaved_addr_gen_fast(%addr, %c2048) format <bf16> : !ttkernel.interleaved_addr_gen_fast<dram>
    ttkernel.cb_wait_front(%out, %c8)
    %ptr = ttkernel.get_read_ptr(%out)
    scf.for %r = %c0 to %c4 step %c1 : i32 {
      scf.for %j = %c0 to %c2 step %c1 : i32 {
        %col = arith.muli %j, %c4 : i32
        %page = arith.addi %col, %r : i32
        %bytes = arith.muli %page, %c2048 : i32
        %l1 = arith.addi %ptr, %bytes : i32
        ttkernel.noc_async_write_tile(%page, %pages, %l1) : !ttkernel.interleaved_addr_gen_fast<dram>
      }
    }
    ttkernel.noc_async_write_barrier()
    ttkernel.cb_pop_front(%out, %c8)
    func.return
  }
}

// -----

// Left as they are: a pack under an scf.if (the iteration may not pack its piece), and
// a block only the compute kernel reads (%tmp: no data-movement kernel waits for it,
// nothing to gain from publishing it sooner).
// CHECK-LABEL: func.func @guarded(
// CHECK:      scf.if
// CHECK:      ttkernel.cb_push_back(%[[OUT:.*]], %{{.*}})
// CHECK:      scf.for
// CHECK:      ttkernel.cb_push_back(%[[TMP:.*]], %{{.*}})
// CHECK-NEXT: ttkernel.cb_wait_front(%[[TMP]], %{{.*}})
!blk = memref<2x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
builtin.module attributes {ttlang.program = {cbs = [!d2m.cb<!blk>, !d2m.cb<!blk>]}} {
  func.func @guarded(%go: i1) attributes {ttkernel.thread = #ttkernel.thread<compute>} {
    %out = ttkernel.get_compile_time_arg_val(0)
    %tmp = ttkernel.get_compile_time_arg_val(1)
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    ttkernel.cb_reserve_back(%out, %c2)
    scf.for %r = %c0 to %c2 step %c1 : i32 {
      scf.if %go {
        ttkernel.pack_tile(%c0, %out, %r)
      }
    }
    ttkernel.cb_push_back(%out, %c2)
    ttkernel.cb_reserve_back(%tmp, %c2)
    scf.for %r = %c0 to %c2 step %c1 : i32 {
      ttkernel.pack_tile(%c0, %tmp, %r)
    }
    ttkernel.cb_push_back(%tmp, %c2)
    ttkernel.cb_wait_front(%tmp, %c2)
    ttkernel.cb_pop_front(%tmp, %c2)
    func.return
  }
  func.func @writer() attributes {ttkernel.thread = #ttkernel.thread<writer>} {
    %out = ttkernel.get_compile_time_arg_val(0)
    %c2 = arith.constant 2 : i32
    ttkernel.cb_wait_front(%out, %c2)
    ttkernel.cb_pop_front(%out, %c2)
    func.return
  }
}

// -----

// A subblock loop stepping by its subblock's two tile rows (pages 2 * r + j, 4 a
// section): the push goes into the loop, 4 pages an iteration, each pack's page rebased
// by the pages of the iterations before it (r steps 2 rows: (r - 0) * 2).
// CHECK-LABEL: func.func @two_rows()
// CHECK:      scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK:          %[[PER_ROW:.*]] = arith.constant 2 : i32
// CHECK-NEXT:     %[[OFF:.*]] = arith.muli %[[R]], %[[PER_ROW]] : i32
// CHECK-NEXT:     %[[REBASED:.*]] = arith.subi %{{.*}}, %[[OFF]] : i32
// CHECK-NEXT:     ttkernel.pack_tile(%{{.*}}, %[[OUT:.*]], %[[REBASED]])
// CHECK:        ttkernel.tile_regs_release()
// CHECK-NEXT:   %[[PIECE:.*]] = arith.constant 4 : i32
// CHECK-NEXT:   ttkernel.cb_push_back(%[[OUT]], %[[PIECE]])
// CHECK-NEXT: }
// CHECK-NEXT: func.return
!blk = memref<4x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
builtin.module attributes {ttlang.program = {cbs = [!d2m.cb<!blk>]}} {
  func.func @two_rows() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
    %out = ttkernel.get_compile_time_arg_val(0)
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c4 = arith.constant 4 : i32
    %c8 = arith.constant 8 : i32
    ttkernel.cb_reserve_back(%out, %c8)
    scf.for %r = %c0 to %c4 step %c2 : i32 {
      ttkernel.tile_regs_acquire()
      ttkernel.tile_regs_commit()
      ttkernel.tile_regs_wait()
      scf.for %j = %c0 to %c4 step %c1 : i32 {
        %row = arith.muli %r, %c2 : i32
        %page = arith.addi %row, %j : i32
        ttkernel.pack_tile(%j, %out, %page)
      }
      ttkernel.tile_regs_release()
    }
    ttkernel.cb_push_back(%out, %c8)
    func.return
  }
  func.func @writer() attributes {ttkernel.thread = #ttkernel.thread<writer>} {
    %out = ttkernel.get_compile_time_arg_val(0)
    %c8 = arith.constant 8 : i32
    ttkernel.cb_wait_front(%out, %c8)
    ttkernel.cb_pop_front(%out, %c8)
    func.return
  }
}
