"""Loops take any Python int bounds and steps (issue 13): negative starts, negative and
large steps, run-time bounds counting down; bounds the kernel's int32_t counter cannot
hold are a KernelError at the loop's line.

Before the fix loop counters were uint32_t: `range(-1, 1)` ran zero times and the
result came back silently wrong."""

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
    zeros,
)
from ttlang.dsl.diagnostics import KernelError


def counting_kernel(start: int, stop: int, step: int):
    """out = x * len(range(start, stop, step)), counted by a loop-carried sum in the
    compute thread."""

    @pykernel_gen(grid=(1, 1))
    def count(x, out):
        x_acc, out_acc = TensorAccessor(x), TensorAccessor(out)

        @compute()
        def add_up(x_cb: CircularBuffer, out_cb: CircularBuffer):
            total = zeros((32, 32))
            with x_cb.wait() as blk:
                for i in range(start, stop, step):
                    total = total + blk
            with out_cb.reserve() as o:
                o.store(total)

        @datamovement()
        def reader(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with x_cb.reserve() as blk:
                dma(x_acc[0, 0], blk).wait()

        @datamovement()
        def writer(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with out_cb.wait() as blk:
                dma(blk, out_acc[0, 0]).wait()

        return Program(add_up, reader, writer)(x, out)

    return count


@pytest.mark.parametrize(
    "bounds",
    [(-1, 1, 1), (-4, -1, 1), (3, -3, -2), (5, 0, -1), (0, 7, 3), (2, 2, 1), (1, 5, -1), (-3, 3, 4)],
)
def test_compute_loop_counts_like_python(bounds):
    x = torch.ones(32, 32, dtype=torch.bfloat16)
    out = torch.full((32, 32), -7.0, dtype=torch.bfloat16)
    counting_kernel(*bounds)(x, out)
    trips = len(range(*bounds))
    # small integers are exact in bf16
    torch.testing.assert_close(out.float(), torch.full((32, 32), float(trips)), rtol=0, atol=0)


COLS = 4


@pykernel_gen(grid=(1, 2))
def reverse_copy(x, out):
    """Each core copies its row of 4 tiles, reading and writing the tiles last to first
    with run-time bounds (the core's column) and a negative step."""
    x_acc, out_acc = TensorAccessor(x), TensorAccessor(out)

    @compute()
    def copy(x_cb: CircularBuffer, out_cb: CircularBuffer):
        for i in range(COLS - 1, -1, -1):
            with x_cb.wait() as blk, out_cb.reserve() as o:
                o.store(blk + 0.0)

    @datamovement()
    def reader(x_cb: CircularBuffer, out_cb: CircularBuffer):
        first = core_index(1) * COLS
        for j in range(first + COLS - 1, first - 1, -1):
            with x_cb.reserve() as blk:
                dma(x_acc[0, j], blk).wait()

    @datamovement()
    def writer(x_cb: CircularBuffer, out_cb: CircularBuffer):
        first = core_index(1) * COLS
        for j in range(first + COLS - 1, first - 1, -1):
            with out_cb.wait() as blk:
                dma(blk, out_acc[0, j]).wait()

    return Program(copy, reader, writer)(x, out)


def test_data_movement_loops_count_down_with_runtime_bounds():
    x = torch.randn(32, 32 * COLS * 2).to(torch.bfloat16)
    out = torch.zeros_like(x)
    reverse_copy(x, out)
    torch.testing.assert_close(out, x, rtol=0, atol=0)


@pytest.mark.parametrize(
    "bounds, words",
    [
        ((0, 2**32 + 1, 1), "does not fit"),
        ((-(2**31) - 1, 0, 1), "does not fit"),
        ((0, 2**31 - 1, 4), "overflows"),
        ((0, 4, 0), "nonzero"),
    ],
)
def test_bounds_the_counter_cannot_hold_are_kernel_errors(bounds, words):
    kernel = counting_kernel(*bounds)
    tile = TensorSpec((32, 32))
    with pytest.raises(KernelError) as info:
        kernel.compile(tile, tile)
    assert words in info.value.message
    assert info.value.filename == __file__
    loop_line = next(
        n for n, text in enumerate(open(__file__).read().splitlines(), 1) if "for i in range(start" in text
    )
    assert info.value.line == loop_line
