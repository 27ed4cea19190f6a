"""The hardware target: run a compiled Program on a Tenstorrent device through ttnn.

A launch goes through ttnn's generic op: the Program becomes a `ttnn.ProgramDescriptor`
(one `KernelDescriptor` per kernel with its C++ as `SourceType.SOURCE_CODE`, one
`CBDescriptor` per circular buffer with L1 of its own, listing the CBs that share it
as further format descriptors, one `SemaphoreDescriptor` per semaphore), the DRAM
buffers become interleaved tile-layout DRAM tensors, and `ttnn.generic_op(io_tensors,
descriptor)` compiles (tt-metal's JIT, cached) and runs the kernels on every core.

API followed: ttnn 0.81.1's Python bindings (`ttnn._ttnn.program_descriptor`, read
from the wheel's `ttnn/types.py` and tt-metal's `ttnn/cpp/ttnn-nanobind/
program_descriptors.cpp`, not copied): `KernelDescriptor(kernel_source=, source_type=,
core_ranges=, compile_time_args=, defines=, runtime_args=, config=)` with per-core args
in a `ttnn.RuntimeArgs` (`args[x][y] = [...]`), `CBDescriptor(total_size=, core_ranges=,
format_descriptors=[CBFormatDescriptor(buffer_index=, data_format=, page_size=)])`,
`SemaphoreDescriptor(id=, core_ranges=, initial_value=)`, `ProgramDescriptor(kernels=,
semaphores=, cbs=)`, `ttnn.generic_op(io_tensors, descriptor)`. On a program cache hit
the generic op copies the new descriptor's runtime args into the cached program
(`generic_op_program_factory.cpp`), so fresh buffer addresses reach the kernels on every
launch. The kernels follow the same release's kernel API (`ttlang-conformance`).

Runtime args that name a core's NoC coordinates (`NocCoordinate`) are resolved from the
program's device description (`ttlang.device`): the NoC x of grid column c is the
Tensix column's x, the NoC y of grid row r the r-th worker row's y.

The translation from our Program to descriptor arguments (`describe`) is a pure
function returning plain data (`ProgramSpec`); only `run` and the `_ttnn_*` helpers
touch ttnn. Without ttnn, or without a device, a launch fails with one line saying what
is missing (`HardwareUnavailableError`).
"""

from __future__ import annotations

import atexit
import hashlib
import importlib
import importlib.util
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import torch

from ttlang.conversion.ttkernel_to_emitc import TT_METAL_RELEASE
from ttlang.device import load_device
from ttlang.device.description import TensixGrid
from ttlang.runtime.errors import HardwareUnavailableError, RuntimeLaunchError
from ttlang.runtime.program import (
    TILE_COLS,
    TILE_ROWS,
    BufferAddress,
    NocCoordinate,
    ComputeConfig,
    DramBuffer,
    Program,
)

TORCH_DTYPES = {"bf16": torch.bfloat16, "fp32": torch.float32}
TTNN_DTYPES = {"bf16": "bfloat16", "fp32": "float32"}  # attribute names on `ttnn`
MAX_CBS = 32



# ----------------------------------------------------------------------------------------
# The pure translation: Program (+ buffer addresses) -> descriptor arguments.
# ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CoreRangeSpec:
    """An inclusive rectangle of cores as tt-metal CoreCoords: x = column, y = row."""

    start: tuple[int, int]
    end: tuple[int, int]

    def cores(self) -> list[tuple[int, int]]:
        """Every (x, y) in the range, x-major."""
        return [
            (x, y)
            for x in range(self.start[0], self.end[0] + 1)
            for y in range(self.start[1], self.end[1] + 1)
        ]


@dataclass(frozen=True)
class ComputeSpec:
    """ComputeConfigDescriptor fields (math_fidelity names a ttnn.MathFidelity member)."""

    math_fidelity: str
    fp32_dest_acc_en: bool
    math_approx_mode: bool
    dst_full_sync_en: bool


