"""The options of a `@pykernel_gen` kernel: grid, CB blocks, compute configuration, device."""

from __future__ import annotations

from dataclasses import dataclass

from ttlang.device import DEFAULT_DEVICE, load_device
from ttlang.target.program import ComputeConfig


@dataclass(frozen=True)
class KernelOptions:
    """Everything `@pykernel_gen(...)` was given, as hashable values (the compile cache
    keys on it)."""

    grid: tuple[int, ...]
    # Tiles per CB block, per tensor argument (None: one tile in every dim).
    block_factors: tuple[tuple[int, ...], ...] | None = None
    # tt-lang's iteration space, for the operands whose data movement the compiler
    # generates: one callable per tensor (loop dims -> the tensor's block indices), and
    # "parallel" / "reduction" per loop dim. None: each tensor is indexed by the grid.
    indexing_maps: tuple | None = None
    iterator_types: tuple[str, ...] | None = None
    num_outs: int = 1
    memory_space: str = "L1"
    # Blocks each CB holds: one count for all CBs, or one per tensor argument.
    cb_buffers: int | tuple[int, ...] = 2
    compute_config: ComputeConfig = ComputeConfig()
    device: str = DEFAULT_DEVICE  # a description in ttlang.device
    device_grid: tuple[int, int] | None = None  # None: the device's compute grid
    # Device dtypes by tensor name, as ttnn names them ("bfloat8_b", ...): the format the
    # tensor is stored in, in DRAM and in its CB. A tensor not named keeps its torch dtype.
    dtypes: tuple[tuple[str, str], ...] = ()

    @property
    def core_grid(self) -> tuple[int, int]:
        """The (rows, cols) of cores the target gives kernels."""
        return self.device_grid or load_device(self.device).grid.compute_grid

    def buffers_of(self, tensor_index: int) -> int:
        if isinstance(self.cb_buffers, int):
            return self.cb_buffers
        return self.cb_buffers[tensor_index]


def freeze(value):
    """Lists (and lists of lists) as tuples, so options can key a cache."""
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    return value
