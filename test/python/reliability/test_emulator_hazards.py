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


def test_a_run_past_its_time_limit_names_every_thread_still_running():
    program = programs.with_kernel(programs.eltwise_add(SHAPE, (1, 2)), "reader", "broken/reader_spins_forever.cpp")
    with pytest.raises(EmulatorError) as caught:
        run_program(program, {"a": torch.ones(SHAPE), "b": torch.ones(SHAPE), "out": torch.zeros(SHAPE)}, timeout_s=3)
    message = str(caught.value)
    assert "did not finish within 3 s" in message
    assert "threads still running:" in message
    # the first reader spins without an API call and never yields, so no other thread
    # has made a call yet (the scheduler runs one fiber at a time, deterministically)
    for col in (0, 1):
        for label in ("reader [kernel 'reader_binary']", "compute [kernel 'compute_eltwise_add']", "writer [kernel 'writer_unary']"):
            assert f"core (0,{col}) {label}: last API call (none yet)" in message


def test_the_time_limit_report_gives_each_thread_its_last_api_call():
    program = programs.with_kernel(programs.eltwise_add(SHAPE, (1, 1)), "reader", "broken/reader_spins_after_one_tile.cpp")
    with pytest.raises(EmulatorError) as caught:
        run_program(program, {"a": torch.ones(SHAPE), "b": torch.ones(SHAPE), "out": torch.zeros(SHAPE)}, timeout_s=3)
    message = str(caught.value)
    assert "core (0,0) reader [kernel 'reader_binary']: last API call cb_push_back" in message
    assert "core (0,0) compute [kernel 'compute_eltwise_add']: last API call cb_wait_front" in message
    assert "core (0,0) writer [kernel 'writer_unary']: last API call cb_wait_front" in message