@dataclass(frozen=True)
class CBSpec:
    """One CBFormatDescriptor, in a CBDescriptor of its own or, `shares_l1_with` >= 0, in
    that CB's (tt-metal's buffer indices of one circular buffer)."""

    index: int  # buffer_index
    data_format: str  # "bf16" or "fp32": ttnn.bfloat16 / ttnn.float32
    page_size: int
    total_size: int  # bytes: num_pages * page_size
    core_ranges: CoreRangeSpec
    shares_l1_with: int = -1


@dataclass(frozen=True)
class KernelSpec:
    """One KernelDescriptor. `config` is "reader", "writer" or a ComputeSpec."""

    name: str
    kind: str
    source: str
    core_ranges: CoreRangeSpec
    compile_time_args: tuple[int, ...]
    # ((x, y), args) for every core of the range, x-major; buffer addresses resolved.
    runtime_args: tuple[tuple[tuple[int, int], tuple[int, ...]], ...]
    config: str | ComputeSpec

    def args_at(self, x: int, y: int) -> tuple[int, ...]:
        for core, args in self.runtime_args:
            if core == (x, y):
                return args
        raise KeyError((x, y))



@dataclass(frozen=True)
class SemaphoreSpec:
    id: int
    initial_value: int
    core_ranges: CoreRangeSpec


@dataclass(frozen=True)
class ProgramSpec:
    """Everything `ttnn.ProgramDescriptor` and `ttnn.generic_op` need, as plain data."""

    grid: tuple[int, int]  # (rows, cols), as in Program
    kernels: tuple[KernelSpec, ...]
    cbs: tuple[CBSpec, ...]
    semaphores: tuple[SemaphoreSpec, ...]
    io_buffers: tuple[str, ...]  # generic_op's io_tensors order: outputs last


def grid_range(grid: tuple[int, int]) -> CoreRangeSpec:
    """The CoreRange of a (rows, cols) grid starting at core (0, 0)."""
    rows, cols = grid
    if rows < 1 or cols < 1:
        raise RuntimeLaunchError(f"grid {tuple(grid)} must have at least one row and one column")
    return CoreRangeSpec(start=(0, 0), end=(cols - 1, rows - 1))


def compute_spec(config: ComputeConfig) -> ComputeSpec:
    return ComputeSpec(
        math_fidelity=config.math_fidelity,
        fp32_dest_acc_en=bool(config.fp32_dest_acc_en),
        math_approx_mode=bool(config.math_approx_mode),
        dst_full_sync_en=bool(config.dst_full_sync_en),
    )


def io_buffer_order(program: Program) -> tuple[str, ...]:
    """Buffers in program order, outputs moved last (generic_op returns the last one)."""
    names = [b.name for b in program.buffers if not b.is_output]
    return tuple(names + [b.name for b in program.buffers if b.is_output])


def describe(program: Program, addresses: Mapping[str, int], noc: TensixGrid | None = None) -> ProgramSpec:
    """The descriptor arguments for `program`, with every `BufferAddress(name)` runtime
    arg replaced by `addresses[name]` (the DRAM tensor's `buffer_address()`) and every
    `NocCoordinate` by the NoC coordinate `noc` (default: the program's device
    description) gives that grid column or row."""
    noc = noc or load_device(program.device).grid
    cores = grid_range(program.grid)
    kinds = [k.kind for k in program.kernels]
    for kind in sorted(set(kinds)):
        if kinds.count(kind) > 1:
            raise RuntimeLaunchError(f"the program has {kinds.count(kind)} {kind} kernels; a core runs one of each kind")
    kernels = tuple(_kernel_spec(program, kernel, cores, addresses, noc) for kernel in program.kernels)
    cbs = tuple(_cb_spec(cb, cores) for cb in program.cbs)
    indices = [cb.index for cb in cbs]
    if len(set(indices)) != len(indices):
        raise RuntimeLaunchError(f"CB indices repeat: {sorted(indices)}")
    holders = {cb.index: cb for cb in cbs if cb.shares_l1_with < 0}
    for cb in cbs:
        holder = holders.get(cb.shares_l1_with)
        if cb.shares_l1_with >= 0 and (holder is None or cb.total_size > holder.total_size):
            raise RuntimeLaunchError(
                f"CB {cb.index} shares the L1 of CB {cb.shares_l1_with}, which is not a larger CB "
                "with L1 of its own"
            )
    semaphores = tuple(
        SemaphoreSpec(id=i, initial_value=_uint32(value, f"semaphore {i}"), core_ranges=cores)
        for i, value in enumerate(program.semaphores)
    )
    return ProgramSpec(
        grid=tuple(program.grid),
        kernels=kernels,
        cbs=cbs,
        semaphores=semaphores,
        io_buffers=io_buffer_order(program),
    )


