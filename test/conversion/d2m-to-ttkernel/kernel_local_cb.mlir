// A kernel-local CB (a CB argument after the operands', backed by no tensor) is a CB
// like the operands': its id is its position (after the operand CBs, before the
// compute-local ones), the program lists it with its name, and semaphore ids count
// from the first argument after all the CBs.
// RUN: %ttlang-opt %s -p convert-d2m-to-ttkernel | FileCheck %s

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!blk = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!blk>
!cb1 = !d2m.cb<!blk, 1>

// CHECK:      ttlang.program = {{{.*}}cbs = [!d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>, !d2m.cb<memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>, 1>], cb_names = ["out_cb", "mask_cb"]{{.*}}semaphores = 1 : i64
// CHECK-LABEL: func.func @mask_reader()
// CHECK:      %[[MASK:.*]] = ttkernel.get_compile_time_arg_val(1)
// CHECK:      ttkernel.cb_reserve_back(%[[MASK]], %{{.*}})
// CHECK:      ttkernel.fill_causal_mask_tile
// CHECK:      ttkernel.cb_push_back(%[[MASK]], %{{.*}})
// CHECK:      %[[DONE_ID:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[DONE:.*]] = ttkernel.get_semaphore(%[[DONE_ID]])
// CHECK-LABEL: func.func @mask_writer()
// CHECK:      %[[MASK2:.*]] = ttkernel.get_compile_time_arg_val(1)
// CHECK:      ttkernel.cb_wait_front(%[[MASK2]], %{{.*}})
// CHECK:      ttkernel.noc_async_write
// CHECK:      ttkernel.cb_pop_front(%[[MASK2]], %{{.*}})
func.func @mask(%out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<datamovement>, #d2m.thread<datamovement>]} ins() outs(%out : !dram) {
  ^bb0(%out_cb: !cb, %mask_cb: !cb1, %done: !d2m.semaphore):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %blk = d2m.reserve %mask_cb : !cb1 -> !blk
    d2m.fill_causal_mask %blk, %c0, %c0 : !blk
    d2m.push %mask_cb : !cb1
    d2m.semaphore_inc %done, %c1 core[%c0, %c0]
  }, {
  ^bb0(%out_cb_1: !cb, %mask_cb_1: !cb1, %done_1: !d2m.semaphore):
    %c0 = arith.constant 0 : index
    %blk = d2m.wait %mask_cb_1 : !cb1 -> !blk
    %tx = d2m.dma_write %blk, %out[%c0, %c0] : !blk, !dram -> !d2m.mem_tx
    d2m.dma_wait %tx
    d2m.pop %mask_cb_1 : !cb1
  }
  return
}
