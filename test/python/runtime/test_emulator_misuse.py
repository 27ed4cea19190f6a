"""Strictness: each misuse is caught by a deliberately broken kernel
(test/emulator/kernels/broken) and reported with core, thread, kernel and CB."""

import dataclasses
import re

import emulator_programs as programs
import pytest
import torch

from ttlang.runtime import EmulatorError, run_program
from ttlang.runtime.program import CBConfig, ComputeConfig

SHAPE = (64, 64)  # 4 tiles
CB_A, CB_B, CB_OUT = 0, 1, 16


def eltwise(grid=(1, 1), **changes):
    """Eltwise add of SHAPE-sized tensors on every core of `grid` (4 tiles per core)."""
    shape = (SHAPE[0] * grid[0], SHAPE[1] * grid[1])
    return dataclasses.replace(programs.eltwise_add(shape, grid), **changes)


def broken(kind, file_name, *compile_time_args, program=None):
    return programs.with_kernel(program or eltwise(), kind, f"broken/{file_name}", *compile_time_args)


def run(program, timeout_s=None):
    shape = program.buffers[0].shape
    tensors = {"a": torch.ones(shape), "b": torch.ones(shape), "out": torch.zeros(shape)}
    return run_program(program, tensors, timeout_s=timeout_s)


def error_of(program, timeout_s=None) -> str:
    with pytest.raises(EmulatorError) as caught:
        run(program, timeout_s)
    return str(caught.value)


def test_deadlock_reports_every_blocked_thread():
    message = error_of(broken("reader", "reader_skips_cb_b.cpp", program=eltwise(grid=(1, 2))))
    assert message.startswith("deadlock: no thread can make progress; 6 blocked thread(s)")
    for col in (0, 1):
        assert f"core (0,{col}) reader [kernel 'reader_binary']: cb 0: cb_reserve_back wants 1 free page(s), 0 free" in message
        assert f"core (0,{col}) compute [kernel 'compute_eltwise_add']: cb 1: cb_wait_front wants 1 page(s), 0 available" in message
        assert f"core (0,{col}) writer [kernel 'writer_unary']: cb 16: cb_wait_front wants 1 page(s), 0 available" in message


def test_waiting_for_more_than_was_pushed_is_a_deadlock():
    program = eltwise()
    program.runtime_args["reader_binary"][(0, 0)][3] = 1  # the reader sends 1 tile, compute wants 4
    message = error_of(program)
    assert "core (0,0) compute [kernel 'compute_eltwise_add']: cb 0: cb_wait_front wants 1 page(s), 0 available" in message


def test_semaphore_deadlock_names_the_semaphore_wait():
    message = error_of(broken("reader", "waits_on_semaphore.cpp", program=eltwise(semaphores=[0])))
    assert re.search(r"core \(0,0\) reader \[kernel 'reader_binary'\]: noc_semaphore_wait at 0x[0-9a-f]+ wants == 1, value is 0", message)


def test_semaphore_set_by_a_plain_store_is_not_a_deadlock():
    program = eltwise(semaphores=[0])
    program = programs.with_kernel(program, "reader", "sets_semaphore_by_store.cpp")
    program = programs.with_kernel(program, "writer", "broken/waits_on_semaphore.cpp")
    program.kernels = [k for k in program.kernels if k.kind != "compute"]
    del program.runtime_args["compute_eltwise_add"]
    report = run(program).report
    writer = next(t for t in report.cores[0].threads if t.thread == "writer")
    assert writer.kernel == "writer_unary"


def test_dst_index_beyond_half_sync_capacity():
    message = error_of(broken("compute", "compute_dst_index.cpp", CB_A, CB_B, CB_OUT, 8))
    assert "core (0,0) compute [kernel 'compute_eltwise_add']: add/sub/mul_tiles: DST index 8 is beyond DST capacity 8 tiles (16-bit DST, half sync)" in message


def test_dst_index_8_is_fine_in_full_sync_but_4_is_not_with_fp32_dest():
    full_sync = eltwise(compute_config=ComputeConfig(dst_full_sync_en=True))
    result = run(broken("compute", "compute_dst_index.cpp", CB_A, CB_B, CB_OUT, 8, program=full_sync))
    assert torch.equal(result.outputs["out"].float(), torch.full(SHAPE, 2.0))
    fp32 = eltwise(compute_config=ComputeConfig(fp32_dest_acc_en=True))
    message = error_of(broken("compute", "compute_dst_index.cpp", CB_A, CB_B, CB_OUT, 4, program=fp32))
    assert "DST index 4 is beyond DST capacity 4 tiles (32-bit DST, half sync)" in message


def test_math_outside_acquire():
    message = error_of(broken("compute", "compute_math_before_acquire.cpp"))
    assert "core (0,0) compute [kernel 'compute_eltwise_add']: add/sub/mul_tiles touches DST outside tile_regs_acquire..tile_regs_commit (DST is released (no tile_regs_acquire))" in message


def test_pack_before_tile_regs_wait():
    message = error_of(broken("compute", "compute_pack_before_wait.cpp"))
    assert "pack_tile reads DST outside tile_regs_wait..tile_regs_release (DST is committed (waiting for tile_regs_wait))" in message


def test_packer_reconfig_under_reduce_masks():
    message = error_of(broken("compute", "compute_pack_reconfig_under_reduce_mask.cpp", CB_A, CB_B, CB_OUT))
    assert (
        "core (0,0) compute [kernel 'compute_eltwise_add']: pack_reconfig_data_format(cb 16) reconfigures the "
        "packer while reduce_init's edge masks are on: call reduce_uninit first" in message
    )


