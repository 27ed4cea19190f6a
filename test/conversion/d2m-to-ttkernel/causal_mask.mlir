// d2m.fill_causal_mask -> per tile of the reserved block: its first key column's offset
// from its first query row (col - row + 32 * (tile column - tile row)), the first tile
// of the block holding the same mask (ttkernel.causal_mask_first_tile, in a block 3
// tiles wide); the tile that is its own first is written with
// ttkernel.fill_causal_mask_tile, every other is read from its first through the NoC
// at this core's own coordinates; one read barrier before the push.
// RUN: %ttlang-opt %s -p convert-d2m-to-ttkernel | FileCheck %s

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<4x6x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x3x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>

// CHECK-LABEL: func.func @mask_reader() attributes {ttkernel.thread = #ttkernel.thread<reader>}
// CHECK:      %[[CB:.*]] = ttkernel.get_compile_time_arg_val(0)
// CHECK:      ttkernel.cb_reserve_back(%[[CB]], %{{.*}})
// CHECK-NEXT: %[[L1:.*]] = ttkernel.get_write_ptr(%[[CB]])
// CHECK-NEXT: %[[DIAGONAL:.*]] = arith.subi %[[COL:.*]], %[[ROW:.*]] : i32
// CHECK-NEXT: %[[CORE_COL:.*]] = ttkernel.get_arg_val(2)
// CHECK-NEXT: %[[NOC_X_AT:.*]] = arith.constant 5 : i32
// CHECK-NEXT: %[[NOC_X_ARG:.*]] = arith.addi %[[NOC_X_AT]], %[[CORE_COL]] : i32
// CHECK-NEXT: %[[NOC_X:.*]] = ttkernel.get_arg_val_at(%[[NOC_X_ARG]])
// CHECK-NEXT: %[[CORE_ROW:.*]] = ttkernel.get_arg_val(1)
// CHECK-NEXT: %[[NOC_Y_AT:.*]] = arith.constant 7 : i32
// CHECK-NEXT: %[[NOC_Y_ARG:.*]] = arith.addi %[[NOC_Y_AT]], %[[CORE_ROW]] : i32
// CHECK-NEXT: %[[NOC_Y:.*]] = ttkernel.get_arg_val_at(%[[NOC_Y_ARG]])
// CHECK-NEXT: %[[TILE_BYTES:.*]] = arith.constant 2048 : i32
// CHECK:      scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK:        scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK-NEXT:     %[[TILES_RIGHT:.*]] = arith.subi %[[C]], %[[R]] : i32
// CHECK-NEXT:     %[[WIDTH:.*]] = arith.constant 32 : i32
// CHECK-NEXT:     %[[COLUMNS_RIGHT:.*]] = arith.muli %[[TILES_RIGHT]], %[[WIDTH]] : i32
// CHECK-NEXT:     %[[KEY_OFFSET:.*]] = arith.addi %[[DIAGONAL]], %[[COLUMNS_RIGHT]] : i32
// CHECK-NEXT:     %[[COLS:.*]] = arith.constant 3 : i32
// CHECK-NEXT:     %[[ROW_START:.*]] = arith.muli %[[R]], %[[COLS]] : i32
// CHECK-NEXT:     %[[INDEX:.*]] = arith.addi %[[ROW_START]], %[[C]] : i32
// CHECK-NEXT:     %[[OFFSET:.*]] = arith.muli %[[INDEX]], %[[TILE_BYTES]] : i32
// CHECK-NEXT:     %[[AT:.*]] = arith.addi %[[L1]], %[[OFFSET]] : i32
// CHECK-NEXT:     %[[COLS_ARG:.*]] = arith.constant 3 : i32
// CHECK-NEXT:     %[[FIRST:.*]] = ttkernel.causal_mask_first_tile(%[[KEY_OFFSET]], %[[R]], %[[C]], %[[COLS_ARG]])
// CHECK-NEXT:     %[[IS_FIRST:.*]] = arith.cmpi eq, %[[FIRST]], %[[INDEX]] : i32
// CHECK-NEXT:     scf.if %[[IS_FIRST]] {
// CHECK-NEXT:       ttkernel.fill_causal_mask_tile(%[[AT]], %[[KEY_OFFSET]])
// CHECK-NEXT:     } else {
// CHECK-NEXT:       %[[FROM_OFFSET:.*]] = arith.muli %[[FIRST]], %[[TILE_BYTES]] : i32
// CHECK-NEXT:       %[[FROM:.*]] = arith.addi %[[L1]], %[[FROM_OFFSET]] : i32
// CHECK-NEXT:       %[[NOC_FROM:.*]] = ttkernel.get_noc_addr(%[[NOC_X]], %[[NOC_Y]], %[[FROM]])
// CHECK-NEXT:       ttkernel.noc_async_read(%[[NOC_FROM]], %[[AT]], %[[TILE_BYTES]])
// CHECK-NEXT:     }
// CHECK:      ttkernel.noc_async_read_barrier()
// CHECK-NEXT: ttkernel.cb_push_back(%[[CB]], %{{.*}})
func.func @mask(%mask: !dram) attributes {ttcore.compute_config = {math_fidelity = "HiFi4"}} {
  d2m.generic {grid = #ttcore.grid<2x2>, block_factors = [1, 1], threads = [#d2m.thread<datamovement>]} ins(%mask : !dram) outs() {
  ^bb0(%mask_cb: !cb):
    %row = d2m.core_index(0)
    %col = d2m.core_index(1)
    %c64 = arith.constant 64 : index
    %c96 = arith.constant 96 : index
    %first_row = arith.muli %row, %c64 : index
    %first_col = arith.muli %col, %c96 : index
    %blk = d2m.reserve %mask_cb : !cb -> !blk
    d2m.fill_causal_mask %blk, %first_row, %first_col : !blk
    d2m.push %mask_cb : !cb
  }
  return
}
