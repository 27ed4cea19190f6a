# RUN: %python %s | FileCheck %s
# Data movement: accessor indices and slices over every tensor dim (batch dims kept)
# become tile offsets; the block shape comes from the CB. Multicast and semaphores map
# to the d2m ops; Semaphore parameters follow the CircularBuffers.

from ttlang import (
    CircularBuffer,
    Program,
    Semaphore,
    TensorAccessor,
    TensorSpec,
    core_index,
    datamovement,
    dma,
    pykernel_gen,
)


@pykernel_gen(grid=(1, 4), block_factors=[(1, 2, 2), (1, 2, 2)], cb_buffers=[2, 3])
def broadcast_heads(x, out):
    x_acc, out_acc = TensorAccessor(x), TensorAccessor(out)
    heads = x.shape[0]
    receivers = 3

    @datamovement()
    def reader(x_cb: CircularBuffer, out_cb: CircularBuffer, ready: Semaphore, done: Semaphore):
        col = core_index(1)
        for bh in range(heads):
            with x_cb.reserve() as blk:
                if col == 0:
                    dma(x_acc[bh, 0:2, :], blk).wait()
                    ready.wait(receivers, reset=0)
                    dma(blk, blk, core=(0, 1), mcast=(1, receivers)).wait()
                    done.set(1, core=(0, 1), mcast=(1, receivers))
                else:
                    ready.inc(1, core=(0, 0))
                    done.wait(1, reset=0)

    @datamovement()
    def writer(x_cb: CircularBuffer, out_cb: CircularBuffer, ready: Semaphore, done: Semaphore):
        i = core_index(1)
        for bh in range(heads):
            with x_cb.wait() as blk:
                dma(blk, out_acc[bh, i * 2 : (i + 1) * 2, :]).wait()

    return Program(reader, writer)(x, out)


print(broadcast_heads.frontend_module(TensorSpec((2, 64, 64)), TensorSpec((2, 256, 64))))

# CHECK-LABEL: func.func @broadcast_heads(
# CHECK-SAME: %x: memref<2x2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>
# CHECK-SAME: %out: memref<2x8x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>
# CHECK: d2m.generic {grid = #ttcore.grid<1x4>, block_factors = [1, 1], threads = [#d2m.thread<datamovement>, #d2m.thread<datamovement>]}

# CBs of 1x2x2-tile blocks (the out CB holds 3), then the two semaphores.
# CHECK-NEXT: ^bb0(%x_cb: !d2m.cb<memref<1x2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>, %out_cb: !d2m.cb<memref<1x2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>, 3>, %ready: !d2m.semaphore, %done: !d2m.semaphore):
# CHECK-NEXT: %col = d2m.core_index(1)
# CHECK: scf.for %bh = %{{.*}} to %{{.*}} step %{{.*}} {
# CHECK-NEXT: %blk = d2m.reserve %x_cb
# CHECK: %[[FIRST:.*]] = arith.cmpi eq, %col, %{{.*}} : index
# CHECK-NEXT: scf.if %[[FIRST]] {

# x_acc[bh, 0:2, :]: offsets (bh, 0, 0); the CB block gives the extent.
# CHECK-NEXT: %[[ROW0:.*]] = arith.constant 0 : index
# CHECK-NEXT: %[[COL0:.*]] = arith.constant 0 : index
# CHECK-NEXT: %[[RD:.*]] = d2m.dma_read %x[%bh, %[[ROW0]], %[[COL0]]], %blk : memref<2x2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>, memref<1x2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>> -> !d2m.mem_tx
# CHECK-NEXT: d2m.dma_wait %[[RD]]
# CHECK-NEXT: %[[THREE:.*]] = arith.constant 3 : index
# CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : index
# CHECK-NEXT: d2m.semaphore_wait %ready, %[[THREE]] reset %[[ZERO]]
# CHECK: %[[MC:.*]] = d2m.dma_mcast %blk, %blk core[%{{.*}}, %{{.*}}] mcast[%{{.*}}, %{{.*}}]
# CHECK-NEXT: d2m.dma_wait %[[MC]]
# CHECK: d2m.semaphore_set %done, %{{.*}} core[%{{.*}}, %{{.*}}] mcast[%{{.*}}, %{{.*}}]
# CHECK-NEXT: } else {
# CHECK: d2m.semaphore_inc %ready, %{{.*}} core[%{{.*}}, %{{.*}}]
# CHECK: d2m.semaphore_wait %done, %{{.*}} reset %{{.*}}
# CHECK-NEXT: }
# CHECK-NEXT: d2m.push %x_cb

# out_acc[bh, i*2:(i+1)*2, :]: the slice start is a run-time tile offset.
# CHECK: %i = d2m.core_index(1)
# CHECK: scf.for %bh_1 =
# CHECK-NEXT: %blk_1 = d2m.wait %x_cb_1
# CHECK-NEXT: %[[TWO:.*]] = arith.constant 2 : index
# CHECK-NEXT: %[[START:.*]] = arith.muli %i, %[[TWO]] : index
# CHECK: %[[WR:.*]] = d2m.dma_write %blk_1, %out[%bh_1, %[[START]], %{{.*}}] : memref<1x2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>, memref<2x8x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<dram>>
# CHECK-NEXT: d2m.dma_wait %[[WR]]
# CHECK-NEXT: d2m.pop %x_cb_1
