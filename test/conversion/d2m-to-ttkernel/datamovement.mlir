// Data-movement threads -> reader/writer kernels; the launch description on the module.
// RUN: %ttlang-opt %s --split-input-file -p convert-d2m-to-ttkernel | FileCheck %s

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<4x6x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x3x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>

// CHECK:      builtin.module attributes {ttlang.program = {name = "copy", grid = #ttcore.grid<2x2>,
// CHECK-SAME: buffers = {{\[}}["src", "input", memref<4x6x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>], ["dst", "output", memref<4x6x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>]],
// CHECK-SAME: cbs = [!d2m.cb<memref<2x3x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>, !d2m.cb<memref<2x3x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>, 3>],
// CHECK-SAME: kernels = {{\[}}["copy_reader", "reader"], ["copy_writer", "writer"]],
// CHECK-SAME: runtime_args = {{\[}}["buffer_address", 0 : i64], ["buffer_address", 1 : i64], ["core_index", 0 : i64], ["core_index", 1 : i64], ["grid_size", 0 : i64], ["grid_size", 1 : i64], ["noc_x", 0 : i64], ["noc_x", 1 : i64], ["noc_y", 0 : i64], ["noc_y", 1 : i64]],
// CHECK-SAME: compute_config = {math_fidelity = "HiFi4"}}}

// The reader: an address generator over `src` from runtime arg 0, a read per tile of
// the block at (core row * 2, 3) under the read's transaction id (1, the thread's first
// read), then the barrier of that id. The block's first tile depends
// on the core: the emulator checks it against `src`'s 4x6 tiles per dimension and
// names the dma_read's line (70) when it is outside.
// CHECK-LABEL: func.func @copy_reader() attributes {ttkernel.thread = #ttkernel.thread<reader>}
// CHECK:      %[[CB:.*]] = ttkernel.get_compile_time_arg_val(0)
// CHECK:      %[[SIX:.*]] = arith.constant 6 : i32
// CHECK-NEXT: %[[ADDR:.*]] = ttkernel.get_arg_val(0)
// CHECK-NEXT: %[[PAGE:.*]] = arith.constant 2048 : i32
// CHECK-NEXT: %[[GEN:.*]] = ttkernel.get_interleaved_addr_gen_fast(%[[ADDR]], %[[PAGE]]) format <bf16> : !ttkernel.interleaved_addr_gen_fast<dram>
// CHECK-NEXT: %[[TRID:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[ROW:.*]] = ttkernel.get_arg_val(2)
// CHECK:      %[[FIRST_ROW:.*]] = arith.muli %[[ROW]], %{{.*}} : i32
// CHECK-NEXT: ttkernel.cb_reserve_back(%[[CB]], %[[SIX]])
// CHECK-NEXT: %[[L1:.*]] = ttkernel.get_write_ptr(%[[CB]])
// CHECK-NEXT: ttkernel.check_tile_block(%[[FIRST_ROW]], %{{.*}}) tensor "src" block [2 : i64, 3 : i64] of [4 : i64, 6 : i64] at "{{.*}}datamovement.mlir:70"
// CHECK-NEXT: ttkernel.noc_async_read_set_trid(%[[TRID]])
// CHECK:      scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK:        scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK-NEXT:     %[[TR:.*]] = arith.addi %[[FIRST_ROW]], %[[R]] : i32
// CHECK-NEXT:     %[[TC:.*]] = arith.addi %{{.*}}, %[[C]] : i32
// CHECK-NEXT:     %[[W:.*]] = arith.constant 6 : i32
// CHECK-NEXT:     %[[PR:.*]] = arith.muli %[[TR]], %[[W]] : i32
// CHECK-NEXT:     %[[PAGE_ID:.*]] = arith.addi %[[PR]], %[[TC]] : i32
// CHECK-NEXT:     %[[BW:.*]] = arith.constant 3 : i32
// CHECK-NEXT:     %[[BR:.*]] = arith.muli %[[R]], %[[BW]] : i32
// CHECK-NEXT:     %[[BT:.*]] = arith.addi %[[BR]], %[[C]] : i32
// CHECK-NEXT:     %[[TS:.*]] = arith.constant 2048 : i32
// CHECK-NEXT:     %[[OFFSET:.*]] = arith.muli %[[BT]], %[[TS]] : i32
// CHECK-NEXT:     %[[AT:.*]] = arith.addi %[[L1]], %[[OFFSET]] : i32
// CHECK-NEXT:     ttkernel.noc_async_read_tile(%[[PAGE_ID]], %[[GEN]], %[[AT]])
// CHECK:      ttkernel.noc_async_read_barrier_with_trid(%[[TRID]])
// CHECK-NEXT: ttkernel.cb_push_back(%[[CB]], %[[SIX]])