def _kernel_spec(program, kernel, cores: CoreRangeSpec, addresses: Mapping[str, int], noc: TensixGrid) -> KernelSpec:
    if kernel.kind not in ("compute", "reader", "writer"):
        raise RuntimeLaunchError(f"kernel '{kernel.name}': unknown kind {kernel.kind!r}")
    default_noc = load_device(program.device).kernel_noc(kernel.kind) if kernel.kind != "compute" else None
    if kernel.noc is not None and kernel.noc != default_noc:
        raise RuntimeLaunchError(
            f"kernel '{kernel.name}' asks for NoC {kernel.noc}; on hardware a {kernel.kind} runs on "
            f"NoC {default_noc} (ttnn's {kernel.kind.capitalize()}ConfigDescriptor): leave its noc unset"
        )
    per_core = program.runtime_args.get(kernel.name, {})
    rows, cols = program.grid
    for row, col in per_core:
        if not (0 <= row < rows and 0 <= col < cols):
            raise RuntimeLaunchError(
                f"kernel '{kernel.name}' has runtime args for core (row {row}, col {col}), "
                f"outside the {rows}x{cols} grid"
            )
    runtime_args = []
    for x, y in cores.cores():  # a core without args gets an empty list, as ttnn wants
        args = per_core.get((y, x), [])
        runtime_args.append(((x, y), tuple(_resolve(a, addresses, noc, kernel.name, y, x) for a in args)))
    return KernelSpec(
        name=kernel.name,
        kind=kernel.kind,
        source=kernel.source,
        core_ranges=cores,
        compile_time_args=tuple(_uint32(a, f"kernel '{kernel.name}' compile-time arg") for a in kernel.compile_time_args),
        runtime_args=tuple(runtime_args),
        config=compute_spec(program.compute_config) if kernel.kind == "compute" else kernel.kind,
    )


def _resolve(arg, addresses: Mapping[str, int], noc: TensixGrid, kernel: str, row: int, col: int) -> int:
    if isinstance(arg, NocCoordinate):
        return noc_coordinate(noc, arg)
    if isinstance(arg, BufferAddress):
        if arg.buffer not in addresses:
            raise RuntimeLaunchError(
                f"kernel '{kernel}' on core (row {row}, col {col}) needs the address of buffer "
                f"'{arg.buffer}', which the program does not allocate"
            )
        address = int(addresses[arg.buffer])
        if not 0 <= address <= 0xFFFFFFFF:
            raise RuntimeLaunchError(f"buffer '{arg.buffer}' address {address:#x} does not fit 32 bits")
        return address
    return int(arg) & 0xFFFFFFFF  # uint32_t, as the emulator passes it


def noc_coordinate(noc: TensixGrid, arg: NocCoordinate) -> int:
    """The device's NoC x of grid column `arg.index` or NoC y of grid row `arg.index`."""
    limit = noc.compute_cols if arg.axis == "x" else noc.compute_rows
    if not 0 <= arg.index < limit:
        raise RuntimeLaunchError(
            f"NoC {arg.axis} of grid {'column' if arg.axis == 'x' else 'row'} {arg.index}: the device's "
            f"compute grid is {noc.compute_rows}x{noc.compute_cols}"
        )
    if arg.axis == "x":
        return noc.noc_coordinates(0, arg.index)[0]
    return noc.noc_coordinates(arg.index, 0)[1]


