"""The options of a `@pykernel_gen` kernel: grid, CB blocks, compute configuration,
device, and tt-lang's iteration space (`indexing_maps`, `iterator_types`).

`grid` and `block_factors` may be callables of the kernel's arguments (tt-lang's
spelling); `resolved()` evaluates them for one call.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ttlang.device import DEFAULT_DEVICE, load_device
from ttlang.dsl.diagnostics import DSLError
from ttlang.runtime.program import ComputeConfig

MEMORY_SPACES = ("L1", "DRAM")


class OptionError(DSLError):
    """A bad value of the decorator option `option` (reported at its keyword)."""

    def __init__(self, option: str, message: str, hint: str | None = None):
        super().__init__(message, hint)
        self.option = option


@dataclass(frozen=True)
class KernelOptions:
    """Everything `@pykernel_gen(...)` was given, as hashable values (the compile cache
    keys on the resolved options)."""

    # (rows, cols), or a callable of the kernel's arguments returning them
    grid: tuple[int, ...] | Callable[..., Any]
    # Tiles per CB block, per tensor argument (None: one tile in every dim); with
    # indexing_maps, also tiles per iteration dim. Or a callable returning either.
    block_factors: tuple | Callable[..., Any] | None = None
    # tt-lang's iteration space, for the operands whose data movement the compiler
    # generates: one callable per tensor (loop dims -> the tensor's block indices), and
    # "parallel" / "reduction" per loop dim. None: each tensor is indexed by the grid.
    indexing_maps: tuple | None = None
    iterator_types: tuple[str, ...] | None = None
    # Per loop dim, None or a callable of the loop dims giving its block count from the
    # dims outside it (a triangular iteration space); how a grid dim's blocks are dealt
    # to its cores: "contiguous" or "serpentine".
    loop_bounds: tuple | None = None
    deal: str = "contiguous"
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

    def resolved(self, tensors: Sequence[Any], params: dict[str, Any]) -> KernelOptions:
        """These options for one call: callables evaluated on the kernel's arguments.
        Raises OptionError naming the option at fault."""
        grid = _evaluate("grid", self.grid, tensors, params)
        factors = _evaluate("block_factors", self.block_factors, tensors, params)
        return replace(self, grid=freeze(grid), block_factors=freeze(factors))


def _evaluate(option: str, value: Any, tensors: Sequence[Any], params: dict[str, Any]) -> Any:
    if not callable(value):
        return value
    try:
        return value(*tensors, **params)
    except Exception as error:
        raise OptionError(
            option, f"{option}(...) raised {type(error).__name__}: {error}",
            f"a callable {option} is called with the kernel's tensors and keyword parameters",
        ) from None


def freeze(value):
    """Lists (and lists of lists) as tuples, so options can key a cache."""
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    return value
