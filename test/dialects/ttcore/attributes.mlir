// Round trip of every ttcore type and attribute, in custom and generic form.
// RUN: %ttlang-opt %s | %ttlang-opt | FileCheck %s
// RUN: %ttlang-opt %s --mlir-print-op-generic | %ttlang-opt | FileCheck %s

// CHECK-LABEL: func.func private @tiles
// CHECK-SAME: (!ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, f32>, !ttcore.tile<32x32, bfp8_b>)
func.func private @tiles(!ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, f32>, !ttcore.tile<32x32, bfp8_b>)

// CHECK-LABEL: func.func private @blocks
// CHECK-SAME: memref<2x4x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>
// CHECK-SAME: memref<1x1x!ttcore.tile<32x32, f32>, #ttcore.memory_space<l1>>
// CHECK-SAME: memref<8x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dst>>
// CHECK-SAME: tensor<3x3x!ttcore.tile<32x32, bf16>>
func.func private @blocks(memref<2x4x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>,
                          memref<1x1x!ttcore.tile<32x32, f32>, #ttcore.memory_space<l1>>,
                          memref<8x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dst>>,
                          tensor<3x3x!ttcore.tile<32x32, bf16>>)

// CHECK: "test.op"() {grid = #ttcore.grid<2x4>, format = #ttcore.data_format<bf16>, space = #ttcore.memory_space<l1>, iterator = #ttcore.iterator_type<reduction>} : () -> ()
"test.op"() {grid = #ttcore.grid<2x4>, format = #ttcore.data_format<bf16>, space = #ttcore.memory_space<l1>, iterator = #ttcore.iterator_type<reduction>} : () -> ()

// CHECK: "test.op"() {device = #ttcore.device<n150, grid = 8x8, cb_l1_bytes = 1396736, max_cbs = 32, dst_tiles = 16x8>} : () -> ()
"test.op"() {device = #ttcore.device<n150, grid = 8x8, cb_l1_bytes = 1396736, max_cbs = 32, dst_tiles = 16x8>} : () -> ()
