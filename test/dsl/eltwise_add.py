# RUN: %python %s | FileCheck %s
# The frontend IR of the eltwise add kernel (ARCHITECTURE section 2): a func over DRAM
# memrefs of tiles holding one d2m.generic, threads in Program order.

from ttlang import CircularBuffer, Program, TensorAccessor, TensorSpec, compute, datamovement, dma, pykernel_gen


@pykernel_gen(grid=(1, 1), block_factors=[(1, 1), (1, 1), (1, 1)])
def add(lhs, rhs, out):
    lhs_acc, rhs_acc = TensorAccessor(lhs), TensorAccessor(rhs)
    out_acc = TensorAccessor(out)

    @compute()
    def add_compute(lhs_cb: CircularBuffer, rhs_cb: CircularBuffer, out_cb: CircularBuffer):
        l = lhs_cb.wait(); r = rhs_cb.wait(); o = out_cb.reserve()
        o.store(l + r)
        lhs_cb.pop(); rhs_cb.pop(); out_cb.push()

    @datamovement()
    def reader(lhs_cb: CircularBuffer, rhs_cb: CircularBuffer, out_cb: CircularBuffer):
        blk = lhs_cb.reserve(); dma(lhs_acc[0, 0], blk).wait(); lhs_cb.push()
        blk = rhs_cb.reserve(); dma(rhs_acc[0, 0], blk).wait(); rhs_cb.push()

    @datamovement()
    def writer(lhs_cb: CircularBuffer, rhs_cb: CircularBuffer, out_cb: CircularBuffer):
        blk = out_cb.wait(); dma(blk, out_acc[0, 0]).wait(); out_cb.pop()

    return Program(add_compute, reader, writer)(lhs, rhs, out)


tile = TensorSpec((32, 32))
print(add.frontend_module(tile, tile, tile))

# CHECK-LABEL: func.func @add(
# CHECK-SAME: %lhs: memref<1x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>
# CHECK-SAME: %out: memref<1x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>)
# CHECK-SAME: ttcore.compute_config = {math_fidelity = "HiFi2", fp32_dest_acc_en = false, math_approx_mode = false, dst_full_sync_en = false}
# CHECK: d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>, #d2m.thread<datamovement>, #d2m.thread<datamovement>]}
# CHECK-SAME: ins(%lhs, %rhs : {{.*}}) outs(%out : {{.*}})

# The compute thread: waits, one linalg.generic with a d2m.tile_add body, store, pops.
# CHECK-NEXT: ^bb0(%lhs_cb: !d2m.cb<memref<1x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>, %rhs_cb: {{.*}}, %out_cb: {{.*}}):
# CHECK-NEXT: %l = d2m.wait %lhs_cb : {{.*}} -> tensor<1x1x!ttcore.tile<32x32, bf16>>
# CHECK-NEXT: %r = d2m.wait %rhs_cb
# CHECK-NEXT: %o = d2m.reserve %out_cb : {{.*}} -> tensor<1x1x!ttcore.tile<32x32, bf16>>
# CHECK-NEXT: %[[INIT:.*]] = tensor.empty() : tensor<1x1x!ttcore.tile<32x32, bf16>>
# CHECK-NEXT: %[[SUM:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%l, %r : {{.*}}) outs(%[[INIT]] : {{.*}})
# CHECK-NEXT: ^bb0(%[[A:.*]]: !ttcore.tile<32x32, bf16>, %[[B:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
# CHECK-NEXT: %[[T:.*]] = d2m.tile_add %[[A]], %[[B]] : !ttcore.tile<32x32, bf16>
# CHECK-NEXT: linalg.yield %[[T]]
# CHECK: d2m.store %o, %[[SUM]]
# CHECK-NEXT: d2m.pop %lhs_cb
# CHECK-NEXT: d2m.pop %rhs_cb
# CHECK-NEXT: d2m.push %out_cb

# The reader: reserve an L1 block, DMA tile (0, 0) of lhs into it, wait, push.
# CHECK: ^bb{{.*}}(%lhs_cb_1: !d2m.cb
# CHECK-NEXT: %blk = d2m.reserve %lhs_cb_1 : {{.*}} -> memref<1x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
# CHECK-NEXT: %[[I:.*]] = arith.constant 0 : index
# CHECK-NEXT: %[[J:.*]] = arith.constant 0 : index
# CHECK-NEXT: %[[TX:.*]] = d2m.dma_read %lhs[%[[I]], %[[J]]], %blk
# CHECK-NEXT: d2m.dma_wait %[[TX]]
# CHECK-NEXT: d2m.push %lhs_cb_1
# CHECK: d2m.dma_read %rhs

# The writer: wait for the sum, DMA it to out, pop.
# CHECK: %blk_2 = d2m.wait %out_cb_2 : {{.*}} -> memref<1x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
# CHECK: %[[WTX:.*]] = d2m.dma_write %blk_2, %out[
# CHECK-NEXT: d2m.dma_wait %[[WTX]]
# CHECK-NEXT: d2m.pop %out_cb_2
# CHECK: func.return
