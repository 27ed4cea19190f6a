// Round trip of the DST register ops and compute-local CBs, in custom and generic form.
// RUN: %ttlang-opt %s | %ttlang-opt | FileCheck %s
// RUN: %ttlang-opt %s --mlir-print-op-generic | %ttlang-opt | FileCheck %s

!tile = !ttcore.tile<32x32, bf16>
!dst = memref<8x!tile, #ttcore.memory_space<dst>>

// CHECK-LABEL: func.func @dst_section
// CHECK-NEXT: %[[DST:.*]] = d2m.acquire_dst : memref<8x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dst>>
// CHECK-NEXT: d2m.commit_dst %[[DST]] : memref<8x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dst>>
// CHECK-NEXT: d2m.wait_dst %[[DST]] : memref<8x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dst>>
// CHECK-NEXT: d2m.release_dst %[[DST]] : memref<8x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dst>>
// CHECK-NEXT: %[[CB:.*]] = d2m.local_cb : !d2m.cb<memref<1x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>, 1>
// CHECK-NEXT: %{{.*}} = d2m.reserve %[[CB]] : !d2m.cb<memref<1x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>, 1> -> memref<1x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
// CHECK-NEXT: func.return
func.func @dst_section() {
  %dst = d2m.acquire_dst : !dst
  d2m.commit_dst %dst : !dst
  d2m.wait_dst %dst : !dst
  d2m.release_dst %dst : !dst
  %cb = d2m.local_cb : !d2m.cb<memref<1x2x!tile, #ttcore.memory_space<l1>>, 1>
  %blk = d2m.reserve %cb : !d2m.cb<memref<1x2x!tile, #ttcore.memory_space<l1>>, 1> -> memref<1x2x!tile, #ttcore.memory_space<l1>>
  return
}

// CHECK-LABEL: func.func @copy_and_spill
// CHECK-NEXT: %[[C:.*]] = d2m.tile_copy %t : !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %{{.*}}, %{{.*}} = d2m.dst_spill %cb, %t, %[[C]] : !d2m.cb<memref<2x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>, 1>, !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>
func.func @copy_and_spill(%t: !tile, %cb: !d2m.cb<memref<2x1x!tile, #ttcore.memory_space<l1>>, 1>) {
  %c = d2m.tile_copy %t : !tile
  %s:2 = d2m.dst_spill %cb, %t, %c : !d2m.cb<memref<2x1x!tile, #ttcore.memory_space<l1>>, 1>, !tile, !tile -> !tile, !tile
  return
}
