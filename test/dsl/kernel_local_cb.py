# RUN: %python %s | FileCheck %s
# A kernel-local CB, `CircularBuffer(shape, dtype, buffer_factor)` in the kernel
# function, is a block argument of every thread region after the tensors' CBs and
# before the semaphores, named after its variable; its block is `shape` in tiles, of
# `dtype`'s tiles, holding `buffer_factor` blocks. Threads name it as they name
# accessors: from the kernel function's scope, or through a helper.

import torch

from ttlang import (
    CircularBuffer,
    Program,
    Semaphore,
    TensorAccessor,
    TensorSpec,
    compute,
    datamovement,
    dma,
    fill_causal_mask,
    pykernel_gen,
)


def masked_by(cb, x):
    """A helper taking a kernel-local CB as an argument."""
    with cb.wait() as m:
        return x + m


@pykernel_gen(grid=(1, 1), block_factors=[(2, 2), (2, 2)])
def masked(x, out):
    mask_cb = CircularBuffer((64, 64), buffer_factor=1)

    @compute()
    def add(x_cb: CircularBuffer, out_cb: CircularBuffer):
        with x_cb.wait() as a, out_cb.reserve() as o:
            o.store(masked_by(mask_cb, a))

    @datamovement()
    def masks(x_cb: CircularBuffer, out_cb: CircularBuffer, done: Semaphore):
        with mask_cb.reserve() as blk:
            fill_causal_mask(blk, 0, 0)

    @datamovement()
    def movement(x_cb: CircularBuffer, out_cb: CircularBuffer, done: Semaphore):
        pass

    return Program(add, masks, movement)(x, out)


# CHECK-LABEL: func.func @masked
# CHECK:      ^bb0(%x_cb: !d2m.cb<[[BLK:memref<2x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>]]>, %out_cb: !d2m.cb<[[BLK]]>, %mask_cb: !d2m.cb<[[BLK]], 1>):
# CHECK:        %a = d2m.wait %x_cb
# CHECK:        %m = d2m.wait %mask_cb
# CHECK:        d2m.pop %mask_cb
# CHECK:      ^bb0(%x_cb_1: !d2m.cb<[[BLK]]>, %out_cb_1: !d2m.cb<[[BLK]]>, %mask_cb_1: !d2m.cb<[[BLK]], 1>, %done: !d2m.semaphore):
# CHECK-NEXT:   %blk = d2m.reserve %mask_cb_1
# CHECK:        d2m.fill_causal_mask %blk
# CHECK-NEXT:   d2m.push %mask_cb_1
# CHECK:      ^bb0(%x_cb_2: !d2m.cb<[[BLK]]>, %out_cb_2: !d2m.cb<[[BLK]]>, %mask_cb_2: !d2m.cb<[[BLK]], 1>, %done_1: !d2m.semaphore):
# CHECK-NEXT: }
print(masked.frontend_module(TensorSpec((64, 64)), TensorSpec((64, 64))))


@pykernel_gen(grid=(1, 1), block_factors=[(1, 2), (1, 2)])
def staged(x, out):
    out_acc = TensorAccessor(out)
    stage_cb = CircularBuffer((32, 64), dtype=torch.float32, buffer_factor=3)

    @compute()
    def apply(x_cb: CircularBuffer, out_cb: CircularBuffer):
        with x_cb.wait() as a, stage_cb.reserve() as s:  # x: implicit
            s.store(a.exp())

    @datamovement()
    def writer(x_cb: CircularBuffer, out_cb: CircularBuffer):
        with stage_cb.wait() as blk:
            dma(blk, out_acc[0, 0]).wait()

    return Program(apply, writer)(x, out)


# CHECK-LABEL: func.func @staged
# CHECK:      ^bb0(%x_cb: !d2m.cb<{{.*}}>, %out_cb: !d2m.cb<{{.*}}>, %stage_cb: !d2m.cb<memref<1x2x!ttcore.tile<32x32, f32>, #ttcore.memory_space<l1>>, 3>):
# CHECK:        %s = d2m.reserve %stage_cb
# CHECK:        d2m.store %s
# CHECK:        d2m.push %stage_cb
# CHECK:      ^bb0(%x_cb_1: !d2m.cb<{{.*}}>, %out_cb_1: !d2m.cb<{{.*}}>, %stage_cb_1: !d2m.cb<{{.*}}, 3>):
# CHECK-NEXT:   %blk = d2m.wait %stage_cb_1
# CHECK:        d2m.dma_write %blk, %out
# CHECK:        d2m.pop %stage_cb_1
print(staged.frontend_module(TensorSpec((32, 64), "f32"), TensorSpec((32, 64), "f32")))
