"""A stand-in for the `ttnn` module (0.81.1's Python API, as the launcher uses it) that
records every call instead of driving a device.

Descriptors keep their keyword arguments (`Recorded.kwargs`), so a test reads back
exactly what the launcher passed; a constructor called with a keyword 0.81.1 does not
take raises TypeError, as nanobind would. Tensors hold their torch data; `generic_op`
records its io tensors and descriptor and leaves the outputs as they were.
"""

from __future__ import annotations

import importlib.machinery
import types
from dataclasses import dataclass, field
from typing import Any

import torch

from ttlang.runtime.tiles import as_stored

__version__ = "0.81.1"
__spec__ = importlib.machinery.ModuleSpec("ttnn", None)


@dataclass
class Recorded:
    """A descriptor built with `kwargs`."""

    kind: str
    kwargs: dict[str, Any]


def _descriptor(kind: str, accepted: tuple[str, ...]):
    def build(**kwargs: Any) -> Recorded:
        unknown = set(kwargs) - set(accepted)
        if unknown:
            raise TypeError(f"{kind}: unexpected keyword arguments {sorted(unknown)}")
        return Recorded(kind, kwargs)

    return build


@dataclass(frozen=True)
class CoreCoord:
    x: int
    y: int


@dataclass(frozen=True)
class CoreRange:
    start: CoreCoord
    end: CoreCoord


@dataclass(frozen=True)
class CoreRangeSet:
    ranges: list[CoreRange]


class RuntimeArgs:
    """`args[x][y] = [...]`, as ttnn.RuntimeArgs."""

    def __init__(self) -> None:
        self.by_core: dict[tuple[int, int], list[int]] = {}

    def __getitem__(self, x: int):
        outer = self

        class Column:
            def __setitem__(self, y: int, values: list[int]) -> None:
                outer.by_core[(x, y)] = list(values)

        return Column()


KernelDescriptor = _descriptor(
    "KernelDescriptor",
    ("kernel_source", "source_type", "core_ranges", "compile_time_args", "named_compile_time_args",
     "defines", "runtime_args", "common_runtime_args", "opt_level", "config"),
)
KernelDescriptor.SourceType = types.SimpleNamespace(FILE_PATH="FILE_PATH", SOURCE_CODE="SOURCE_CODE")
CBFormatDescriptor = _descriptor("CBFormatDescriptor", ("buffer_index", "data_format", "page_size"))
CBDescriptor = _descriptor("CBDescriptor", ("total_size", "core_ranges", "format_descriptors"))
SemaphoreDescriptor = _descriptor("SemaphoreDescriptor", ("id", "core_type", "core_ranges", "initial_value"))
ProgramDescriptor = _descriptor("ProgramDescriptor", ("kernels", "semaphores", "cbs"))


class ReaderConfigDescriptor:
    pass


class WriterConfigDescriptor:
    pass


class ComputeConfigDescriptor:
    math_fidelity: str = "HiFi4"
    fp32_dest_acc_en = False
    math_approx_mode = False
    dst_full_sync_en = False


MathFidelity = types.SimpleNamespace(LoFi="LoFi", HiFi2="HiFi2", HiFi3="HiFi3", HiFi4="HiFi4")
bfloat16, float32, bfloat8_b, uint32 = "ttnn.bfloat16", "ttnn.float32", "ttnn.bfloat8_b", "ttnn.uint32"
TILE_LAYOUT, ROW_MAJOR_LAYOUT, DRAM_MEMORY_CONFIG = "TILE_LAYOUT", "ROW_MAJOR_LAYOUT", "DRAM_MEMORY_CONFIG"


@dataclass
class Tensor:
    """A ttnn tensor: its values (`data`, a torch tensor in the dtype's host type), DRAM
    address, dtype, layout and whether it is on the device."""

    data: torch.Tensor
    address: int
    dtype: str = "ttnn.bfloat16"
    layout: str = TILE_LAYOUT
    on_device: bool = True

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.data.shape)

    def buffer_address(self) -> int:
        return self.address


@dataclass
class Device:
    calls: list[tuple[str, Any]] = field(default_factory=list)

    def compute_with_storage_grid_size(self) -> CoreCoord:
        return CoreCoord(8, 8)


device = Device()
calls = device.calls


def open_device(device_id: int) -> Device:
    calls.append(("open_device", device_id))
    return device


def close_device(opened: Device) -> None:
    calls.append(("close_device", None))


def _stored(tensor: torch.Tensor, dtype: str) -> torch.Tensor:
    """`tensor` as ttnn stores it in `dtype` (bfloat8_b quantized like ttnn's host packer)."""
    if dtype == bfloat8_b:
        return as_stored(tensor.float(), "bfp8_b")
    return tensor.to({bfloat16: torch.bfloat16, float32: torch.float32, uint32: torch.int32}[dtype])


def from_torch(tensor: torch.Tensor, dtype=bfloat16, *, layout=TILE_LAYOUT, device=None, memory_config=None) -> Tensor:
    """A device tensor in DRAM when `device` is given, else a host tensor."""
    if device is not None:
        assert memory_config in (None, DRAM_MEMORY_CONFIG)
    calls.append(("from_torch", dtype))
    address = 0x4000_0000 + 0x10_0000 * sum(1 for c in calls if c[0] == "from_torch")
    return Tensor(_stored(tensor.clone(), dtype), address, dtype, layout, device is not None)


def to_torch(tensor: Tensor) -> torch.Tensor:
    return tensor.data.clone()


def is_tensor_storage_on_device(tensor: Tensor) -> bool:
    return tensor.on_device


def copy_host_to_device_tensor(host_tensor: Tensor, device_tensor: Tensor) -> None:
    assert not host_tensor.on_device and device_tensor.on_device
    assert (host_tensor.shape, host_tensor.dtype) == (device_tensor.shape, device_tensor.dtype)
    calls.append(("copy_host_to_device_tensor", device_tensor.address))
    device_tensor.data = host_tensor.data.clone()


def generic_op(io_tensors: list[Tensor], descriptor: Recorded) -> Tensor:
    calls.append(("generic_op", (io_tensors, descriptor)))
    return io_tensors[-1]


def synchronize_device(opened: Device) -> None:
    calls.append(("synchronize_device", None))


def deallocate(tensor: Tensor) -> None:
    calls.append(("deallocate", tensor.address))
