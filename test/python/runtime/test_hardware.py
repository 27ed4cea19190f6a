"""The hardware target (python/ttlang/runtime/hardware.py).

Everywhere: the pure Program -> ttnn descriptor translation, checked on programs the
compiler produced; the kernel sources against what tt-metal's JIT accepts; the one-line
error without ttnn. Only where ttnn imports (and a device opens): real launches,
compared with torch. Without ttnn those skip.
"""

from __future__ import annotations

import dataclasses
import functools
import re

import pytest
import torch
from ttlang import (
    CircularBuffer,
    Program,
    TensorAccessor,
    compute,
    core_index,
    datamovement,
    dma,
    pykernel_gen,
)
from ttlang.runtime import HardwareUnavailableError, RuntimeLaunchError, run_program
from ttlang.runtime import hardware as hw
from ttlang.target.program import BufferAddress, CBConfig

from examples import eltwise_add, matmul, multicast, softmax

TTNN = hw.is_available()
needs_ttnn = pytest.mark.skipif(not TTNN, reason="ttnn is not installed: no Tenstorrent device to run on")


def bf16(*shape):
    return torch.zeros(*shape, dtype=torch.bfloat16)


@pykernel_gen(
    grid=(2, 3),
    block_factors=[(1, 1), (1, 1)],
    math_fidelity="HiFi4",
    fp32_dest_acc_en=True,
    math_approx_mode=True,
    dst_full_sync_en=True,
)
def exp_configured(x, out):
    x_acc, out_acc = TensorAccessor(x), TensorAccessor(out)

    @compute()
    def apply(x_cb: CircularBuffer, out_cb: CircularBuffer):
        with x_cb.wait() as a, out_cb.reserve() as o:
            o.store(a.exp())

    @datamovement()
    def reader(x_cb: CircularBuffer, out_cb: CircularBuffer):
        with x_cb.reserve() as blk:
            dma(x_acc[core_index(0), core_index(1)], blk).wait()

    @datamovement()
    def writer(x_cb: CircularBuffer, out_cb: CircularBuffer):
        with out_cb.wait() as blk:
            dma(blk, out_acc[core_index(0), core_index(1)]).wait()

    return Program(apply, reader, writer)(x, out)


@functools.cache
def compiled(name: str):
    """Programs the compiler produced, by name (compiled once per test session)."""
    if name == "add":
        return eltwise_add.add.compile(bf16(32, 32), bf16(32, 32), bf16(32, 32)).program
    if name == "matmul":  # 4x4 grid, K loop
        return matmul.matmul.compile(bf16(256, 512), bf16(512, 256), bf16(256, 256)).program
    if name == "softmax":  # 2x1 grid, reductions and broadcasts
        return softmax.softmax.compile(bf16(64, 128), bf16(64, 128)).program
    if name == "configured":  # 2x3 grid, every ComputeConfig field off its default
        return exp_configured.compile(bf16(64, 96), bf16(64, 96)).program
    if name == "multicast":  # 1x3 grid, two semaphores, multicast
        return multicast.broadcast_exp.compile(bf16(32, 192), bf16(32, 192)).program
    raise KeyError(name)


def addresses_for(program) -> dict[str, int]:
    """Distinct, large (above 2^31) fake DRAM addresses, one per buffer."""
    return {buffer.name: 0x8000_0000 + 0x10_0000 * (i + 1) for i, buffer in enumerate(program.buffers)}


def kernel_of(spec: hw.ProgramSpec, kind: str) -> hw.KernelSpec:
    (kernel,) = [k for k in spec.kernels if k.kind == kind]
    return kernel


# --- core ranges ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "end"),
    [("add", (0, 0)), ("matmul", (3, 3)), ("softmax", (0, 1)), ("configured", (2, 1)), ("multicast", (2, 0))],
)
def test_every_descriptor_covers_the_grid_with_x_as_the_column(name, end):
    program = compiled(name)
    spec = hw.describe(program, addresses_for(program))
    rows, cols = program.grid
    assert end == (cols - 1, rows - 1)
    ranges = [k.core_ranges for k in spec.kernels] + [c.core_ranges for c in spec.cbs]
    ranges += [s.core_ranges for s in spec.semaphores]
    assert ranges and all(r == hw.CoreRangeSpec(start=(0, 0), end=end) for r in ranges)
    for kernel in spec.kernels:  # every core of the grid has an entry, x-major
        assert [core for core, _ in kernel.runtime_args] == [(x, y) for x in range(cols) for y in range(rows)]


