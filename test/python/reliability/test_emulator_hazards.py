"""The emulator lands a NoC read when the NoC completes it, not when it is issued, so a
kernel that hands a CB page on before its transfer completes is caught (issue 13):
before, the read was copied at issue and the race gave the right answer."""

import emulator_programs as programs
import pytest
import torch

from ttlang.runtime import EmulatorError, run_program

SHAPE = (64, 64)


def run(program):
    tensors = {"a": torch.ones(SHAPE), "b": torch.ones(SHAPE), "out": torch.zeros(SHAPE)}
    return run_program(program, tensors)


@pytest.mark.parametrize(
    "kind, file_name, words",
    [
        ("reader", "reader_push_before_barrier.cpp", ["cb_push_back(cb 0, 1) publishes a page a noc_async_read", "noc_async_read_barrier()"]),
        ("writer", "writer_pop_before_barrier.cpp", ["cb_pop_front(cb 16, 1) frees a page a noc_async_write", "noc_async_write_barrier()"]),
    ],
)
def test_a_page_handed_on_while_its_transfer_is_in_flight_is_reported(kind, file_name, words):
    program = programs.with_kernel(programs.eltwise_add(SHAPE, (1, 1)), kind, f"broken/{file_name}")
    with pytest.raises(EmulatorError) as caught:
        run(program)
    message = str(caught.value)
    assert f"core (0,0) {kind}" in message
    for word in words:
        assert word in message


def test_the_same_kernels_with_barriers_are_right():
    result = run(programs.eltwise_add(SHAPE, (1, 1)))
    assert torch.equal(result.outputs["out"].float(), torch.full(SHAPE, 2.0))
