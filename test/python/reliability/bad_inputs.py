"""The bad-input corpus: wrong kernels, each with the error it must produce.

Every case is a function named after the mistake; `@bad(error, *words)` records the
error class and the words its message (or hint) must contain. The line the error must
point at carries the comment `# <- <case name>`; a case without such a line expects
an error without a kernel location (a run-time report). Calling a case function makes
the mistake: it compiles the kernel, calls it, or decorates it.

Most cases fill one slot of `kernel(...)`, a valid kernel over x (64x64, blocks of
2x2 tiles), y (32x64, blocks of 1x2) and out (64x64, blocks of 2x2): its compute body
`out = x + x`, its reader and its writer are helpers the frontend inlines.
"""

from __future__ import annotations

import contextlib
import math

import torch

from ttlang import (
    CircularBuffer,
    Program,
    Semaphore,
    TensorAccessor,
    TensorSpec,
    compute,
    core_index,
    datamovement,
    dma,
    fill,
    fill_causal_mask,
    full,
    maximum,
    pykernel_gen,
    tril,
    where,
    zeros,
)
from ttlang.dsl.diagnostics import KernelError, L1BudgetError
from ttlang.runtime.errors import EmulatorError

CASES: dict[str, tuple[type[Exception], tuple[str, ...], object]] = {}

X, Y, OUT = TensorSpec((64, 64)), TensorSpec((32, 64)), TensorSpec((64, 64))


def bad(error: type[Exception], *words: str, at: str | None = None):
    """Registers a case; `at` names the marker of its error line when it is not the
    case's own (the shared kernel's decorator or def line)."""

    def register(case):
        CASES[case.__name__] = (error, words, case, at or case.__name__)
        return case

    return register


def default_compute(x_cb, y_cb, out_cb):
    with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
        o.store(a + a)


def default_reader(x_cb, y_cb, x_acc, y_acc):
    with x_cb.reserve() as blk:
        dma(x_acc[0, 0], blk).wait()
    with y_cb.reserve() as blk:
        dma(y_acc[0, 0], blk).wait()


def default_writer(x_cb, y_cb, out_cb, out_acc):
    with out_cb.wait() as blk:
        dma(blk, out_acc[0, 0]).wait()


def kernel(body=default_compute, reader_body=default_reader, writer_body=default_writer, **options):
    options.setdefault("grid", (1, 1))
    options.setdefault("block_factors", [(2, 2), (1, 2), (2, 2)])

    @pykernel_gen(**options)  # <- decorator
    def three(x, y, out):
        x_acc, y_acc, out_acc = TensorAccessor(x), TensorAccessor(y), TensorAccessor(out)

        @compute()
        def compute_thread(x_cb: CircularBuffer, y_cb: CircularBuffer, out_cb: CircularBuffer):
            body(x_cb, y_cb, out_cb)

        @datamovement()
        def reader(x_cb: CircularBuffer, y_cb: CircularBuffer, out_cb: CircularBuffer):
            reader_body(x_cb, y_cb, x_acc, y_acc)

        @datamovement()
        def writer(x_cb: CircularBuffer, y_cb: CircularBuffer, out_cb: CircularBuffer):
            writer_body(x_cb, y_cb, out_cb, out_acc)

        return Program(compute_thread, reader, writer)(x, y, out)

    return three


def compile_with(body=default_compute, reader_body=default_reader, writer_body=default_writer, y=Y, **options):
    kernel(body, reader_body, writer_body, **options).compile(X, y, OUT)


def tensors():
    return (
        torch.ones(64, 64, dtype=torch.bfloat16),
        torch.ones(32, 64, dtype=torch.bfloat16),
        torch.zeros(64, 64, dtype=torch.bfloat16),
    )


# ====================================================================== operators


@bad(KernelError, "shape mismatch", "(64, 64) and (32, 64)")
def add_shape_mismatch():
    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            o.store(a + b)  # <- add_shape_mismatch

    compile_with(body)


@bad(KernelError, "shape mismatch", "-")
def sub_shape_mismatch():
    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            o.store(a - b)  # <- sub_shape_mismatch

    compile_with(body)


@bad(KernelError, "shape mismatch", "*")
def mul_shape_mismatch():
    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            o.store(a * b)  # <- mul_shape_mismatch

    compile_with(body)


@bad(KernelError, "shape mismatch", "/")
def div_shape_mismatch():
    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            o.store(b / a)  # <- div_shape_mismatch

    compile_with(body)


@bad(KernelError, "shape mismatch", "maximum")
def maximum_shape_mismatch():
    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            o.store(maximum(a, b))  # <- maximum_shape_mismatch

    compile_with(body)


@bad(KernelError, "shape mismatch", "where")
def where_shape_mismatch():
    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            o.store(where(a, a, b))  # <- where_shape_mismatch

    compile_with(body)


@bad(KernelError, "tril", "multiple of 32")
def tril_diagonal_not_whole_tiles():
    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            o.store(tril(a, diagonal=16))  # <- tril_diagonal_not_whole_tiles

    compile_with(body)


@bad(KernelError, "tril", "compile-time int")
def tril_diagonal_at_run_time():
    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            o.store(tril(a, diagonal=core_index(0) * 32))  # <- tril_diagonal_at_run_time

    compile_with(body)


@bad(KernelError, "tril", "compile-time number")
def tril_value_a_block():
    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            o.store(tril(a, value=a))  # <- tril_value_a_block

    compile_with(body)


@bad(KernelError, "tril()", "whole-tile")
def tril_of_a_row_vector():
    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            o.store(a + tril(a.rowmax()))  # <- tril_of_a_row_vector

    compile_with(body)


@bad(KernelError, "tril()", "@compute() thread")
def tril_in_datamovement():
    def writer(x_cb, y_cb, out_cb, out_acc):
        with out_cb.wait() as blk:
            dma(tril(blk), out_acc[0, 0]).wait()  # <- tril_in_datamovement

    compile_with(writer_body=writer)


