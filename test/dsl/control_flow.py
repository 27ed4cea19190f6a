# RUN: %python %s | FileCheck %s
# Range loops become scf.for (not unrolled) with loop-carried values as iter_args;
# `if` on compile-time values picks a branch, on run-time comparisons becomes scf.if;
# Python ints fold; keyword parameters and enclosing names are compile-time values;
# helpers are inlined; core_index / grid_size become d2m ops.

from ttlang import (
    CircularBuffer,
    Program,
    TensorAccessor,
    TensorSpec,
    compute,
    core_index,
    datamovement,
    dma,
    grid_size,
    pykernel_gen,
    zeros,
)


def scaled_exp(block, scale):
    """A helper: inlined where it is called."""
    return (block * scale).exp()


@pykernel_gen(grid=(2, 2), block_factors=[(1, 1), (1, 1)])
def accumulate(x, out, steps=3, scale=0.5, transpose=False):
    x_acc, out_acc = TensorAccessor(x), TensorAccessor(out)
    tiles_per_core = x.shape[1] // 32 // 2

    @compute()
    def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
        total = zeros((32, 32))
        count = 0
        for i in range(steps * 2 - 1):
            with x_cb.wait() as blk:
                if transpose:
                    total = total + blk.transpose()
                else:
                    total = total + scaled_exp(blk, scale)
            count += 1
        with out_cb.reserve() as o:
            o.store(total)

    @datamovement()
    def reader(x_cb: CircularBuffer, out_cb: CircularBuffer):
        row = core_index(0)
        first = core_index(1) * tiles_per_core
        for i in range(steps * 2 - 1):
            with x_cb.reserve() as blk:
                dma(x_acc[row, first + i % tiles_per_core], blk).wait()
        if row == grid_size(0) - 1:
            with out_cb.wait() as blk:
                dma(blk, out_acc[row, 0]).wait()

    return Program(body, reader)(x, out)


print(accumulate.frontend_module(TensorSpec((64, 128)), TensorSpec((64, 128)), steps=2))

# CHECK-LABEL: func.func @accumulate(
# CHECK: ^bb0(%x_cb: {{.*}}, %out_cb: {{.*}}):
# CHECK: %total = linalg.generic
# CHECK: d2m.tile_fill 0.000000e+00

# `count` (a Python int assigned in the loop) and `total` are carried; steps=2 folds
# into the bound 3.
# CHECK: %[[COUNT:.*]] = arith.constant 0 : index
# CHECK-NEXT: %[[LB:.*]] = arith.constant 0 : index
# CHECK-NEXT: %[[UB:.*]] = arith.constant 3 : index
# CHECK-NEXT: %[[STEP:.*]] = arith.constant 1 : index
# CHECK-NEXT: %{{.*}}, %{{.*}} = scf.for %i = %[[LB]] to %[[UB]] step %[[STEP]] iter_args(%[[T:.*]] = %total, %[[C:.*]] = %[[COUNT]]) -> (tensor<1x1x!ttcore.tile<32x32, bf16>>, index) {
# CHECK-NEXT: %blk = d2m.wait %x_cb

# transpose=False picks the else branch at compile time; the helper is inlined with
# scale=0.5.
# CHECK-NOT: d2m.tile_transpose
# CHECK: d2m.tile_mul_scalar %{{.*}}, 5.000000e-01
# CHECK: d2m.tile_exp
# CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[T]], %{{.*}} :
# CHECK: d2m.tile_add
# CHECK: d2m.pop %x_cb
# CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : index
# CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[C]], %[[ONE]] : index
# CHECK-NEXT: scf.yield %[[SUM]], %[[NEXT]] : tensor<1x1x!ttcore.tile<32x32, bf16>>, index
# CHECK: %o = d2m.reserve %out_cb
# CHECK-NEXT: d2m.store %o, %total_1

# The reader: run-time index arithmetic on core coordinates; tiles_per_core = 2 is a
# compile-time value from the kernel function.
# CHECK: %row = d2m.core_index(0)
# CHECK-NEXT: %[[COL:.*]] = d2m.core_index(1)
# CHECK-NEXT: %[[TPC:.*]] = arith.constant 2 : index
# CHECK-NEXT: %first = arith.muli %[[COL]], %[[TPC]] : index
# CHECK: scf.for %i_1 =
# CHECK: %[[REM:.*]] = arith.remsi %i_1, %{{.*}} : index
# CHECK-NEXT: %[[J:.*]] = arith.addi %first, %[[REM]] : index
# CHECK-NEXT: d2m.dma_read %x[%row, %[[J]]], %blk_1
# CHECK: %[[ROWS:.*]] = d2m.grid_size(0)
# CHECK: %[[LAST:.*]] = arith.subi %[[ROWS]], %{{.*}} : index
# CHECK-NEXT: %[[IS_LAST:.*]] = arith.cmpi eq, %row, %[[LAST]] : index
# CHECK-NEXT: scf.if %[[IS_LAST]] {
# CHECK-NEXT: %blk_2 = d2m.wait %out_cb_1
# CHECK: d2m.dma_write %blk_2, %out[
# CHECK: d2m.pop %out_cb_1
# CHECK-NEXT: }
# CHECK-NOT: else


# tt-metal's accumulation through a CB: `a`, released by the `with` before the loop,
# is not carried into it; every iteration waits for the previous sum and reserves the
# next (the loop carries nothing).
@pykernel_gen(grid=(1, 1), block_factors=[(1, 1), (1, 1), (1, 1)])
def accumulate_through_cb(x, acc, out):
    @compute()
    def body(x_cb: CircularBuffer, acc_cb: CircularBuffer, out_cb: CircularBuffer):
        with acc_cb.reserve() as a:
            a.store(zeros((32, 32)))
        for i in range(4):
            with x_cb.wait() as t, acc_cb.wait() as pre, acc_cb.reserve() as a:
                a.store(pre + t)
        with acc_cb.wait() as final, out_cb.reserve() as o:
            o.store(final)

    return Program(body)(x, acc, out)


print(accumulate_through_cb.frontend_module(TensorSpec((32, 128)), TensorSpec((32, 32)), TensorSpec((32, 32))))
# CHECK-LABEL: func.func @accumulate_through_cb(
# CHECK:      d2m.push %acc_cb
# CHECK:      scf.for %i = %{{.*}} to %{{.*}} step %{{.*}} {
# CHECK-NEXT:   %t = d2m.wait %x_cb
# CHECK-NEXT:   %pre = d2m.wait %acc_cb
# CHECK-NEXT:   %a_1 = d2m.reserve %acc_cb
# CHECK:        d2m.store %a_1
# CHECK-NEXT:   d2m.push %acc_cb
# CHECK-NEXT:   d2m.pop %acc_cb
# CHECK-NEXT:   d2m.pop %x_cb
# CHECK-NEXT: }
# CHECK-NEXT: %final = d2m.wait %acc_cb