def _uint32(value, what: str) -> int:
    value = int(value)
    if not -(1 << 31) <= value <= 0xFFFFFFFF:
        raise RuntimeLaunchError(f"{what} {value} does not fit 32 bits")
    return value & 0xFFFFFFFF


def _cb_spec(cb, cores: CoreRangeSpec) -> CBSpec:
    if cb.data_format not in TTNN_DTYPES:
        raise RuntimeLaunchError(f"CB {cb.index}: data format {cb.data_format!r} is not bf16 or fp32")
    if not 0 <= cb.index < MAX_CBS:
        raise RuntimeLaunchError(f"CB index {cb.index} is outside 0..{MAX_CBS - 1}")
    if cb.num_pages < 1 or cb.page_size < 1:
        raise RuntimeLaunchError(f"CB {cb.index}: {cb.num_pages} pages of {cb.page_size} B is empty")
    return CBSpec(
        index=cb.index,
        data_format=cb.data_format,
        page_size=cb.page_size,
        total_size=cb.num_pages * cb.page_size,
        core_ranges=cores,
        shares_l1_with=cb.shares_l1_with,
    )


def check_grid_fits(grid: tuple[int, int], device_grid: tuple[int, int]) -> None:
    """`device_grid` is compute_with_storage_grid_size() as (x, y) = (columns, rows)."""
    rows, cols = grid
    columns, device_rows = device_grid
    if cols > columns or rows > device_rows:
        raise RuntimeLaunchError(
            f"the program's {rows}x{cols} grid (rows x cols) does not fit the device's "
            f"{device_rows}x{columns} compute grid"
        )


def check_tensors(program: Program, tensors: Mapping[str, torch.Tensor]) -> None:
    """The tensors a launch needs are there, with the buffers' shapes."""
    for buffer in program.buffers:
        if buffer.data_format not in TORCH_DTYPES:
            raise RuntimeLaunchError(f"buffer '{buffer.name}': data format {buffer.data_format!r} is not bf16 or fp32")
        *_, rows, cols = buffer.shape
        if rows % TILE_ROWS or cols % TILE_COLS:
            raise RuntimeLaunchError(
                f"buffer '{buffer.name}' shape {tuple(buffer.shape)}: last two dims must be multiples of 32"
            )
        if buffer.is_input and buffer.name not in tensors:
            raise RuntimeLaunchError(f"no tensor given for input buffer '{buffer.name}'")
        if buffer.name in tensors and tuple(tensors[buffer.name].shape) != tuple(buffer.shape):
            raise RuntimeLaunchError(
                f"tensor for buffer '{buffer.name}' has shape {tuple(tensors[buffer.name].shape)}, "
                f"the program expects {tuple(buffer.shape)}"
            )


def program_fingerprint(program: Program) -> str:
    """What tt-metal's program cache keys on: everything but runtime arg values."""
    serialized = program.to_dict()
    doc = {key: serialized[key] for key in ("grid", "kernels", "cbs", "compute_config", "semaphores")}
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


# ----------------------------------------------------------------------------------------
# The timing report of a hardware run.
# ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HardwareTimingReport:
    """Measured wall-clock time of a launch on a device (no cost model, no cycle counts).

    `time_s` runs from `ttnn.generic_op` to the end of `ttnn.synchronize_device`: the
    kernels on every core plus dispatch, and, on the first launch of a program in this
    process (`includes_jit_compile`), tt-metal's JIT build of the kernels.
    """

    grid: tuple[int, int]
    math_fidelity: str
    time_s: float
    includes_jit_compile: bool
    host_seconds: float  # the whole run: tensor transfers to and from the device included
    target: str = "hardware"

    def __str__(self) -> str:
        rows, cols = self.grid
        note = " (includes the kernels' JIT build: first launch)" if self.includes_jit_compile else ""
        return (
            f"hardware, grid {rows}x{cols}, {self.math_fidelity}: launch {self.time_s * 1e6:.1f} us "
            f"wall-clock{note}; {self.host_seconds:.3f} s with transfers (measured, no cost model)"
        )


