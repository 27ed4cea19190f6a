"""The hardware target (python/ttlang/runtime/hardware.py).

Everywhere: the pure Program -> ttnn descriptor translation, checked on programs the
compiler produced; the kernel sources against what tt-metal's JIT accepts; the one-line
error without ttnn. Only where ttnn imports (and a device opens): real launches,
compared with torch. Without ttnn those skip.
"""

from __future__ import annotations

import dataclasses
import functools
import sys

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
from ttlang.device import load_device
from ttlang.runtime.program import BufferAddress, CBConfig, NocCoordinate

import fake_ttnn
from examples import eltwise_add, flash_attention, matmul, multicast, softmax

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


N150 = load_device("n150").grid


def resolved(arg, addresses: dict[str, int]) -> int:
    """What the launcher passes for `arg` on an n150."""
    if isinstance(arg, BufferAddress):
        return addresses[arg.buffer]
    if isinstance(arg, NocCoordinate):
        return hw.noc_coordinate(N150, arg)
    return arg


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
            expected = tuple(resolved(a, addresses) for a in args)
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
    zeros = {b: 0 for b in addresses_for(program)}
    raw = program.runtime_args[program.kernels[1].name]
    spec = hw.describe(program, zeros)
    assert kernel_of(spec, "reader").args_at(2, 1) == tuple(resolved(a, zeros) for a in raw[(1, 2)])


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


def test_a_kernel_off_its_kinds_noc_is_refused_on_hardware():
    """ttnn's reader and writer configurations fix the NoC (0 and 1 on Wormhole); a
    kernel asking for the other one (as bench/calibration.py's GEMM does on the
    emulator) is a clear error, its own NoC passes."""
    program = compiled("add")
    addresses = addresses_for(program)
    kernels = [dataclasses.replace(k, noc=1) if k.kind == "reader" else k for k in program.kernels]
    with pytest.raises(RuntimeLaunchError, match=r"asks for NoC 1; on hardware a reader runs on NoC 0"):
        hw.describe(dataclasses.replace(program, kernels=kernels), addresses)
    kernels = [dataclasses.replace(k, noc=0) if k.kind == "reader" else k for k in program.kernels]
    assert kernel_of(hw.describe(dataclasses.replace(program, kernels=kernels), addresses), "reader")


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


# --- NoC coordinates ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("row", "col", "noc"),
    [((0), 0, (1, 1)), (0, 3, (4, 1)), (0, 4, (6, 1)), (4, 0, (1, 5)), (5, 2, (3, 7)), (7, 7, (9, 9))],
)
def test_the_n150_maps_logical_cores_to_noc_coordinates(row, col, noc):
    """Tensix columns sit at NoC x 1-4 and 6-9 (x 0 and 5 are DRAM); worker rows at y 1-5
    and 7-9 (y 6 is Ethernet, y 10 dispatch, y 11 the harvested row)."""
    assert N150.noc_coordinates(row, col) == noc
    assert (hw.noc_coordinate(N150, NocCoordinate("x", col)), hw.noc_coordinate(N150, NocCoordinate("y", row))) == noc


def test_a_noc_coordinate_outside_the_compute_grid_is_an_error():
    with pytest.raises(RuntimeLaunchError, match="NoC x of grid column 8: the device's compute grid is 8x8"):
        hw.noc_coordinate(N150, NocCoordinate("x", 8))


def test_kernels_receive_the_noc_coordinates_of_every_grid_column_and_row():
    """The multicast example (1x3 grid): every kernel's args end with the NoC x of columns
    0..2 and the NoC y of row 0, on hardware from the n150's description, on the
    emulator the logical coordinates; the reader multicasts to rectangles looked up there."""
    program = compiled("multicast")
    reader = next(k for k in program.kernels if k.kind == "reader")
    assert "get_noc_multicast_addr(" in reader.source and "get_arg_val<uint32_t>(" in reader.source
    for kernel in hw.describe(program, addresses_for(program)).kernels:
        for (x, y), args in kernel.runtime_args:
            assert args[-4:] == (1, 2, 3, 1)
    raw = program.runtime_args[reader.name][(0, 1)]
    assert raw[-4:] == [NocCoordinate("x", 0), NocCoordinate("x", 1), NocCoordinate("x", 2), NocCoordinate("y", 0)]


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


# --- the launcher against a recording ttnn (0.81.1's Python API) ----------------------


@pytest.fixture
def recording_ttnn(monkeypatch):
    """ttnn replaced by fake_ttnn, which records the launcher's calls."""
    monkeypatch.setitem(sys.modules, "ttnn", fake_ttnn)
    monkeypatch.setattr(hw, "_device", None)
    monkeypatch.setattr(hw, "_launched", set())
    monkeypatch.setattr(hw.atexit, "register", lambda *args: None)
    fake_ttnn.calls.clear()
    yield fake_ttnn
    fake_ttnn.calls.clear()


def launched(calls) -> tuple[list, fake_ttnn.Recorded]:
    (io_tensors, descriptor), = [args for name, args in calls if name == "generic_op"]
    return io_tensors, descriptor