// The writer's block is at constant tiles (0, 0), inside `dst`: no run-time check.
// CHECK-LABEL: func.func @copy_writer() attributes {ttkernel.thread = #ttkernel.thread<writer>}
// CHECK-NOT:  ttkernel.check_tile_block
// CHECK:      %[[OUT_CB:.*]] = ttkernel.get_compile_time_arg_val(1)
// CHECK:      %[[ADDR:.*]] = ttkernel.get_arg_val(1)
// CHECK:      %[[GEN:.*]] = ttkernel.get_interleaved_addr_gen_fast(%[[ADDR]], %{{.*}})
// CHECK:      ttkernel.cb_wait_front(%[[OUT_CB]], %{{.*}})
// CHECK-NEXT: %[[L1:.*]] = ttkernel.get_read_ptr(%[[OUT_CB]])
// CHECK:      ttkernel.noc_async_write_tile(%{{.*}}, %[[GEN]], %{{.*}})
// CHECK:      ttkernel.noc_async_write_barrier()
// CHECK-NEXT: ttkernel.cb_pop_front(%[[OUT_CB]], %{{.*}})
func.func @copy(%src: !dram, %dst: !dram) attributes {ttcore.compute_config = {math_fidelity = "HiFi4"}} {
  d2m.generic {grid = #ttcore.grid<2x2>, block_factors = [1, 1], threads = [#d2m.thread<datamovement>, #d2m.thread<datamovement>]} ins(%src : !dram) outs(%dst : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !d2m.cb<!blk, 3>):
    %row = d2m.core_index(0)
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %r = arith.muli %row, %c2 : index
    %blk = d2m.reserve %in_cb : !cb -> !blk
    %tx = d2m.dma_read %src[%r, %c3], %blk : !dram, !blk -> !d2m.mem_tx
    d2m.dma_wait %tx
    d2m.push %in_cb : !cb
  }, {
  ^bb0(%in_cb: !cb, %out_cb: !d2m.cb<!blk, 3>):
    %c0 = arith.constant 0 : index
    %blk = d2m.wait %out_cb : !d2m.cb<!blk, 3> -> !blk
    %tx = d2m.dma_write %blk, %dst[%c0, %c0] : !blk, !dram -> !d2m.mem_tx
    d2m.dma_wait %tx
    d2m.pop %out_cb : !d2m.cb<!blk, 3>
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!blk = memref<1x1x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>

// A run-time branch on the core's column: the comparison moves to i32.
// CHECK-LABEL: func.func @branch_reader()
// CHECK:      %[[COL:.*]] = ttkernel.get_arg_val(2)
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi eq, %[[COL]], %[[ZERO]] : i32
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK:        ttkernel.noc_async_read_tile
// CHECK:      } else {
// CHECK-NEXT: }
func.func @branch(%src: !dram) {
  d2m.generic {grid = #ttcore.grid<1x2>, block_factors = [1, 1], threads = [#d2m.thread<datamovement>]} ins(%src : !dram) outs() {
  ^bb0(%cb: !cb):
    %col = d2m.core_index(1)
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %col, %c0 : index
    scf.if %first {
      %blk = d2m.reserve %cb : !cb -> !blk
      %tx = d2m.dma_read %src[%c0, %c0], %blk : !dram, !blk -> !d2m.mem_tx
      d2m.dma_wait %tx
      d2m.push %cb : !cb
    }
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<1x4x!tile, #ttcore.memory_space<dram>>
!blk = memref<1x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>

// `d2m.dma_write_barrier` is tt-metal's write barrier (the one a `dma_wait` of a
// write gives). Semaphores are ids after the CBs; a multicast goes to the rectangle's cores other
// than the sender: rows * cols minus one when the sender is inside. The rectangle's
// corners are NoC coordinates, looked up in the runtime args: the NoC x of grid column
// c is arg 5 + c, the NoC y of grid row r arg 7 + r (1x2 grid, one buffer).
// CHECK:      ttlang.program = {{{.*}}semaphores = 2 : i64
// CHECK-LABEL: func.func @mcast_reader()
// CHECK:      ttkernel.cb_reserve_back
// CHECK-NEXT: ttkernel.noc_async_write_barrier()
// CHECK-NEXT: %[[READY_ID:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[READY:.*]] = ttkernel.get_semaphore(%[[READY_ID]])
// CHECK-NEXT: ttkernel.noc_semaphore_wait(%[[READY]], %{{.*}})
// CHECK-NEXT: ttkernel.noc_semaphore_set(%[[READY]], %{{.*}})
// CHECK:      %[[SRC:.*]] = ttkernel.get_write_ptr(%{{.*}})
// CHECK-NEXT: %[[DST:.*]] = ttkernel.get_write_ptr(%{{.*}})
// CHECK-NEXT: %[[SIZE:.*]] = arith.constant 4096 : i32
// CHECK:      %[[ROW:.*]] = ttkernel.get_arg_val(1)
// CHECK-NEXT: %[[DROW:.*]] = arith.subi %[[ROW]], %[[Y0:.*]] : i32
// CHECK-NEXT: %[[IN_ROWS:.*]] = arith.cmpi ult, %[[DROW]], %[[H:.*]] : i32
// CHECK-NEXT: %[[COL:.*]] = ttkernel.get_arg_val(2)
// CHECK-NEXT: %[[DCOL:.*]] = arith.subi %[[COL]], %[[X0:.*]] : i32
// CHECK-NEXT: %[[IN_COLS:.*]] = arith.cmpi ult, %[[DCOL]], %[[W:.*]] : i32
// CHECK-NEXT: %[[IN:.*]] = arith.andi %[[IN_ROWS]], %[[IN_COLS]] : i1
// CHECK-NEXT: %[[SELF:.*]] = arith.extui %[[IN]] : i1 to i32
// CHECK-NEXT: %[[CORES:.*]] = arith.muli %[[H]], %[[W]] : i32
// CHECK-NEXT: %[[DESTS:.*]] = arith.subi %[[CORES]], %[[SELF]] : i32
// CHECK-NEXT: %[[Y1P:.*]] = arith.addi %[[Y0]], %[[H]] : i32
// CHECK-NEXT: %[[Y1:.*]] = arith.subi %[[Y1P]], %{{.*}} : i32
// CHECK-NEXT: %[[X1P:.*]] = arith.addi %[[X0]], %[[W]] : i32
// CHECK-NEXT: %[[X1:.*]] = arith.subi %[[X1P]], %{{.*}} : i32
// CHECK-NEXT: %[[XS_AT:.*]] = arith.constant 5 : i32
// CHECK-NEXT: %[[XS_I:.*]] = arith.addi %[[XS_AT]], %[[X0]] : i32
// CHECK-NEXT: %[[NX0:.*]] = ttkernel.get_arg_val_at(%[[XS_I]])
// CHECK-NEXT: %[[XE_AT:.*]] = arith.constant 5 : i32
// CHECK-NEXT: %[[XE_I:.*]] = arith.addi %[[XE_AT]], %[[X1]] : i32
// CHECK-NEXT: %[[NX1:.*]] = ttkernel.get_arg_val_at(%[[XE_I]])
// CHECK-NEXT: %[[YS_AT:.*]] = arith.constant 7 : i32
// CHECK-NEXT: %[[YS_I:.*]] = arith.addi %[[YS_AT]], %[[Y0]] : i32
// CHECK-NEXT: %[[NY0:.*]] = ttkernel.get_arg_val_at(%[[YS_I]])
// CHECK-NEXT: %[[YE_AT:.*]] = arith.constant 7 : i32
// CHECK-NEXT: %[[YE_I:.*]] = arith.addi %[[YE_AT]], %[[Y1]] : i32
// CHECK-NEXT: %[[NY1:.*]] = ttkernel.get_arg_val_at(%[[YE_I]])
// CHECK-NEXT: %[[MCAST:.*]] = ttkernel.get_noc_multicast_addr(%[[NX0]], %[[NY0]], %[[NX1]], %[[NY1]], %[[DST]])
// CHECK-NEXT: ttkernel.noc_async_write_multicast(%[[SRC]], %[[MCAST]], %[[SIZE]], %[[DESTS]]) linked
// CHECK-NEXT: %[[VALID_ID:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[VALID:.*]] = ttkernel.get_semaphore(%[[VALID_ID]])
// CHECK-NEXT: ttkernel.noc_semaphore_set(%[[VALID]], %{{.*}})
// CHECK:      %[[VALID_AT:.*]] = ttkernel.get_noc_multicast_addr(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[VALID]])
// CHECK-NEXT: ttkernel.noc_semaphore_set_multicast(%[[VALID]], %[[VALID_AT]], %{{.*}})
// CHECK-NEXT: ttkernel.noc_async_write_barrier()
// CHECK:      %[[READY2:.*]] = ttkernel.get_semaphore(%{{.*}})
// CHECK:      %[[SX:.*]] = ttkernel.get_arg_val_at(%{{.*}})
// CHECK:      %[[SY:.*]] = ttkernel.get_arg_val_at(%{{.*}})
// CHECK-NEXT: %[[AT:.*]] = ttkernel.get_noc_addr(%[[SX]], %[[SY]], %[[READY2]])
// CHECK-NEXT: ttkernel.noc_semaphore_inc(%[[AT]], %{{.*}})
func.func @mcast(%src: !dram) {
  d2m.generic {grid = #ttcore.grid<1x2>, block_factors = [1, 1], threads = [#d2m.thread<datamovement>]} ins(%src : !dram) outs() {
  ^bb0(%cb: !cb, %ready: !d2m.semaphore, %valid: !d2m.semaphore):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %blk = d2m.reserve %cb : !cb -> !blk
    d2m.dma_write_barrier
    d2m.semaphore_wait %ready, %c1 reset %c0
    %tx = d2m.dma_mcast %blk, %blk core[%c0, %c1] mcast[%c1, %c1] linked : !blk, !blk -> !d2m.mem_tx
    d2m.semaphore_set %valid, %c1 core[%c0, %c1] mcast[%c1, %c1]
    d2m.dma_wait %tx
    d2m.semaphore_inc %ready, %c1 core[%c0, %c0]
    d2m.push %cb : !cb
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x4x!tile, #ttcore.memory_space<dram>>
!blk = memref<1x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>

// The second data-movement thread is the writer, whose NoC (1 on the n150) runs the
// other way: its multicast rectangle starts at the far corner (tt-metal's programs swap
// a NoC 1 rectangle's start and end); the reader's starts at the near one (above).
// CHECK-LABEL: func.func @mcast_both_writer()
// CHECK:      %[[NX0:.*]] = ttkernel.get_arg_val_at(
// CHECK:      %[[NX1:.*]] = ttkernel.get_arg_val_at(
// CHECK:      %[[NY0:.*]] = ttkernel.get_arg_val_at(
// CHECK:      %[[NY1:.*]] = ttkernel.get_arg_val_at(
// CHECK-NEXT: %[[MCAST:.*]] = ttkernel.get_noc_multicast_addr(%[[NX1]], %[[NY1]], %[[NX0]], %[[NY0]], %{{.*}})
// CHECK-NEXT: ttkernel.noc_async_write_multicast(%{{.*}}, %[[MCAST]], %{{.*}}, %{{.*}})
func.func @mcast_both(%src: !dram) {
  d2m.generic {grid = #ttcore.grid<1x2>, block_factors = [1, 1], threads = [#d2m.thread<datamovement>, #d2m.thread<datamovement>]} ins(%src : !dram) outs() {
  ^bb0(%cb: !cb):
    %blk = d2m.reserve %cb : !cb -> !blk
    d2m.push %cb : !cb
  }, {
  ^bb0(%cb: !cb):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %blk = d2m.wait %cb : !cb -> !blk
    %tx = d2m.dma_mcast %blk, %blk core[%c0, %c1] mcast[%c1, %c1] : !blk, !blk -> !d2m.mem_tx
    d2m.dma_wait %tx
    d2m.pop %cb : !cb
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!blk = memref<1x2x3x!tile, #ttcore.memory_space<l1>>
!dram3 = memref<1x4x6x!tile, #ttcore.memory_space<dram>>
!cb = !d2m.cb<!blk>

// Tile rows 1 to 2 of a 1x2x3 block: its read moves one row of three tiles, from DRAM
// row %r + 1 into the L1 block 3 tiles (6144 B) past its start, checked as a 1x1x3
// block; its multicast sends those 6144 B from and to that address.
// CHECK-LABEL: func.func @rows_reader()
// CHECK:      %[[L1:.*]] = ttkernel.get_write_ptr(%{{.*}})
// CHECK-NEXT: %[[OFF:.*]] = arith.constant 6144 : i32
// CHECK-NEXT: %[[AT:.*]] = arith.addi %[[L1]], %[[OFF]] : i32
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[ROW:.*]] = arith.addi %{{.*}}, %[[ONE]] : i32
// CHECK-NEXT: ttkernel.check_tile_block(%{{.*}}, %[[ROW]], %{{.*}}) tensor "src" block [1 : i64, 1 : i64, 3 : i64] of [1 : i64, 4 : i64, 6 : i64]
// CHECK:      scf.for %[[R:.*]] = %{{.*}} to %[[ROWS:.*]] step %{{.*}} : i32 {
// CHECK:        arith.addi %[[ROW]], %{{.*}} : i32
// CHECK:        %[[TILE_AT:.*]] = arith.addi %[[AT]], %{{.*}} : i32
// CHECK-NEXT:   ttkernel.noc_async_read_tile(%{{.*}}, %{{.*}}, %[[TILE_AT]])
// CHECK:      %[[SRC:.*]] = ttkernel.get_write_ptr(%{{.*}})
// CHECK-NEXT: %[[SRC_OFF:.*]] = arith.constant 6144 : i32
// CHECK-NEXT: %[[SRC_AT:.*]] = arith.addi %[[SRC]], %[[SRC_OFF]] : i32
// CHECK-NEXT: %[[DST:.*]] = ttkernel.get_write_ptr(%{{.*}})
// CHECK-NEXT: %[[DST_OFF:.*]] = arith.constant 6144 : i32
// CHECK-NEXT: %[[DST_AT:.*]] = arith.addi %[[DST]], %[[DST_OFF]] : i32
// CHECK-NEXT: %[[SIZE:.*]] = arith.constant 6144 : i32
// CHECK:      %[[MCAST:.*]] = ttkernel.get_noc_multicast_addr(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[DST_AT]])
// CHECK-NEXT: ttkernel.noc_async_write_multicast(%[[SRC_AT]], %[[MCAST]], %[[SIZE]], %{{.*}})
func.func @rows(%src: !dram3) {
  d2m.generic {grid = #ttcore.grid<1x2>, block_factors = [1, 1, 1], threads = [#d2m.thread<datamovement>]} ins(%src : !dram3) outs() {
  ^bb0(%cb: !cb):
    %row = d2m.core_index(0)
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r = arith.muli %row, %c1 : index
    %blk = d2m.reserve %cb : !cb -> !blk
    %tx = d2m.dma_read %src[%c0, %r, %c0], %blk rows(1, 2) : !dram3, !blk -> !d2m.mem_tx
    d2m.dma_wait %tx
    %mc = d2m.dma_mcast %blk, %blk core[%c0, %c1] mcast[%c1, %c1] rows(1, 2) : !blk, !blk -> !d2m.mem_tx
    d2m.dma_wait %mc
    d2m.push %cb : !cb
  }
  return
}