# ----------------------------------------------------------------------------------------
# The launch: the few lines that call ttnn.
# ----------------------------------------------------------------------------------------

_NO_TTNN = (
    "the hardware target needs ttnn and a Tenstorrent device, and ttnn is not installed; "
    "run on the emulator instead (unset TTLANG_TARGET or set it to 'emulator', the default)"
)

_device: Any = None
_launched: set[str] = set()


def is_available() -> bool:
    """Whether ttnn is importable (a device may still be absent)."""
    return importlib.util.find_spec("ttnn") is not None


def run(program: Program, tensors: dict[str, torch.Tensor], timeout_s: float | None = None):
    """Runs `program` on device 0; returns (outputs by buffer name, HardwareTimingReport).
    `timeout_s` is not enforced: a hung kernel hangs the device, as with any ttnn op."""
    ttnn = _import_ttnn()
    check_tensors(program, tensors)
    device = _open_device(ttnn)
    grid = device.compute_with_storage_grid_size()
    check_grid_fits(program.grid, (int(grid.x), int(grid.y)))

    start = time.perf_counter()
    on_device = {}
    try:
        for buffer in program.buffers:
            on_device[buffer.name] = _ttnn_tensor(ttnn, device, buffer, tensors.get(buffer.name))
        spec = describe(program, {name: int(t.buffer_address()) for name, t in on_device.items()})
        descriptor = _ttnn_program_descriptor(ttnn, spec)
        fingerprint = program_fingerprint(program)
        first = fingerprint not in _launched
        ttnn.synchronize_device(device)
        launch_start = time.perf_counter()
        try:
            ttnn.generic_op([on_device[name] for name in spec.io_buffers], descriptor)
            ttnn.synchronize_device(device)
        except Exception as error:  # JIT build errors, L1 over-allocation, ...
            raise RuntimeLaunchError(f"ttnn.generic_op failed: {error}") from error
        launch_s = time.perf_counter() - launch_start
        _launched.add(fingerprint)
        outputs = {
            b.name: _torch_tensor(ttnn, on_device[b.name], b) for b in program.buffers if b.is_output
        }
    finally:
        for tensor in on_device.values():
            ttnn.deallocate(tensor)
    report = HardwareTimingReport(
        grid=tuple(program.grid),
        math_fidelity=program.compute_config.math_fidelity,
        time_s=launch_s,
        includes_jit_compile=first,
        host_seconds=time.perf_counter() - start,
    )
    return outputs, report


def _import_ttnn():
    if not is_available():
        raise HardwareUnavailableError(_NO_TTNN)
    try:
        ttnn = importlib.import_module("ttnn")
    except Exception as error:
        message = " ".join(str(error).split())
        raise HardwareUnavailableError(
            f"ttnn is installed but does not import ({type(error).__name__}: {message}); "
            "the default target, TTLANG_TARGET=emulator, needs no device"
        ) from error
    check_release(getattr(ttnn, "__version__", "unknown"))
    return ttnn


def check_release(version: str) -> None:
    """The generated kernels use tt-metal `TT_METAL_RELEASE`'s kernel API: another ttnn
    would fail to build them (docs/hardware.md, "Moving to the next release")."""
    if version.split("+")[0] != TT_METAL_RELEASE:
        raise HardwareUnavailableError(
            f"ttnn {version} is installed; the generated kernels follow tt-metal {TT_METAL_RELEASE}'s "
            f"kernel API: install it with pip install -e '.[hardware]' (docs/hardware.md)"
        )


def _open_device(ttnn):
    global _device
    if _device is None:
        try:
            _device = ttnn.open_device(device_id=0)
        except Exception as error:
            message = " ".join(str(error).split())
            raise HardwareUnavailableError(
                f"ttnn is installed but no Tenstorrent device could be opened ({message}); "
                "the default target, TTLANG_TARGET=emulator, needs no device"
            ) from error
        atexit.register(_close_device, ttnn)
    return _device