# --- runtime args -----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["matmul", "softmax", "configured", "multicast"])
def test_runtime_args_carry_the_buffer_addresses_per_core(name):
    program = compiled(name)
    addresses = addresses_for(program)
    spec = hw.describe(program, addresses)
    assert len(spec.kernels) == len(program.kernels) == 3
    for kernel, source in zip(spec.kernels, program.kernels):
        per_core = program.runtime_args[source.name]
        assert per_core, f"{source.name} has no runtime args"
        for (row, col), args in per_core.items():
            expected = tuple(addresses[a.buffer] if isinstance(a, BufferAddress) else a for a in args)
            assert kernel.args_at(col, row) == expected
            assert all(isinstance(a, int) and 0 <= a <= 0xFFFFFFFF for a in kernel.args_at(col, row))
        used = {a.buffer for args in per_core.values() for a in args if isinstance(a, BufferAddress)}
        assert used and all(addresses[b] in kernel.runtime_args[0][1] for b in used)


def test_runtime_args_are_not_transposed():
    """Core (row 1, col 2) and core (row 2, col 1) get different args (they hold the
    core's coordinates), each at CoreCoord(x=col, y=row)."""
    program = compiled("matmul")
    spec = hw.describe(program, addresses_for(program))
    reader = kernel_of(spec, "reader")
    assert reader.args_at(2, 1) != reader.args_at(1, 2)
    resolved = hw.describe(program, {b: 0 for b in addresses_for(program)})
    raw = program.runtime_args[program.kernels[1].name]
    assert kernel_of(resolved, "reader").args_at(2, 1) == tuple(0 if isinstance(a, BufferAddress) else a for a in raw[(1, 2)])


def test_runtime_args_nested_by_x_then_y():
    """The pybind-era RuntimeArgs layout: args[x][y] for CoreCoord(x, y)."""
    program = compiled("configured")  # 2 rows x 3 cols
    writer = kernel_of(hw.describe(program, addresses_for(program)), "writer")
    nested = writer.runtime_args_xy()
    assert len(nested) == 3 and all(len(column) == 2 for column in nested)
    for x in range(3):
        for y in range(2):
            assert tuple(nested[x][y]) == writer.args_at(x, y)


def test_a_core_without_args_gets_an_empty_list_and_ints_wrap_to_uint32():
    program = compiled("matmul")
    reader, writer = program.kernels[1].name, program.kernels[2].name
    runtime_args = {name: dict(per_core) for name, per_core in program.runtime_args.items()}
    del runtime_args[reader][(3, 0)]
    runtime_args[writer][(0, 0)] = [-1, 7, BufferAddress("out")]
    changed = dataclasses.replace(program, runtime_args=runtime_args)
    addresses = addresses_for(program)
    spec = hw.describe(changed, addresses)
    assert kernel_of(spec, "reader").args_at(0, 3) == ()
    assert kernel_of(spec, "writer").args_at(0, 0) == (0xFFFFFFFF, 7, addresses["out"])


def test_unknown_buffer_and_core_outside_the_grid_are_errors():
    program = compiled("softmax")
    addresses = addresses_for(program)
    missing = dict(addresses)
    del missing["x"]
    with pytest.raises(RuntimeLaunchError, match=r"needs the address of buffer 'x'"):
        hw.describe(program, missing)
    name = program.kernels[0].name
    outside = {**program.runtime_args, name: {**program.runtime_args[name], (0, 5): [1]}}
    with pytest.raises(RuntimeLaunchError, match=r"core \(row 0, col 5\), outside the 2x1 grid"):
        hw.describe(dataclasses.replace(program, runtime_args=outside), addresses)
    with pytest.raises(RuntimeLaunchError, match="does not fit 32 bits"):
        hw.describe(program, {**addresses, "x": 1 << 33})


# --- circular buffers -------------------------------------------------------------------


@pytest.mark.parametrize("name", ["add", "matmul", "softmax", "configured"])
def test_cbs_keep_index_format_page_size_and_total(name):
    program = compiled(name)
    spec = hw.describe(program, addresses_for(program))
    assert [c.index for c in spec.cbs] == [c.index for c in program.cbs]
    for cb, source in zip(spec.cbs, program.cbs):
        assert cb.data_format == source.data_format == "bf16"
        assert cb.page_size == 2048  # one bf16 32x32 tile
        assert cb.total_size == source.num_pages * 2048