@bad(KernelError, "shape mismatch", "@")
def matmul_inner_mismatch():
    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            o.store(a @ b)  # <- matmul_inner_mismatch

    compile_with(body)


@bad(KernelError, "shape mismatch", "store")
def store_wrong_shape():
    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            o.store(b)  # <- store_wrong_shape

    compile_with(body)


@bad(KernelError, "store", "(64, 1)")
def store_reduction_into_full_block():
    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            o.store(a.rowsum())  # <- store_reduction_into_full_block

    compile_with(body)


@bad(KernelError, "sin", "exp")
def unknown_block_method():
    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            o.store(a.sin())  # <- unknown_block_method

    compile_with(body)


@bad(KernelError, "**")
def power_operator():
    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            o.store(a**2)  # <- power_operator

    compile_with(body)


@bad(KernelError, "block views take slices", "r:r+1")
def indexing_a_block():
    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            o.store(a[0])  # <- indexing_a_block

    compile_with(body)


# ====================================================================== block views
# x's block is 2x2 tiles: its tile rows are dim 0.


def view_in_compute(view):
    """The default compute body with `view(a)` taken from x's block (or `o`'s)."""

    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            view(a, o)
            o.store(a + a)

    compile_with(body)


@bad(KernelError, "compile-time ints", "range(n)")
def view_runtime_bound():
    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            for i in range(2):
                half = a[i : i + 1]  # <- view_runtime_bound
            o.store(a + a)

    compile_with(body)


@bad(KernelError, "tile rows 0:3", "outside the block's 2 tile rows", "count tiles")
def view_out_of_bounds():
    view_in_compute(lambda a, o: a[0:3])  # <- view_out_of_bounds


@bad(KernelError, "tile rows 1:1 are empty")
def view_empty():
    view_in_compute(lambda a, o: a[1:1])  # <- view_empty


@bad(KernelError, "block views take no step")
def view_step():
    view_in_compute(lambda a, o: a[0:2:2])  # <- view_step


@bad(KernelError, "slice only the tile rows", "dim 1 must be whole")
def view_of_columns():
    view_in_compute(lambda a, o: a[:, 0:1])  # <- view_of_columns


@bad(KernelError, "the block has 2 dims, but is indexed with 3")
def view_too_many_indices():
    view_in_compute(lambda a, o: a[:, :, 0:1])  # <- view_too_many_indices


@bad(KernelError, "only blocks from cb.wait() can be viewed", "out_cb.reserve()")
def view_of_reserved_block():
    view_in_compute(lambda a, o: o[0:1])  # <- view_of_reserved_block


@bad(KernelError, "only blocks from cb.wait() can be viewed", "computed value")
def view_of_computed_block():
    view_in_compute(lambda a, o: (a + a)[0:1])  # <- view_of_computed_block


@bad(KernelError, "@compute() thread")
def view_in_data_movement():
    def reader(x_cb, y_cb, x_acc, y_acc):
        default_reader(x_cb, y_cb, x_acc, y_acc)
        with x_cb.wait() as blk:
            top = blk[0:1]  # <- view_in_data_movement

    compile_with(reader_body=reader)


@bad(KernelError, "`with` takes cb.wait() or cb.reserve()")
def with_a_view():
    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            with a[0:1] as top:  # <- with_a_view
                o.store(a + a)

    compile_with(body)


@bad(KernelError, "str")
def string_operand():
    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            o.store(a + "1")  # <- string_operand

    compile_with(body)


@bad(KernelError, "whole tiles")
def reduce_a_reduced_axis():
    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            o.store(a + a.rowsum().rowsum())  # <- reduce_a_reduced_axis

    compile_with(body)


@bad(KernelError, "whole-tile blocks")
def matmul_of_a_vector():
    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            o.store(a.colsum() @ a)  # <- matmul_of_a_vector

    compile_with(body)


@bad(KernelError, "multiples of 32")
def fill_not_tile_aligned():
    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            o.store(a + full((64, 48), 1.0))  # <- fill_not_tile_aligned

    compile_with(body)


@bad(KernelError, "fill")
def fill_with_a_block_value():
    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            o.store(fill(a, (64, 64)))  # <- fill_with_a_block_value

    compile_with(body)


@bad(KernelError, "reserve()")
def store_into_a_waited_block():
    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            a.store(a + a)  # <- store_into_a_waited_block
            o.store(a)

    compile_with(body)


@bad(KernelError, "store", "a block")
def store_a_number():
    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            o.store(1.0)  # <- store_a_number

    compile_with(body)


@bad(KernelError, "compile-time")
def branch_on_a_block():
    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            if a:  # <- branch_on_a_block
                o.store(a)

    compile_with(body)


@bad(KernelError, "<")
def compare_blocks():
    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            o.store(where(a < a, a, a))  # <- compare_blocks

    compile_with(body)


@bad(KernelError, "@datamovement()")
def dma_in_compute():
    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            dma(a, o)  # <- dma_in_compute
            o.store(a)

    compile_with(body)


# ====================================================================== CBs and blocks


@bad(KernelError, "after", "pop")
def block_used_after_pop():
    def body(x_cb, y_cb, out_cb):
        a = x_cb.wait()
        x_cb.pop()
        with y_cb.wait() as b, out_cb.reserve() as o:
            o.store(a + a)  # <- block_used_after_pop

    compile_with(body)


@bad(KernelError, "x_cb.pop() has no x_cb.wait() to release")
def wait_popped_twice():
    def body(x_cb, y_cb, out_cb):
        a = x_cb.wait()
        with y_cb.wait() as b, out_cb.reserve() as o:
            o.store(a + a)
        x_cb.pop()
        x_cb.pop()  # <- wait_popped_twice

    compile_with(body)