def _close_device(ttnn) -> None:
    global _device
    if _device is not None:
        ttnn.close_device(_device)
        _device = None


def _ttnn_tensor(ttnn, device, buffer: DramBuffer, tensor: torch.Tensor | None):
    """An interleaved DRAM tile-layout tensor holding `tensor` (zeros for a buffer that
    is not an input, as the emulator's DRAM starts zeroed)."""
    dtype = TORCH_DTYPES[buffer.data_format]
    if buffer.is_input and tensor is not None:
        host = tensor.detach().to("cpu", dtype).contiguous()  # torch rounds: nearest even
    else:
        host = torch.zeros(tuple(buffer.shape), dtype=dtype)
    return ttnn.from_torch(
        host,
        dtype=getattr(ttnn, TTNN_DTYPES[buffer.data_format]),
        layout=ttnn.TILE_LAYOUT,
        device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


def _torch_tensor(ttnn, tensor, buffer: DramBuffer) -> torch.Tensor:
    host = ttnn.to_torch(tensor)
    return host.to(TORCH_DTYPES[buffer.data_format]).reshape(tuple(buffer.shape))


def _ttnn_core_ranges(ttnn, cores: CoreRangeSpec):
    core_range = ttnn.CoreRange(ttnn.CoreCoord(*cores.start), ttnn.CoreCoord(*cores.end))
    return ttnn.CoreRangeSet([core_range])


def _ttnn_runtime_args(ttnn, kernel: KernelSpec):
    args = ttnn.RuntimeArgs()
    for (x, y), values in kernel.runtime_args:
        args[x][y] = list(values)
    return args


def _ttnn_config(ttnn, config: str | ComputeSpec):
    if config == "reader":
        return ttnn.ReaderConfigDescriptor()
    if config == "writer":
        return ttnn.WriterConfigDescriptor()
    descriptor = ttnn.ComputeConfigDescriptor()
    descriptor.math_fidelity = getattr(ttnn.MathFidelity, config.math_fidelity)
    descriptor.fp32_dest_acc_en = config.fp32_dest_acc_en
    descriptor.math_approx_mode = config.math_approx_mode
    descriptor.dst_full_sync_en = config.dst_full_sync_en
    return descriptor


def _ttnn_semaphore(ttnn, semaphore: SemaphoreSpec):
    return ttnn.SemaphoreDescriptor(
        id=semaphore.id,
        core_ranges=_ttnn_core_ranges(ttnn, semaphore.core_ranges),
        initial_value=semaphore.initial_value,
    )


def _ttnn_program_descriptor(ttnn, spec: ProgramSpec):
    kernels = [
        ttnn.KernelDescriptor(
            kernel_source=kernel.source,
            source_type=ttnn.KernelDescriptor.SourceType.SOURCE_CODE,
            core_ranges=_ttnn_core_ranges(ttnn, kernel.core_ranges),
            compile_time_args=list(kernel.compile_time_args),
            runtime_args=_ttnn_runtime_args(ttnn, kernel),
            config=_ttnn_config(ttnn, kernel.config),
        )
        for kernel in spec.kernels
    ]
    cbs = [
        ttnn.CBDescriptor(
            total_size=cb.total_size,
            core_ranges=_ttnn_core_ranges(ttnn, cb.core_ranges),
            format_descriptors=[
                ttnn.CBFormatDescriptor(
                    buffer_index=member.index,
                    data_format=getattr(ttnn, TTNN_DTYPES[member.data_format]),
                    page_size=member.page_size,
                )
                for member in spec.cbs
                if member is cb or member.shares_l1_with == cb.index
            ],
        )
        for cb in spec.cbs
        if cb.shares_l1_with < 0
    ]
    semaphores = [_ttnn_semaphore(ttnn, s) for s in spec.semaphores]
    return ttnn.ProgramDescriptor(kernels=kernels, semaphores=semaphores, cbs=cbs)