def test_compute_kernel_returning_with_dst_held():
    message = error_of(broken("compute", "compute_keeps_dst.cpp"))
    assert "core (0,0) compute [kernel 'compute_eltwise_add']: the compute kernel returned while DST is acquired by math" in message


def test_push_beyond_capacity():
    message = error_of(broken("reader", "reader_push_overflow.cpp"))
    assert "core (0,0) reader [kernel 'reader_binary']: cb 0: cb_push_back(3) pushes beyond the CB's capacity (2 of 2 pages free)" in message


def test_reserve_larger_than_the_cb():
    message = error_of(broken("reader", "reader_reserve_too_large.cpp"))
    assert "core (0,0) reader [kernel 'reader_binary']: cb 0: cb_reserve_back(3) reserves more pages than the CB holds (2)" in message


def test_pop_more_than_pushed():
    message = error_of(broken("compute", "compute_pop_too_many.cpp"))
    assert re.search(r"core \(0,0\) compute \[kernel 'compute_eltwise_add'\]: cb 0: cb_pop_front\(3\) pops more pages than were pushed \([12] available\)", message)


def test_wait_larger_than_the_cb():
    message = error_of(broken("compute", "compute_wait_too_large.cpp"))
    assert "cb 0: cb_wait_front(3) waits for more pages than the CB holds (2)" in message


def test_dram_read_out_of_bounds():
    message = error_of(broken("reader", "reader_dram_out_of_bounds.cpp"))
    assert "core (0,0) reader [kernel 'reader_binary']: out-of-bounds DRAM read: bank 4 address" in message
    assert "past the last page of buffer 'a' (4 pages)" in message


def test_l1_over_allocation():
    page = 2048
    program = eltwise(cbs=[CBConfig(CB_A, 400, page), CBConfig(CB_B, 400, page), CBConfig(CB_OUT, 2, page)])
    message = error_of(program)
    assert "L1 over-allocation: cb 1 (400 pages x 2048 B) brings the CBs to 1638400 bytes, but a core has 1396736 bytes of L1 for CBs" in message


def test_cb_sharing_l1_must_fit_and_name_a_holder():
    page = 2048
    larger = eltwise(
        cbs=[CBConfig(CB_A, 2, page), CBConfig(CB_B, 2, page), CBConfig(CB_OUT, 4, page, shares_l1_with=CB_A)]
    )
    assert f"cb {CB_OUT} (8192 B) is larger than cb {CB_A}, whose L1 it shares" in error_of(larger)
    # a holder may be listed after its sharer, but must have L1 of its own
    chained = eltwise(
        cbs=[
            CBConfig(CB_A, 2, page, shares_l1_with=CB_B),
            CBConfig(CB_B, 2, page, shares_l1_with=CB_OUT),
            CBConfig(CB_OUT, 2, page),
        ]
    )
    assert f"shares the L1 of cb {CB_B}, which is not a CB with L1 of its own" in error_of(chained)


def test_kernel_crash_is_reported_not_fatal():
    message = error_of(broken("reader", "reader_null_pointer.cpp"))
    assert "the emulator died with SIGSEGV" in message
    assert "core (0,0) reader [kernel 'reader_binary']: kernel crashed with SIGSEGV" in message


def test_kernel_hang_times_out():
    message = error_of(broken("reader", "reader_spins_forever.cpp"), timeout_s=2)
    assert "did not finish within 2 s" in message


def test_kernel_compile_error_names_the_kernel():
    from ttlang.runtime import KernelCompileError
    from ttlang.runtime.program import Kernel

    program = eltwise()
    program.kernels[0] = Kernel("reader_binary", "reader", "void kernel_main() { undefined_call(); }")
    with pytest.raises(KernelCompileError, match=r"reader kernel 'reader_binary' failed to compile:(.|\n)*undefined_call"):
        run(program)


FAR_FIRST_MULTICAST = """#include "api/dataflow/dataflow_api.h"
void kernel_main() {  // core (0,0) multicasts to the rest of its row, named from the far end
  if (my_x[noc_index] != 0) return;
  uint32_t page = get_write_ptr(0);
  noc_async_write_multicast(page, get_noc_multicast_addr(2, 0, 1, 0, page), 32, 2);
  noc_async_write_barrier();
}
"""


def test_a_multicast_rectangle_follows_its_kernels_noc():
    """The program's kernel `noc` reaches the emulator: a rectangle named from its far
    corner is NoC 1's order (tt-metal's programs swap start and end for NoC 1), so it
    runs on a kernel put on NoC 1 and is refused, naming core, thread and kernel, on a
    reader left on its default NoC 0."""
    from ttlang.runtime.program import Kernel, Program

    def row_program(noc):
        kernel = Kernel("far_first", "reader", FAR_FIRST_MULTICAST, noc=noc)
        return Program(grid=(1, 3), kernels=[kernel], cbs=[CBConfig(0, 2, 2048)], buffers=[])

    run_program(row_program(1), {})
    with pytest.raises(EmulatorError) as caught:
        run_program(row_program(None), {})
    message = str(caught.value)
    assert (
        "core (0,0) reader [kernel 'far_first']: noc_async_write_multicast: on NoC 0 a multicast "
        "rectangle starts at its smallest x and y (start <= end); got start (2,0), end (1,0)"
    ) in message