def test_fp32_cbs_and_formats_the_device_cannot_take():
    program = compiled("add")
    fp32 = [CBConfig(index=c.index, num_pages=3, page_size=4096, data_format="fp32") for c in program.cbs]
    spec = hw.describe(dataclasses.replace(program, cbs=fp32), addresses_for(program))
    assert [(c.data_format, c.page_size, c.total_size) for c in spec.cbs] == [("fp32", 4096, 3 * 4096)] * len(fp32)
    bad = [dataclasses.replace(program.cbs[0], data_format="bfp8_b")]
    with pytest.raises(RuntimeLaunchError, match="'bfp8_b' is not bf16 or fp32"):
        hw.describe(dataclasses.replace(program, cbs=bad), addresses_for(program))
    twice = [program.cbs[0], program.cbs[0]]
    with pytest.raises(RuntimeLaunchError, match="CB indices repeat"):
        hw.describe(dataclasses.replace(program, cbs=twice), addresses_for(program))


# --- kernel configurations --------------------------------------------------------------


def test_compute_config_reaches_the_compute_kernel_only():
    program = compiled("configured")
    spec = hw.describe(program, addresses_for(program))
    assert kernel_of(spec, "compute").config == hw.ComputeSpec(
        math_fidelity="HiFi4", fp32_dest_acc_en=True, math_approx_mode=True, dst_full_sync_en=True
    )
    assert kernel_of(spec, "reader").config == "reader"
    assert kernel_of(spec, "writer").config == "writer"
    default = hw.describe(compiled("add"), addresses_for(compiled("add")))
    assert kernel_of(default, "compute").config == hw.ComputeSpec(
        math_fidelity="HiFi2", fp32_dest_acc_en=False, math_approx_mode=False, dst_full_sync_en=False
    )


def test_kernels_keep_source_name_and_compile_time_args():
    program = compiled("matmul")
    spec = hw.describe(program, addresses_for(program))
    for kernel, source in zip(spec.kernels, program.kernels):
        assert (kernel.name, kernel.kind, kernel.source) == (source.name, source.kind, source.source)
        assert kernel.compile_time_args == tuple(source.compile_time_args) and kernel.compile_time_args


# --- semaphores, io tensors -------------------------------------------------------------


def test_semaphores_get_ids_in_order_and_initial_values():
    program = compiled("multicast")
    assert program.semaphores == [0, 0]
    with_values = dataclasses.replace(program, semaphores=[3, 0xFFFFFFFF])
    spec = hw.describe(with_values, addresses_for(program))
    grid = hw.CoreRangeSpec(start=(0, 0), end=(2, 0))
    assert spec.semaphores == (hw.SemaphoreSpec(0, 3, grid), hw.SemaphoreSpec(1, 0xFFFFFFFF, grid))
    assert hw.describe(compiled("add"), addresses_for(compiled("add"))).semaphores == ()


def test_io_tensors_put_outputs_last():
    program = compiled("add")
    assert hw.describe(program, addresses_for(program)).io_buffers == ("lhs", "rhs", "out")
    out, lhs, rhs = program.buffers[2], program.buffers[0], program.buffers[1]
    reordered = dataclasses.replace(program, buffers=[out, lhs, rhs])
    assert hw.io_buffer_order(reordered) == ("lhs", "rhs", "out")


# --- what the device cannot run as compiled ---------------------------------------------


def test_multicast_kernels_are_blocked_and_plain_ones_are_not():
    (problem,) = hw.hardware_blockers(compiled("multicast"))
    assert "broadcast_exp_reader" in problem and "get_noc_multicast_addr" in problem
    assert "get_noc_addr(x, y, addr)" in problem and "NoC coordinates" in problem
    for name in ["add", "matmul", "softmax", "configured"]:
        assert hw.hardware_blockers(compiled(name)) == []


def test_page_addresses_through_an_address_generator_are_not_coordinates():
    program = compiled("add")
    source = (
        "void kernel_main() {\n  InterleavedAddrGenFast<true> pages;\n"
        "  uint64_t a = get_noc_addr(3, pages, 64);\n  uint64_t b = get_noc_addr(f(1, 2), pages);\n}\n"
    )
    kernels = [dataclasses.replace(program.kernels[1], source=source)]
    assert hw.hardware_blockers(dataclasses.replace(program, kernels=kernels)) == []
    coordinates = source.replace("get_noc_addr(3, pages, 64)", "get_noc_addr(1, 0, 64)")
    kernels = [dataclasses.replace(program.kernels[1], source=coordinates)]
    assert len(hw.hardware_blockers(dataclasses.replace(program, kernels=kernels))) == 1