def test_the_launcher_builds_0_81_1_descriptors_for_a_multicast_program(recording_ttnn):
    program = compiled("multicast")
    x = torch.rand(32, 192, dtype=torch.bfloat16)
    run_program(program, {"x": x, "out": bf16(32, 192)}, target="hardware")
    io_tensors, descriptor = launched(recording_ttnn.calls)
    assert descriptor.kind == "ProgramDescriptor"
    assert [t.data.shape for t in io_tensors] == [(32, 192), (32, 192)] and torch.equal(io_tensors[0].data, x)
    grid = fake_ttnn.CoreRangeSet([fake_ttnn.CoreRange(fake_ttnn.CoreCoord(0, 0), fake_ttnn.CoreCoord(2, 0))])
    kernels = descriptor.kwargs["kernels"]
    assert [k.kwargs["kernel_source"] for k in kernels] == [k.source for k in program.kernels]
    for kernel, source in zip(kernels, program.kernels):
        assert kernel.kwargs["source_type"] == "SOURCE_CODE" and kernel.kwargs["core_ranges"] == grid
        assert kernel.kwargs["compile_time_args"] == list(source.compile_time_args)
        by_core = kernel.kwargs["runtime_args"].by_core
        assert sorted(by_core) == [(0, 0), (1, 0), (2, 0)]
        for args in by_core.values():
            assert args[0] == io_tensors[0].address  # x's DRAM address
            assert args[-4:] == [1, 2, 3, 1]  # NoC x of columns 0..2, NoC y of row 0 (n150)
    compute = kernels[0].kwargs["config"]
    assert isinstance(compute, fake_ttnn.ComputeConfigDescriptor) and compute.math_fidelity == "HiFi2"
    assert isinstance(kernels[1].kwargs["config"], fake_ttnn.ReaderConfigDescriptor)
    semaphores = descriptor.kwargs["semaphores"]
    assert [(s.kwargs["id"], s.kwargs["initial_value"]) for s in semaphores] == [(0, 0), (1, 0)]
    cbs = descriptor.kwargs["cbs"]
    formats = [cb.kwargs["format_descriptors"][0].kwargs for cb in cbs]
    assert [f["buffer_index"] for f in formats] == [cb.index for cb in program.cbs]
    assert all(f["data_format"] == fake_ttnn.bfloat16 and f["page_size"] == 2048 for f in formats)
    assert [cb.kwargs["total_size"] for cb in cbs] == [cb.num_pages * 2048 for cb in program.cbs]


def test_cbs_sharing_l1_become_format_descriptors_of_their_holders_cb(recording_ttnn):
    """tt-metal's buffer indices of one circular buffer: a CB in another's L1 is a further
    CBFormatDescriptor of the holder's CBDescriptor, of the holder's total size."""
    program = compiled("add")
    first, *rest = program.cbs
    shared = [first, *(dataclasses.replace(cb, shares_l1_with=first.index) for cb in rest)]
    tensors = {b.name: torch.rand(b.shape).to(torch.bfloat16) for b in program.buffers}
    run_program(dataclasses.replace(program, cbs=shared), tensors, target="hardware")
    _, descriptor = launched(recording_ttnn.calls)
    (cb,) = descriptor.kwargs["cbs"]
    assert cb.kwargs["total_size"] == first.num_pages * first.page_size
    assert [f.kwargs["buffer_index"] for f in cb.kwargs["format_descriptors"]] == [c.index for c in program.cbs]
    larger = [first, dataclasses.replace(rest[0], num_pages=first.num_pages + 1, shares_l1_with=first.index)]
    with pytest.raises(RuntimeLaunchError, match=f"CB {rest[0].index} shares the L1 of CB {first.index}, which is not"):
        hw.describe(dataclasses.replace(program, cbs=larger), addresses_for(program))


def test_the_launcher_accepts_flash_attention_with_shared_kv_reads(recording_ttnn):
    """FlashAttention on a 2x2 grid, each row multicasting its K/V chunks: the readers get
    the NoC coordinates of both columns (x 1, 2) and both rows (y 1, 2)."""
    attention = flash_attention.compile_flash_attention((1, 2, 256, 64), grid=(2, 2), q_chunk=128, k_chunk=64)
    program = attention.artifact.program
    reader = next(k for k in program.kernels if k.kind == "reader")
    assert "noc_async_write_multicast(" in reader.source
    tensors = {b.name: torch.rand(b.shape).to(torch.bfloat16) for b in program.buffers}
    run_program(program, tensors, target="hardware")
    _, descriptor = launched(recording_ttnn.calls)
    readers = [k for k in descriptor.kwargs["kernels"] if k.kwargs["kernel_source"] == reader.source]
    (args,) = {tuple(a[-4:]) for a in readers[0].kwargs["runtime_args"].by_core.values()}
    assert args == (1, 2, 1, 2)


def test_another_ttnn_release_is_refused_with_the_one_to_install(recording_ttnn, monkeypatch):
    monkeypatch.setattr(fake_ttnn, "__version__", "0.80.0")
    with pytest.raises(HardwareUnavailableError, match=r"ttnn 0\.80\.0 is installed; .*0\.81\.1.*\[hardware\]"):
        run_program(compiled("add"), {"lhs": bf16(32, 32), "rhs": bf16(32, 32), "out": bf16(32, 32)}, target="hardware")
    assert not recording_ttnn.calls


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
def test_multicast_on_a_device_matches_torch():
    """Core (0, 0) multicasts its block to the row through NoC coordinates and semaphores."""
    x = (4 * torch.rand(32, 192, generator=torch.Generator().manual_seed(0)) - 2).to(torch.bfloat16)
    result = run_program(compiled("multicast"), {"x": x, "out": bf16(32, 192)}, target="hardware")
    expected = x[:, :64].float().exp().repeat(1, 3)
    torch.testing.assert_close(result.outputs["out"].float(), expected, rtol=0, atol=0.06)
