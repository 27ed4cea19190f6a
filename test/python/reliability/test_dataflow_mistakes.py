"""Data-movement mistakes that used to run and return a wrong result (issue 13): each
is now rejected at compile time with the kernel line and what was probably meant, or
(a transfer not waited before its block is handed on) gets the wait it needs."""

import pytest
import torch

from ttlang import (
    CircularBuffer,
    Program,
    TensorAccessor,
    TensorSpec,
    compute,
    core_index,
    datamovement,
    dma,
    pykernel_gen,
)
from ttlang.dsl.diagnostics import KernelError

TILE = TensorSpec((32, 32))


def line_of(text: str) -> int:
    lines = open(__file__).read().splitlines()
    return next(n for n, line in enumerate(lines, 1) if text in line)


@pykernel_gen(grid=(1, 1))
def drains_wrong_cb(x, out):
    x_acc, out_acc = TensorAccessor(x), TensorAccessor(out)

    @compute()
    def double(x_cb: CircularBuffer, out_cb: CircularBuffer):
        with x_cb.wait() as a, out_cb.reserve() as o:  # compute pushes out_cb
            o.store(a + a)

    @datamovement()
    def reader(x_cb: CircularBuffer, out_cb: CircularBuffer):
        with x_cb.reserve() as blk:
            dma(x_acc[0, 0], blk).wait()

    @datamovement()
    def writer(x_cb: CircularBuffer, out_cb: CircularBuffer):
        with x_cb.wait() as blk:  # should be out_cb
            dma(blk, out_acc[0, 0]).wait()

    return Program(double, reader, writer)(x, out)


def test_output_cb_pushed_and_never_drained_is_rejected():
    with pytest.raises(KernelError) as info:
        drains_wrong_cb.compile(TILE, TILE)
    error = info.value
    assert "`out_cb` (the CB of `out`, cb 1)" in error.message
    assert "no thread waits for it" in error.message
    assert (error.filename, error.line) == (__file__, line_of("# compute pushes out_cb"))


@pykernel_gen(grid=(1, 1))
def waits_unfilled_cb(x, out):
    x_acc, out_acc = TensorAccessor(x), TensorAccessor(out)

    @compute()
    def copy(x_cb: CircularBuffer, out_cb: CircularBuffer):
        with x_cb.wait() as a, out_cb.reserve() as o:  # nothing pushes x_cb
            o.store(a + 0.0)

    @datamovement()
    def reader(x_cb: CircularBuffer, out_cb: CircularBuffer):
        with out_cb.reserve() as blk:  # should be x_cb
            dma(x_acc[0, 0], blk).wait()

    @datamovement()
    def writer(x_cb: CircularBuffer, out_cb: CircularBuffer):
        with out_cb.wait() as blk:
            dma(blk, out_acc[0, 0]).wait()

    return Program(copy, reader, writer)(x, out)


def test_input_cb_waited_and_never_filled_is_rejected():
    with pytest.raises(KernelError) as info:
        waits_unfilled_cb.compile(TILE, TILE)
    assert "waits for `x_cb` (the CB of `x`, cb 0)" in info.value.message
    assert info.value.line == line_of("# nothing pushes x_cb")


def copy_kernel(reader_body):
    """x -> out through compute; `reader_body(x_cb, x_acc, out_acc)` is the reader."""

    @pykernel_gen(grid=(1, 1))
    def copy(x, out):
        x_acc, out_acc = TensorAccessor(x), TensorAccessor(out)

        @compute()
        def add_one(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with x_cb.wait() as a, out_cb.reserve() as o:
                o.store(a + 1.0)

        @datamovement()
        def reader(x_cb: CircularBuffer, out_cb: CircularBuffer):
            reader_body(x_cb, x_acc, out_acc)

        @datamovement()
        def writer(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with out_cb.wait() as blk:
                dma(blk, out_acc[0, 0]).wait()

        return Program(add_one, reader, writer)(x, out)

    return copy


def write_into_input(x_cb, x_acc, out_acc):
    with x_cb.reserve() as blk:
        dma(blk, x_acc[0, 0]).wait()  # swapped arguments


def read_into_waited_block(x_cb, x_acc, out_acc):
    with x_cb.wait() as blk:
        dma(x_acc[0, 0], blk).wait()  # a consumer's block


@pytest.mark.parametrize(
    "body, marker, words",
    [
        (write_into_input, "# swapped arguments", ["writes into `x`, an input tensor", "dma(x_acc[...], blk)"]),
        (read_into_waited_block, "# a consumer's block", ["taken with x_cb.wait()", "dma(blk, acc[...])"]),
    ],
)
def test_dma_in_the_wrong_direction_is_rejected(body, marker, words):
    with pytest.raises(KernelError) as info:
        copy_kernel(body).compile(TILE, TILE)
    text = f"{info.value.message} {info.value.hint}"
    for word in words:
        assert word in text
    assert info.value.line == line_of(marker)


def read_without_wait(x_cb, x_acc, out_acc):
    with x_cb.reserve() as blk:
        dma(x_acc[0, 0], blk)  # no .wait(): the push waits for it


def test_a_transfer_not_waited_gets_its_wait_before_the_push():
    kernel = copy_kernel(read_without_wait)
    reader = str(kernel.frontend_module(TILE, TILE)).split("}, {")[1]
    read, wait, push = (reader.index(op) for op in ("d2m.dma_read", "d2m.dma_wait", "d2m.push"))
    assert read < wait < push
    x = torch.randn(32, 32).to(torch.bfloat16)
    out = torch.zeros_like(x)
    kernel(x, out)
    torch.testing.assert_close(out.float(), (x.float() + 1).to(torch.bfloat16).float(), rtol=0, atol=0)


def read_in_branch_without_wait(x_cb, x_acc, out_acc):
    with x_cb.reserve() as blk:
        if core_index(0) == 0:
            dma(x_acc[0, 0], blk)  # waited nowhere


def test_a_transfer_that_cannot_be_waited_any_more_is_rejected():
    with pytest.raises(KernelError) as info:
        copy_kernel(read_in_branch_without_wait).compile(TILE, TILE)
    assert "is never waited" in info.value.message
    assert info.value.line == line_of("# waited nowhere")
