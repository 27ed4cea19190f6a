// d2m.block_view: tile rows of a waited-for block, on tensors and on L1 memrefs;
// it prints and parses back, in the custom and the generic form.
// RUN: %ttlang-opt %s | %ttlang-opt | FileCheck %s
// RUN: %ttlang-opt %s --mlir-print-op-generic | %ttlang-opt | FileCheck %s

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<1x8x2x!tile, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<1x8x2x!tile, #ttcore.memory_space<l1>>>
!l1 = memref<1x8x2x!tile, #ttcore.memory_space<l1>>

// CHECK-LABEL: func.func @views
// CHECK:      %[[K:.*]] = d2m.wait %{{.*}} : !d2m.cb<{{.*}}> -> tensor<1x8x2x!ttcore.tile<32x32, bf16>>
// CHECK-NEXT: d2m.block_view %[[K]] rows(0, 4) : tensor<1x8x2x!ttcore.tile<32x32, bf16>> -> tensor<1x4x2x!ttcore.tile<32x32, bf16>>
// CHECK:      %[[B:.*]] = d2m.wait %{{.*}} : !d2m.cb<{{.*}}> -> memref<1x8x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
// CHECK-NEXT: d2m.block_view %[[B]] rows(7, 8) : memref<1x8x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>> -> memref<1x1x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
func.func @views(%k: !dram, %b: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1, 1], threads = [#d2m.thread<compute>]} ins(%k, %b : !dram, !dram) outs() {
  ^bb0(%k_cb: !cb, %b_cb: !cb):
    %kt = d2m.wait %k_cb : !cb -> tensor<1x8x2x!tile>
    %first = d2m.block_view %kt rows(0, 4) : tensor<1x8x2x!tile> -> tensor<1x4x2x!tile>
    %bm = d2m.wait %b_cb : !cb -> !l1
    %last = d2m.block_view %bm rows(7, 8) : !l1 -> memref<1x1x2x!tile, #ttcore.memory_space<l1>>
    d2m.pop %b_cb : !cb
    d2m.pop %k_cb : !cb
  }
  return
}