@bad(KernelError, "out_cb.push() has no out_cb.reserve() to release")
def reserve_pushed_twice():
    def body(x_cb, y_cb, out_cb):
        o = out_cb.reserve()
        with x_cb.wait() as a, y_cb.wait() as b:
            o.store(a + a)
        out_cb.push()
        out_cb.push()  # <- reserve_pushed_twice

    compile_with(body)


@bad(KernelError, "pop()", "no", "wait()")
def pop_without_wait():
    def body(x_cb, y_cb, out_cb):
        default_compute(x_cb, y_cb, out_cb)
        x_cb.pop()  # <- pop_without_wait

    compile_with(body)


@bad(KernelError, "push()", "no", "reserve()")
def push_without_reserve():
    def body(x_cb, y_cb, out_cb):
        default_compute(x_cb, y_cb, out_cb)
        out_cb.push()  # <- push_without_reserve

    compile_with(body)


@bad(KernelError, "x_cb.pop() has no x_cb.wait() to release")
def release_outside_its_loop():
    def body(x_cb, y_cb, out_cb):
        b = y_cb.wait()
        o = out_cb.reserve()
        for i in range(1):
            a = x_cb.wait()  # popped at the end of the loop body
            o.store(a + a)
        x_cb.pop()  # <- release_outside_its_loop
        y_cb.pop()
        out_cb.push()

    compile_with(body)


@bad(KernelError, "has no method", "wait")
def unknown_cb_method():
    def body(x_cb, y_cb, out_cb):
        x_cb.front()  # <- unknown_cb_method

    compile_with(body)


@bad(KernelError, "pushes `out_cb`", "no thread waits for it")
def output_never_drained():
    def writer_body(x_cb, y_cb, out_cb, out_acc):
        with y_cb.wait() as blk:  # drains y_cb instead of out_cb
            dma(blk, out_acc[0, 0]).wait()

    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, out_cb.reserve() as o:  # <- output_never_drained
            o.store(a + a)

    compile_with(body, writer_body=writer_body, y=X, block_factors=[(2, 2), (2, 2), (2, 2)])


@bad(KernelError, "waits for `y_cb`", "no thread pushes it")
def input_never_filled():
    def reader_body(x_cb, y_cb, x_acc, y_acc):
        with x_cb.reserve() as blk:
            dma(x_acc[0, 0], blk).wait()
        with x_cb.reserve() as blk:
            dma(y_acc[0, 0], blk).wait()

    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:  # <- input_never_filled
            o.store(a + a)

    compile_with(body, reader_body, y=X, block_factors=[(2, 2), (2, 2), (2, 2)])


# ====================================================================== kernel-local CBs


def mask_cb_of_64x64():
    return CircularBuffer((64, 64))