def test_the_grid_must_fit_the_devices_compute_grid():
    hw.check_grid_fits((8, 8), (8, 8))
    hw.check_grid_fits((2, 3), (3, 2))  # device grid is (x, y) = (columns, rows)
    with pytest.raises(RuntimeLaunchError, match=r"8x8 grid .* does not fit the device's 7x8 compute grid"):
        hw.check_grid_fits((8, 8), (8, 7))
    with pytest.raises(RuntimeLaunchError, match="does not fit"):
        hw.check_grid_fits((2, 3), (2, 3))


# --- the timing report ------------------------------------------------------------------


def test_hardware_report_says_it_is_measured_and_when_it_includes_the_build():
    first = hw.HardwareTimingReport(grid=(2, 3), math_fidelity="HiFi4", time_s=0.0125, includes_jit_compile=True, host_seconds=1.5)
    text = str(first)
    assert text.startswith("hardware, grid 2x3, HiFi4: launch 12500.0 us wall-clock")
    assert "JIT build" in text and "no cost model" in text
    assert "JIT" not in str(dataclasses.replace(first, includes_jit_compile=False))


def test_fingerprint_ignores_runtime_arg_values_only():
    program = compiled("add")
    writer = program.kernels[2].name
    moved = {**program.runtime_args, writer: {core: [9] * len(a) for core, a in program.runtime_args[writer].items()}}
    assert hw.program_fingerprint(dataclasses.replace(program, runtime_args=moved)) == hw.program_fingerprint(program)
    other = dataclasses.replace(program, kernels=[dataclasses.replace(program.kernels[0], source="// x")] + program.kernels[1:])
    assert hw.program_fingerprint(other) != hw.program_fingerprint(program)


# --- without ttnn -----------------------------------------------------------------------


@pytest.mark.skipif(TTNN, reason="ttnn is installed: the no-ttnn message does not apply")
def test_without_ttnn_the_hardware_target_is_one_clear_error():
    program = compiled("add")
    tensors = {"lhs": bf16(32, 32), "rhs": bf16(32, 32), "out": bf16(32, 32)}
    with pytest.raises(HardwareUnavailableError) as caught:
        run_program(program, tensors, target="hardware")
    message = str(caught.value)
    assert "\n" not in message
    assert "needs ttnn and a Tenstorrent device, and ttnn is not installed" in message
    assert "TTLANG_TARGET" in message and "'emulator', the default" in message


# --- on a device (skipped without ttnn) -------------------------------------------------


@needs_ttnn
def test_eltwise_add_on_a_device():
    torch.manual_seed(0)
    a, b = torch.randn(32, 32, dtype=torch.bfloat16), torch.randn(32, 32, dtype=torch.bfloat16)
    out = bf16(32, 32)
    result = run_program(compiled("add"), {"lhs": a, "rhs": b, "out": out}, target="hardware")
    torch.testing.assert_close(result.outputs["out"].float(), (a + b).float(), rtol=1e-2, atol=1e-2)
    assert isinstance(result.report, hw.HardwareTimingReport) and result.report.time_s > 0
    again = run_program(compiled("add"), {"lhs": a, "rhs": b, "out": out}, target="hardware")
    assert not again.report.includes_jit_compile


@needs_ttnn
def test_matmul_on_a_device_matches_torch():
    torch.manual_seed(0)
    a, b = torch.randn(256, 512, dtype=torch.bfloat16), torch.randn(512, 256, dtype=torch.bfloat16)
    result = run_program(compiled("matmul"), {"a": a, "b": b, "out": bf16(256, 256)}, target="hardware")
    torch.testing.assert_close(result.outputs["out"].float(), a.float() @ b.float(), rtol=2e-2, atol=0.5)


@needs_ttnn
def test_softmax_on_a_device_matches_torch():
    torch.manual_seed(0)
    x = torch.randn(64, 128, dtype=torch.bfloat16)
    result = run_program(compiled("softmax"), {"x": x, "out": bf16(64, 128)}, target="hardware")
    torch.testing.assert_close(result.outputs["out"].float(), torch.softmax(x.float(), -1), rtol=2e-2, atol=2e-3)


@needs_ttnn
def test_a_blocked_program_is_refused_before_launch():
    with pytest.raises(RuntimeLaunchError, match="cannot run on hardware as compiled"):
        run_program(compiled("multicast"), {"x": bf16(32, 192), "out": bf16(32, 192)}, target="hardware")
