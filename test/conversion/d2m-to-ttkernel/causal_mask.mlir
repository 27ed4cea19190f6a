// d2m.fill_causal_mask -> one ttkernel.fill_causal_mask_tile per tile of the reserved
// block, at the tile's L1 address, with its first key column's offset from its first
// query row: col - row + 32 * (tile column - tile row).
// RUN: %ttlang-opt %s -p convert-d2m-to-ttkernel | FileCheck %s

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<4x4x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>

// CHECK-LABEL: func.func @mask_reader() attributes {ttkernel.thread = #ttkernel.thread<reader>}
// CHECK:      %[[CB:.*]] = ttkernel.get_compile_time_arg_val(0)
// CHECK:      ttkernel.cb_reserve_back(%[[CB]], %{{.*}})
// CHECK-NEXT: %[[L1:.*]] = ttkernel.get_write_ptr(%[[CB]])
// CHECK-NEXT: %[[DIAGONAL:.*]] = arith.subi %[[COL:.*]], %[[ROW:.*]] : i32
// CHECK:      scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK:        scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK-NEXT:     %[[TILES_RIGHT:.*]] = arith.subi %[[C]], %[[R]] : i32
// CHECK-NEXT:     %[[WIDTH:.*]] = arith.constant 32 : i32
// CHECK-NEXT:     %[[COLUMNS_RIGHT:.*]] = arith.muli %[[TILES_RIGHT]], %[[WIDTH]] : i32
// CHECK-NEXT:     %[[KEY_OFFSET:.*]] = arith.addi %[[DIAGONAL]], %[[COLUMNS_RIGHT]] : i32
// CHECK:          %[[TILE_BYTES:.*]] = arith.constant 2048 : i32
// CHECK-NEXT:     %[[OFFSET:.*]] = arith.muli %{{.*}}, %[[TILE_BYTES]] : i32
// CHECK-NEXT:     %[[AT:.*]] = arith.addi %[[L1]], %[[OFFSET]] : i32
// CHECK-NEXT:     ttkernel.fill_causal_mask_tile(%[[AT]], %[[KEY_OFFSET]])
// CHECK:      ttkernel.cb_push_back(%[[CB]], %{{.*}})
func.func @mask(%mask: !dram) attributes {ttcore.compute_config = {math_fidelity = "HiFi4"}} {
  d2m.generic {grid = #ttcore.grid<2x2>, block_factors = [1, 1], threads = [#d2m.thread<datamovement>]} ins(%mask : !dram) outs() {
  ^bb0(%mask_cb: !cb):
    %row = d2m.core_index(0)
    %col = d2m.core_index(1)
    %c64 = arith.constant 64 : index
    %first_row = arith.muli %row, %c64 : index
    %first_col = arith.muli %col, %c64 : index
    %blk = d2m.reserve %mask_cb : !cb -> !blk
    d2m.fill_causal_mask %blk, %first_row, %first_col : !blk
    d2m.push %mask_cb : !cb
  }
  return
}
