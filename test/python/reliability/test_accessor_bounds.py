"""Every accessor transfer is checked against its tensor's tile shape, dimension by
dimension (issue 13): a run-time index whose block runs past the end of a row used to
read the next row's tiles with no error, since pages are numbered row-major. Constant
indices are checked at compile time; run-time ones by the emulator, which names the
core, thread, kernel, the dma's line and the index."""

import inspect

import pytest
import torch

from ttlang import CircularBuffer, Program, TensorAccessor, compute, core_index, datamovement, dma, pykernel_gen
from ttlang.runtime import EmulatorError


def row_copy(grid, column):
    """Each core copies the (1, 2)-tile block of x at tile (0, column(core)) to its
    block of out, doubled; x is 2x3 tiles."""

    @pykernel_gen(grid=grid, block_factors=[(1, 2), (1, 2)])
    def walk(x, out):
        x_acc, out_acc = TensorAccessor(x), TensorAccessor(out)

        @compute()
        def double(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with x_cb.wait() as a, out_cb.reserve() as o:
                o.store(a + a)

        @datamovement()
        def reader(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with x_cb.reserve() as blk:
                dma(x_acc[0, column(core_index(1))], blk).wait()  # the checked transfer

        @datamovement()
        def writer(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with out_cb.wait() as blk:
                dma(blk, out_acc[0, core_index(1) * 2]).wait()

        return Program(double, reader, writer)(x, out)

    return walk


X = torch.arange(64 * 96, dtype=torch.float32).reshape(64, 96).to(torch.bfloat16)
DMA_LINE = next(
    number
    for number, text in enumerate(inspect.getsource(inspect.getmodule(row_copy)).splitlines(), start=1)
    if "# the checked transfer" in text
)


def test_a_block_past_the_end_of_a_row_is_reported_not_read_from_the_next_row():
    out = torch.zeros(32, 64, dtype=torch.bfloat16)
    with pytest.raises(EmulatorError) as caught:
        row_copy((1, 1), lambda col: col + 2)(X, out)
    error = caught.value
    assert (error.filename, error.line) == (__file__, DMA_LINE)
    message = str(error)
    assert message.startswith(f"core (0,0) reader [kernel 'walk_reader']: {__file__}:{DMA_LINE}: ")
    assert "a transfer of a 1x2-tile block at tile index [0, 2] of `x` (2x3 tiles) leaves the tensor" in message
    assert "in dim 1 it covers tiles 2..3 of 0..2" in message


def test_a_negative_run_time_index_is_reported_on_the_core_that_computes_it():
    out = torch.zeros(32, 128, dtype=torch.bfloat16)
    with pytest.raises(EmulatorError) as caught:
        row_copy((1, 2), lambda col: 1 - col * 2)(X, out)  # core (0,1) asks for tile -1
    message = str(caught.value)
    assert message.startswith(f"core (0,1) reader [kernel 'walk_reader']: {__file__}:{DMA_LINE}: ")
    assert "tile index [0, -1] of `x` (2x3 tiles)" in message
    assert "in dim 1 it starts at tile -1 of 0..2" in message


def test_run_time_indices_inside_the_tensor_pass_the_check():
    out = torch.zeros(32, 128, dtype=torch.bfloat16)
    row_copy((1, 2), lambda col: col)(X, out)  # tiles 0..1 and 1..2 of row 0
    expected = torch.cat([X[:32, 0:64], X[:32, 32:96]], dim=1).float() * 2
    assert torch.equal(out.float(), expected)