def local_cb_kernel(declare=mask_cb_of_64x64, fill=True, drain=True):
    """x and out (64x64, one 2x2-tile block) and the kernel-local CB `declare()` makes:
    the reader fills it with the causal mask (`fill`), compute adds it to x (`drain`)."""

    @pykernel_gen(grid=(1, 1), block_factors=[(2, 2), (2, 2)])
    def masked(x, out):
        x_acc, out_acc = TensorAccessor(x), TensorAccessor(out)
        mask_cb = declare()

        @compute()
        def add(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with x_cb.wait() as a, out_cb.reserve() as o:
                if drain:
                    with mask_cb.wait() as m:  # <- local_cb_drain
                        o.store(a + m)
                else:
                    o.store(a + a)

        @datamovement()
        def reader(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with x_cb.reserve() as blk:
                dma(x_acc[0, 0], blk).wait()
            if fill:
                with mask_cb.reserve() as blk:  # <- local_cb_fill
                    fill_causal_mask(blk, 0, 0)

        @datamovement()
        def writer(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with out_cb.wait() as blk:
                dma(blk, out_acc[0, 0]).wait()

        return Program(add, reader, writer)(x, out)

    return masked.compile(OUT, OUT)


@bad(KernelError, "CircularBuffer `mask_cb` has block shape (48, 64)", "in elements")
def local_cb_shape_not_whole_tiles():
    local_cb_kernel(lambda: CircularBuffer((48, 64)))  # <- local_cb_shape_not_whole_tiles


@bad(KernelError, "block shape 64", "tuple of positive ints")
def local_cb_shape_not_a_tuple():
    local_cb_kernel(lambda: CircularBuffer(64))  # <- local_cb_shape_not_a_tuple


@bad(KernelError, "dtype 'bfloat8_b'", "bfloat16 or float32")
def local_cb_in_bfp8():
    local_cb_kernel(lambda: CircularBuffer((64, 64), dtype="bfloat8_b"))  # <- local_cb_in_bfp8


@bad(KernelError, "buffer_factor=0", "positive int")
def local_cb_without_blocks():
    local_cb_kernel(lambda: CircularBuffer((64, 64), buffer_factor=0))  # <- local_cb_without_blocks


@bad(L1BudgetError, "need 16392 KiB of L1 per core", "cb2 8192 x 2048 B")
def local_cb_larger_than_l1():
    @pykernel_gen(grid=(1, 1))  # <- local_cb_larger_than_l1
    def hoards(x, out):  # x and out implicit
        big_cb = CircularBuffer((2048, 2048))  # two 64x64-tile blocks: 16 MiB

        @compute()
        def copy(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with x_cb.wait() as a, out_cb.reserve() as o, big_cb.wait() as _:
                o.store(a)

        @datamovement()
        def fill(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with big_cb.reserve() as blk:
                fill_causal_mask(blk, 0, 0)

        return Program(copy, fill)(x, out)

    hoards.compile(TensorSpec((32, 32)), TensorSpec((32, 32)))


@bad(KernelError, "CircularBuffer `mask_cb` is used by no thread", at="local_cb_declared")
def local_cb_used_by_no_thread():
    @pykernel_gen(grid=(1, 1))
    def unused(x, out):
        mask_cb = CircularBuffer((32, 32))  # <- local_cb_declared

        @compute()
        def copy(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with x_cb.wait() as a, out_cb.reserve() as o:
                o.store(a)

        return Program(copy)(x, out)

    unused.compile(TensorSpec((32, 32)), TensorSpec((32, 32)))


@bad(KernelError, "pushes `mask_cb` (a kernel-local CB, cb 2)", "no thread waits for it", at="local_cb_fill")
def local_cb_filled_never_consumed():
    local_cb_kernel(drain=False)


@bad(KernelError, "waits for `mask_cb` (a kernel-local CB, cb 2)", "no thread pushes it", at="local_cb_drain")
def local_cb_consumed_never_filled():
    local_cb_kernel(fill=False)


@bad(KernelError, "`mask_cb` of thread add must be a Semaphore", "used by its name")
def local_cb_passed_as_a_parameter():
    @pykernel_gen(grid=(1, 1))
    def passed(x, out):
        mask_cb = CircularBuffer((32, 32))

        @compute()
        def add(x_cb, out_cb, mask_cb: CircularBuffer):  # <- local_cb_passed_as_a_parameter
            with x_cb.wait() as a, out_cb.reserve() as o, mask_cb.wait() as m:
                o.store(a + m)

        return Program(add)(x, out)

    passed.compile(TensorSpec((32, 32)), TensorSpec((32, 32)))


@bad(KernelError, "was not created by this kernel's function", "create kernel-local CBs")
def local_cb_of_another_kernel():
    stolen = []

    @pykernel_gen(grid=(1, 1))
    def first(x, out):
        stolen.append(CircularBuffer((32, 32)))

        @compute()
        def copy(x_cb, out_cb):
            with x_cb.wait() as a, out_cb.reserve() as o, stolen[0].wait() as m:
                o.store(a + m)

        return Program(copy)(x, out)

    @pykernel_gen(grid=(1, 1))
    def second(x, out):
        @compute()
        def copy(x_cb, out_cb):
            with x_cb.wait() as a, out_cb.reserve() as o, stolen[0].wait() as m:  # <- local_cb_of_another_kernel
                o.store(a + m)

        return Program(copy)(x, out)

    with contextlib.suppress(KernelError):
        first.compile(TensorSpec((32, 32)), TensorSpec((32, 32)))  # nothing fills it
    second.compile(TensorSpec((32, 32)), TensorSpec((32, 32)))


# ====================================================================== data movement


@bad(KernelError, "writes into `x`, an input tensor")
def dma_write_into_an_input():
    def reader_body(x_cb, y_cb, x_acc, y_acc):
        with x_cb.reserve() as blk:
            dma(blk, x_acc[0, 0]).wait()  # <- dma_write_into_an_input
        with y_cb.reserve() as blk:
            dma(y_acc[0, 0], blk).wait()

    compile_with(reader_body=reader_body)


@bad(KernelError, "taken with out_cb.wait()", "dma(blk, acc[...])")
def dma_read_into_a_waited_block():
    def writer_body(x_cb, y_cb, out_cb, out_acc):
        with out_cb.wait() as blk:
            dma(out_acc[0, 0], blk).wait()  # <- dma_read_into_a_waited_block

    compile_with(writer_body=writer_body)


@bad(KernelError, "is never waited")
def transfer_never_waited():
    def reader_body(x_cb, y_cb, x_acc, y_acc):
        with x_cb.reserve() as blk:
            if core_index(0) == 0:
                dma(x_acc[0, 0], blk)  # <- transfer_never_waited
        with y_cb.reserve() as blk:
            dma(y_acc[0, 0], blk).wait()

    compile_with(reader_body=reader_body)


@bad(KernelError, "accessor block and a CB block")
def dma_between_two_accessors():
    def reader_body(x_cb, y_cb, x_acc, y_acc):
        dma(x_acc[0, 0], y_acc[0, 0]).wait()  # <- dma_between_two_accessors
        default_reader(x_cb, y_cb, x_acc, y_acc)

    compile_with(reader_body=reader_body)


@bad(KernelError, "accessor block and a CB block")
def dma_of_a_number():
    def reader_body(x_cb, y_cb, x_acc, y_acc):
        with x_cb.reserve() as blk:
            dma(0, blk).wait()  # <- dma_of_a_number
        with y_cb.reserve() as blk:
            dma(y_acc[0, 0], blk).wait()

    compile_with(reader_body=reader_body)


@bad(KernelError, "index out of bounds", "`x`")
def accessor_index_out_of_bounds():
    def reader_body(x_cb, y_cb, x_acc, y_acc):
        with x_cb.reserve() as blk:
            dma(x_acc[1, 0], blk).wait()  # <- accessor_index_out_of_bounds
        with y_cb.reserve() as blk:
            dma(y_acc[0, 0], blk).wait()

    compile_with(reader_body=reader_body)


@bad(KernelError, "2 dims", "3 indices")
def accessor_too_many_indices():
    def reader_body(x_cb, y_cb, x_acc, y_acc):
        with x_cb.reserve() as blk:
            dma(x_acc[0, 0, 0], blk).wait()  # <- accessor_too_many_indices
        with y_cb.reserve() as blk:
            dma(y_acc[0, 0], blk).wait()

    compile_with(reader_body=reader_body)


@bad(KernelError, "shape mismatch", "slice spans 1 tiles")
def accessor_slice_mismatch():
    def reader_body(x_cb, y_cb, x_acc, y_acc):
        with x_cb.reserve() as blk:
            dma(x_acc[0:1, 0:2], blk).wait()  # <- accessor_slice_mismatch
        with y_cb.reserve() as blk:
            dma(y_acc[0, 0], blk).wait()

    compile_with(reader_body=reader_body)


@bad(KernelError, "non-negative integer")
def accessor_negative_index():
    def reader_body(x_cb, y_cb, x_acc, y_acc):
        with x_cb.reserve() as blk:
            dma(x_acc[-1, 0], blk).wait()  # <- accessor_negative_index
        with y_cb.reserve() as blk:
            dma(y_acc[0, 0], blk).wait()

    compile_with(reader_body=reader_body)


@bad(KernelError, "non-negative integer", "float")
def accessor_float_index():
    def reader_body(x_cb, y_cb, x_acc, y_acc):
        with x_cb.reserve() as blk:
            dma(x_acc[0.5, 0], blk).wait()  # <- accessor_float_index
        with y_cb.reserve() as blk:
            dma(y_acc[0, 0], blk).wait()

    compile_with(reader_body=reader_body)


@bad(KernelError, "data-movement")
def block_arithmetic_in_data_movement():
    def reader_body(x_cb, y_cb, x_acc, y_acc):
        with x_cb.reserve() as blk:
            dma(x_acc[0, 0], blk).wait()
            blk2 = blk + blk  # <- block_arithmetic_in_data_movement
        with y_cb.reserve() as blk:
            dma(y_acc[0, 0], blk).wait()

    compile_with(reader_body=reader_body)


@bad(KernelError, "core=(row, col) and mcast=(rows, cols)")
def multicast_without_mcast():
    def reader_body(x_cb, y_cb, x_acc, y_acc):
        with x_cb.reserve() as blk:
            dma(blk, blk, core=(0, 0)).wait()  # <- multicast_without_mcast
        with y_cb.reserve() as blk:
            dma(y_acc[0, 0], blk).wait()

    compile_with(reader_body=reader_body)


@bad(KernelError, "two integers")
def multicast_core_not_a_pair():
    def reader_body(x_cb, y_cb, x_acc, y_acc):
        with x_cb.reserve() as blk:
            dma(blk, blk, core=0, mcast=(1, 1)).wait()  # <- multicast_core_not_a_pair
        with y_cb.reserve() as blk:
            dma(y_acc[0, 0], blk).wait()

    compile_with(reader_body=reader_body)


@bad(KernelError, "CB block to a CB block")
def multicast_from_an_accessor():
    def reader_body(x_cb, y_cb, x_acc, y_acc):
        with x_cb.reserve() as blk:
            dma(x_acc[0, 0], blk, core=(0, 0), mcast=(1, 1)).wait()  # <- multicast_from_an_accessor
        with y_cb.reserve() as blk:
            dma(y_acc[0, 0], blk).wait()

    compile_with(reader_body=reader_body)


@bad(KernelError, "dim")
def core_index_of_a_third_dim():
    def reader_body(x_cb, y_cb, x_acc, y_acc):
        row = core_index(2)  # <- core_index_of_a_third_dim
        default_reader(x_cb, y_cb, x_acc, y_acc)

    compile_with(reader_body=reader_body)


@bad(KernelError, "wait", "has no method")
def wait_on_an_accessor_block():
    def reader_body(x_cb, y_cb, x_acc, y_acc):
        x_acc[0, 0].wait()  # <- wait_on_an_accessor_block
        default_reader(x_cb, y_cb, x_acc, y_acc)

    compile_with(reader_body=reader_body)


# ====================================================================== Python in threads


@bad(KernelError, "while")
def while_loop():
    def body(x_cb, y_cb, out_cb):
        while True:  # <- while_loop
            pass

    compile_with(body)


@bad(KernelError, "break")
def break_statement():
    def body(x_cb, y_cb, out_cb):
        for i in range(2):
            break  # <- break_statement
        default_compute(x_cb, y_cb, out_cb)

    compile_with(body)


@bad(KernelError, "range(...)")
def loop_over_a_list():
    def body(x_cb, y_cb, out_cb):
        for i in [0, 1]:  # <- loop_over_a_list
            pass
        default_compute(x_cb, y_cb, out_cb)

    compile_with(body)


@bad(KernelError, "range() bounds must be integers", "float")
def loop_with_a_float_bound():
    def body(x_cb, y_cb, out_cb):
        for i in range(2.5):  # <- loop_with_a_float_bound
            pass
        default_compute(x_cb, y_cb, out_cb)

    compile_with(body)


@bad(KernelError, "step of range() must be a nonzero compile-time int")
def loop_with_step_zero():
    def body(x_cb, y_cb, out_cb):
        for i in range(0, 4, 0):  # <- loop_with_step_zero
            pass
        default_compute(x_cb, y_cb, out_cb)

    compile_with(body)


@bad(KernelError, "step of range()")
def loop_with_a_runtime_step():
    def reader_body(x_cb, y_cb, x_acc, y_acc):
        for i in range(0, 4, core_index(0) + 1):  # <- loop_with_a_runtime_step
            pass
        default_reader(x_cb, y_cb, x_acc, y_acc)

    compile_with(reader_body=reader_body)


@bad(KernelError, "does not fit", "32-bit signed loop counter")
def loop_bound_too_large():
    def body(x_cb, y_cb, out_cb):
        for i in range(2**33):  # <- loop_bound_too_large
            pass
        default_compute(x_cb, y_cb, out_cb)

    compile_with(body)


@bad(KernelError, "overflows")
def loop_last_increment_overflows():
    def body(x_cb, y_cb, out_cb):
        for i in range(0, 2**31 - 2, 8):  # <- loop_last_increment_overflows
            pass
        default_compute(x_cb, y_cb, out_cb)

    compile_with(body)


@bad(KernelError, "positional")
def range_with_keywords():
    def body(x_cb, y_cb, out_cb):
        for i in range(stop=3):  # <- range_with_keywords
            pass
        default_compute(x_cb, y_cb, out_cb)

    compile_with(body)


@bad(KernelError, "else")
def for_else():
    def body(x_cb, y_cb, out_cb):
        for i in range(2):  # <- for_else
            pass
        else:
            pass
        default_compute(x_cb, y_cb, out_cb)

    compile_with(body)


@bad(KernelError, "def")
def nested_def():
    def body(x_cb, y_cb, out_cb):
        def helper():  # <- nested_def
            pass

        default_compute(x_cb, y_cb, out_cb)

    compile_with(body)


@bad(KernelError, "assertion failed", "1 == 2")
def assert_false():
    def body(x_cb, y_cb, out_cb):
        assert 1 == 2  # <- assert_false
        default_compute(x_cb, y_cb, out_cb)

    compile_with(body)


@bad(KernelError, "compile-time condition")
def assert_on_a_runtime_value():
    def reader_body(x_cb, y_cb, x_acc, y_acc):
        assert core_index(0) == 0  # <- assert_on_a_runtime_value
        default_reader(x_cb, y_cb, x_acc, y_acc)

    compile_with(reader_body=reader_body)


@bad(KernelError, "undefined_name")
def undefined_name():
    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            o.store(a + undefined_name)  # <- undefined_name  # noqa: F821

    compile_with(body)


@bad(KernelError, "no value")
def name_assigned_only_in_a_branch():
    def reader_body(x_cb, y_cb, x_acc, y_acc):
        if core_index(0) == 0:
            row = 0
        with x_cb.reserve() as blk:
            dma(x_acc[row, 0], blk).wait()  # <- name_assigned_only_in_a_branch
        with y_cb.reserve() as blk:
            dma(y_acc[0, 0], blk).wait()

    compile_with(reader_body=reader_body)


@bad(KernelError, "continue")
def continue_statement():
    def body(x_cb, y_cb, out_cb):
        for i in range(2):
            continue  # <- continue_statement
        default_compute(x_cb, y_cb, out_cb)

    compile_with(body)


@bad(KernelError, "range() can only be the iterable")
def range_as_a_value():
    def body(x_cb, y_cb, out_cb):
        r = range(3)  # <- range_as_a_value
        default_compute(x_cb, y_cb, out_cb)

    compile_with(body)


@bad(KernelError, "returns nothing")
def thread_returns_a_value():
    @pykernel_gen(grid=(1, 1), block_factors=[(2, 2), (1, 2), (2, 2)])
    def returns(x, y, out):
        @compute()
        def compute_thread(x_cb: CircularBuffer, y_cb: CircularBuffer, out_cb: CircularBuffer):
            return 1  # <- thread_returns_a_value

        return Program(compute_thread)(x, y, out)

    returns.compile(X, Y, OUT)


# ====================================================================== kernels and threads


@bad(KernelError, "must return Program")
def kernel_returns_nothing():
    @pykernel_gen(grid=(1, 1))
    def nothing(x, out):
        return None  # <- kernel_returns_nothing

    nothing.compile(X, OUT)


@bad(KernelError, "in order")
def program_called_with_swapped_tensors():
    @pykernel_gen(grid=(1, 1))
    def swapped(x, out):
        @compute()
        def compute_thread(x_cb: CircularBuffer, out_cb: CircularBuffer):
            pass

        return Program(compute_thread)(out, x)  # <- program_called_with_swapped_tensors

    swapped.compile(X, OUT)


@bad(KernelError, "Program takes threads")
def program_of_a_plain_function():
    @pykernel_gen(grid=(1, 1))
    def plain(x, out):
        def compute_thread(x_cb, out_cb):
            pass

        return Program(compute_thread)(x, out)  # <- program_of_a_plain_function

    plain.compile(X, OUT)


@bad(KernelError, "at most one @compute()")
def two_compute_threads():
    @pykernel_gen(grid=(1, 1))
    def two(x, out):
        @compute()
        def first(x_cb: CircularBuffer, out_cb: CircularBuffer):
            pass

        @compute()
        def second(x_cb: CircularBuffer, out_cb: CircularBuffer):
            pass

        return Program(first, second)(x, out)  # <- two_compute_threads

    two.compile(X, OUT)


@bad(KernelError, "two @datamovement()")
def three_data_movement_threads():
    @pykernel_gen(grid=(1, 1))
    def three(x, out):
        @datamovement()
        def a(x_cb: CircularBuffer, out_cb: CircularBuffer):
            pass

        @datamovement()
        def b(x_cb: CircularBuffer, out_cb: CircularBuffer):
            pass

        @datamovement()
        def c(x_cb: CircularBuffer, out_cb: CircularBuffer):
            pass

        return Program(a, b, c)(x, out)  # <- three_data_movement_threads

    three.compile(X, OUT)


@bad(KernelError, "at least one thread")
def program_without_threads():
    @pykernel_gen(grid=(1, 1))
    def empty(x, out):
        return Program()(x, out)  # <- program_without_threads

    empty.compile(X, OUT)


@bad(KernelError, "CircularBuffer")
def thread_missing_a_cb_parameter():
    @pykernel_gen(grid=(1, 1))
    def short(x, out):
        @compute()
        def compute_thread(x_cb: CircularBuffer):  # <- thread_missing_a_cb_parameter
            pass

        return Program(compute_thread)(x, out)

    short.compile(X, OUT)


@bad(KernelError, "int")
def thread_parameter_of_another_type():
    @pykernel_gen(grid=(1, 1))
    def typed(x, out):
        @compute()
        def compute_thread(x_cb: CircularBuffer, out_cb: int):  # <- thread_parameter_of_another_type
            pass

        return Program(compute_thread)(x, out)

    typed.compile(X, OUT)


@bad(KernelError, "cannot be called")
def calling_a_thread():
    @pykernel_gen(grid=(1, 1))
    def calls(x, out):
        @compute()
        def compute_thread(x_cb: CircularBuffer, out_cb: CircularBuffer):
            pass

        compute_thread(None, None)  # <- calling_a_thread
        return Program(compute_thread)(x, out)

    calls.compile(X, OUT)


@bad(KernelError, "dma() can only be used inside")
def dma_in_the_kernel_function():
    @pykernel_gen(grid=(1, 1))
    def outside(x, out):
        dma(None, None)  # <- dma_in_the_kernel_function
        return None

    outside.compile(X, OUT)


@bad(KernelError, "TensorAccessor takes one of the kernel's tensor arguments")
def accessor_of_a_number():
    @pykernel_gen(grid=(1, 1))
    def numbers(x, out):
        acc = TensorAccessor(3)  # <- accessor_of_a_number
        return None

    numbers.compile(X, OUT)


@bad(KernelError, "kernel parameter `scale` is list", "int, float or bool")
def keyword_parameter_of_a_list():
    @pykernel_gen(grid=(1, 1))
    def scaled(x, out, scale=1.0):
        return None

    scaled.compile(X, OUT, scale=[1.0, 2.0])  # <- keyword_parameter_of_a_list


# ====================================================================== tensors and calls


def call_line_kernel():
    return kernel()


@bad(KernelError, "takes 3 tensors (x, y, out)", "called with 2")
def too_few_tensors():
    x, y, out = tensors()
    kernel()(x, out)  # <- too_few_tensors


@bad(KernelError, "tensor parameter `y` got float")
def number_for_a_tensor():
    x, y, out = tensors()
    kernel()(x, 1.5, out)  # <- number_for_a_tensor


@bad(KernelError, "tensor parameter `x` got list")
def list_for_a_tensor():
    x, y, out = tensors()
    kernel()([[1.0] * 64] * 64, y, out)  # <- list_for_a_tensor


@bad(KernelError, "unknown keyword parameter(s) scale")
def unknown_keyword():
    x, y, out = tensors()
    kernel()(x, y, out, scale=2.0)  # <- unknown_keyword


@bad(KernelError, "missing keyword parameter(s) scale")
def missing_keyword_only_parameter():
    @pykernel_gen(grid=(1, 1))
    def needs(x, out, *, scale):
        return None

    needs.compile(X, OUT)  # <- missing_keyword_only_parameter


@bad(KernelError, "output `out` is expanded")
def expanded_output():
    x, y, out = tensors()
    kernel()(x, y, torch.zeros(1, 64, dtype=torch.bfloat16).expand(64, 64))  # <- expanded_output


@bad(KernelError, "output `out` requires grad")
def output_requiring_grad():
    x, y, out = tensors()
    kernel()(x, y, out.requires_grad_())  # <- output_requiring_grad


@bad(KernelError, "not tile-aligned")
def tensor_not_tile_aligned():
    @pykernel_gen(grid=(1, 1))
    def aligned(x, out):  # <- tensor_not_tile_aligned
        return None

    aligned.compile(TensorSpec((48, 64)), OUT)


@bad(KernelError, "dtype torch.int32", "bfloat16 or float32")
def integer_tensor():
    @pykernel_gen(grid=(1, 1))
    def ints(x, out):  # <- integer_tensor
        return None

    ints(torch.zeros(64, 64, dtype=torch.int32), torch.zeros(64, 64))


@bad(KernelError, "not tile-aligned")
def one_dimensional_tensor():
    @pykernel_gen(grid=(1, 1))
    def flat(x, out):  # <- one_dimensional_tensor
        return None

    flat.compile(TensorSpec((1024,)), OUT)


# ====================================================================== decorator options


@bad(KernelError, "block_factors has 2 entries", "3 tensors", at="decorator")
def block_factors_count():
    compile_with(block_factors=[(2, 2), (1, 2)])  # <- block_factors_count


@bad(KernelError, "not a block of", "2x2 tiles", at="decorator")
def block_factors_larger_than_the_tensor():
    compile_with(block_factors=[(4, 4), (1, 2), (2, 2)])  # <- block_factors_larger_than_the_tensor


@bad(KernelError, "cb_buffers has 2 entries", at="decorator")
def cb_buffers_count():
    compile_with(cb_buffers=[2, 2])  # <- cb_buffers_count


@bad(KernelError, "a CB holds at least one block", at="decorator")
def cb_buffers_zero():
    kernel(cb_buffers=0)  # <- cb_buffers_zero


@bad(KernelError, "memory_space", "L1", at="decorator")
def memory_space_unknown():
    compile_with(memory_space="SRAM")  # <- memory_space_unknown


@bad(KernelError, "larger than the device's 8x8", at="decorator")
def grid_larger_than_the_device():
    compile_with(grid=(9, 1))  # <- grid_larger_than_the_device


@bad(KernelError, "grid must be two positive ints", at="decorator")
def grid_with_zero_rows():
    compile_with(grid=(0, 1))  # <- grid_with_zero_rows


@bad(KernelError, "device_grid=(100, 100) is not a core grid", at="decorator")
def impossible_device_grid():
    kernel(device_grid=(100, 100))  # <- impossible_device_grid


@bad(KernelError, "math_fidelity='Ultra' is not a math fidelity", "HiFi4", at="decorator")
def unknown_math_fidelity():
    kernel(math_fidelity="Ultra")  # <- unknown_math_fidelity


@bad(KernelError, "num_outs=0", at="decorator")
def no_outputs():
    kernel(num_outs=0)  # <- no_outputs


@bad(KernelError, "num_outs=4", "3 tensors", at="decorator")
def more_outputs_than_tensors():
    compile_with(num_outs=4)  # <- more_outputs_than_tensors


@bad(L1BudgetError, "need 32768 KiB of L1 per core", "1364 KiB", "block_factors")
def cbs_larger_than_l1():
    big = TensorSpec((2048, 2048))

    @pykernel_gen(grid=(1, 1), block_factors=[(64, 64), (64, 64)], cb_buffers=2)  # <- cbs_larger_than_l1
    def huge(x, out):
        x_acc, out_acc = TensorAccessor(x), TensorAccessor(out)

        @compute()
        def compute_thread(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with x_cb.wait() as a, out_cb.reserve() as o:
                o.store(a + a)

        @datamovement()
        def reader(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with x_cb.reserve() as blk:
                dma(x_acc[0, 0], blk).wait()

        @datamovement()
        def writer(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with out_cb.wait() as blk:
                dma(blk, out_acc[0, 0]).wait()

        return Program(compute_thread, reader, writer)(x, out)

    huge.compile(big, big)


# ====================================================================== run time


@bad(EmulatorError, "deadlock", "`x_cb` (cb 0): cb_wait_front wants 4 page(s)")
def compute_waits_for_a_block_never_sent():
    def body(x_cb, y_cb, out_cb):
        for i in range(2):
            with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
                o.store(a + a)

    def writer_body(x_cb, y_cb, out_cb, out_acc):
        for i in range(2):
            with out_cb.wait() as blk:
                dma(blk, out_acc[0, 0]).wait()

    kernel(body, writer_body=writer_body)(*tensors())


@bad(EmulatorError, "deadlock", "`x_cb` (cb 0): cb_reserve_back wants 4 free page(s)")
def reader_sends_more_than_compute_takes():
    def reader_body(x_cb, y_cb, x_acc, y_acc):
        for i in range(4):
            with x_cb.reserve() as blk:
                dma(x_acc[0, 0], blk).wait()
        with y_cb.reserve() as blk:
            dma(y_acc[0, 0], blk).wait()

    kernel(reader_body=reader_body)(*tensors())


@bad(EmulatorError, "deadlock", "`mask_cb` (cb 2): cb_wait_front wants 4 page(s)")
def compute_waits_for_a_second_mask_never_filled():
    # balanced as far as the compiler sees (one push, waits), short by one at run time
    @pykernel_gen(grid=(1, 1), block_factors=[(2, 2), (2, 2)])
    def masked_twice(x, out):  # x and out implicit
        mask_cb = CircularBuffer((64, 64))

        @compute()
        def add(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with x_cb.wait() as a, mask_cb.wait() as m, out_cb.reserve() as o:
                o.store(a + m)
            with mask_cb.wait() as m:
                pass

        @datamovement()
        def masks(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with mask_cb.reserve() as blk:
                fill_causal_mask(blk, 0, 0)

        return Program(add, masks)(x, out)

    x = torch.ones(64, 64, dtype=torch.bfloat16)
    masked_twice(x, torch.zeros_like(x))


@bad(EmulatorError, "core (0,0) reader", "tile index [0, 1] of `x` (2x2 tiles)", "in dim 1 it covers tiles 1..2")
def runtime_accessor_index_past_the_tensor():
    def reader_body(x_cb, y_cb, x_acc, y_acc):
        with x_cb.reserve() as blk:
            dma(x_acc[0, core_index(0) + 1], blk).wait()  # <- runtime_accessor_index_past_the_tensor
        with y_cb.reserve() as blk:
            dma(y_acc[0, 0], blk).wait()

    kernel(reader_body=reader_body)(*tensors())


@bad(EmulatorError, "tile index [0, 2] of `y` (2x3 tiles)", "in dim 1 it covers tiles 2..3 of 0..2")
def runtime_accessor_index_past_the_row():
    # y is 2x3 tiles here: its page 3 exists (row 1's first tile), so the block's second
    # tile used to be read from the next row with no error
    def reader_body(x_cb, y_cb, x_acc, y_acc):
        with x_cb.reserve() as blk:
            dma(x_acc[0, 0], blk).wait()
        with y_cb.reserve() as blk:
            dma(y_acc[0, core_index(1) + 2], blk).wait()  # <- runtime_accessor_index_past_the_row

    kernel(reader_body=reader_body)(
        torch.ones(64, 64, dtype=torch.bfloat16),
        torch.ones(64, 96, dtype=torch.bfloat16),
        torch.zeros(64, 64, dtype=torch.bfloat16),
    )


@bad(EmulatorError, "pages pushed to 1 CB(s) that no thread waited for", "core (0,0) `out_cb` (cb 2): 4 page(s)")
def output_drained_only_in_a_branch_never_taken():
    # the compiler sees a wait of out_cb; the run never makes it: out came back unwritten
    def writer_body(x_cb, y_cb, out_cb, out_acc):
        if core_index(0) == 1:
            with out_cb.wait() as blk:
                dma(blk, out_acc[0, 0]).wait()

    kernel(writer_body=writer_body)(*tensors())


@bad(EmulatorError, "semaphore", "noc_semaphore_wait")
def semaphore_never_set():
    @pykernel_gen(grid=(1, 1))
    def waits(x, out):
        x_acc, out_acc = TensorAccessor(x), TensorAccessor(out)

        @datamovement()
        def mover(x_cb: CircularBuffer, out_cb: CircularBuffer, ready: Semaphore):
            ready.wait(1)
            with x_cb.reserve() as blk:
                dma(x_acc[0, 0], blk).wait()
            with x_cb.wait() as blk:
                dma(blk, out_acc[0, 0]).wait()

        return Program(mover)(x, out)

    waits(torch.ones(32, 32), torch.zeros(32, 32))


@bad(KernelError, "fill value must be a compile-time number, not str")
def fill_with_a_string():
    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            o.store(a + full((64, 64), "nan"))  # <- fill_with_a_string

    compile_with(body)


@bad(KernelError, "a block shape is a tuple (rows, cols), not int 64")
def zeros_of_a_number():
    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            o.store(a + zeros(64))  # <- zeros_of_a_number

    compile_with(body)


@bad(KernelError, "`math.exp` runs at compile time")
def math_module_call_on_a_block():
    def body(x_cb, y_cb, out_cb):
        with x_cb.wait() as a, y_cb.wait() as b, out_cb.reserve() as o:
            o.store(a + math.exp(a))  # <- math_module_call_on_a_block

    compile_with(body)
