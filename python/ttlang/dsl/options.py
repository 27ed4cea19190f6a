"""The options of a `@pykernel_gen` kernel: grid, CB blocks, compute configuration,
and tt-lang's iteration space (`indexing_maps`, `iterator_types`).

`grid` and `block_factors` may be callables of the kernel's arguments (tt-lang's
spelling); `resolved()` evaluates them for one call. With `indexing_maps`,
`block_factors` gives tiles per iteration dim and each tensor's block follows its map:

    indexing_maps=[lambda m, n, k: (m, k), lambda m, n, k: (k, n), lambda m, n, k: (m, n)]
    block_factors=[2, 1, 4]        # lhs blocks (2, 4), rhs (4, 1), out (2, 1) tiles
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ttlang.dsl.diagnostics import DSLError
from ttlang.target.program import ComputeConfig

DEFAULT_DEVICE_GRID = (8, 8)
"""Cores of the target device (a Wormhole n150 exposes an 8x8 compute grid)."""

MEMORY_SPACES = ("L1", "DRAM")
ITERATOR_TYPES = ("parallel", "reduction")


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
    # indexing_maps, tiles per iteration dim. Or a callable returning either.
    block_factors: tuple | Callable[..., Any] | None = None
    num_outs: int = 1
    memory_space: str = "L1"
    # Blocks each CB holds: one count for all CBs, or one per tensor argument.
    cb_buffers: int | tuple[int, ...] = 2
    compute_config: ComputeConfig = ComputeConfig()
    device_grid: tuple[int, int] = DEFAULT_DEVICE_GRID
    # Per tensor, per dim: the iteration dim its map names (None: the constant 0 of a
    # broadcast operand). Set when indexing_maps were given.
    indexing_maps: tuple[tuple[int | None, ...], ...] | None = None
    iterator_types: tuple[str, ...] | None = None

    def buffers_of(self, tensor_index: int) -> int:
        if isinstance(self.cb_buffers, int):
            return self.cb_buffers
        return self.cb_buffers[tensor_index]

    def resolved(self, tensors: Sequence[Any], params: dict[str, Any]) -> KernelOptions:
        """These options for one call: callables evaluated on the kernel's arguments,
        per-iteration-dim block factors mapped to per-tensor blocks. Raises DSLError
        naming the option at fault (OptionError)."""
        grid = _evaluate("grid", self.grid, tensors, params)
        factors = _evaluate("block_factors", self.block_factors, tensors, params)
        if self.indexing_maps is not None and factors is not None:
            factors = _blocks_through_maps(factors, self.indexing_maps)
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


def _blocks_through_maps(
    factors: Sequence[int], maps: tuple[tuple[int | None, ...], ...]
) -> tuple[tuple[int, ...], ...]:
    dims = 1 + max((d for dims in maps for d in dims if d is not None), default=-1)
    if len(factors) != dims or any(not isinstance(f, int) or isinstance(f, bool) for f in factors):
        raise OptionError(
            "block_factors",
            f"with indexing_maps, block_factors gives tiles per iteration dim ({dims} ints), "
            f"but is {factors!r}",
            "e.g. block_factors=[2, 2, 1] for maps of (m, n, k)",
        )
    return tuple(tuple(1 if d is None else factors[d] for d in dims) for dims in maps)


class _IterationDim:
    """What an indexing map's parameter is while the map is evaluated."""

    def __init__(self, index: int):
        self.index = index


def indexing_dims(maps: Sequence[Callable[..., Any]]) -> tuple[tuple[int | None, ...], ...]:
    """tt-lang's indexing maps (`lambda m, n, k: (m, k)`) as, per map, the iteration dim
    each result names (None for a constant 0). Raises OptionError for maps that are not
    projections of the iteration dims."""
    arities = set()
    result = []
    for indexing_map in maps:
        if not callable(indexing_map):
            raise OptionError("indexing_maps", f"indexing_maps takes callables, not {indexing_map!r}")
        arity = len(inspect.signature(indexing_map).parameters)
        arities.add(arity)
        try:
            dims = indexing_map(*(_IterationDim(i) for i in range(arity)))
        except Exception as error:  # arithmetic on dims: an affine map we cannot take
            raise OptionError(
                "indexing_maps",
                f"an indexing map returns iteration dims or 0 (a broadcast), but one raised "
                f"{type(error).__name__}: {error}",
                "write maps like `lambda m, n, k: (m, k)`",
            ) from None
        dims = dims if isinstance(dims, tuple | list) else (dims,)
        named: list[int | None] = []
        for dim in dims:
            if isinstance(dim, _IterationDim):
                named.append(dim.index)
            elif dim == 0 and not isinstance(dim, bool):
                named.append(None)
            else:
                raise OptionError(
                    "indexing_maps",
                    f"an indexing map returns iteration dims or 0 (a broadcast), but one "
                    f"returned {dim!r}",
                    "write maps like `lambda m, n, k: (m, k)`",
                )
        result.append(tuple(named))
    if len(arities) > 1:
        raise OptionError(
            "indexing_maps", "the indexing maps take different numbers of iteration dims",
            "every map takes the same parameters (one per iteration dim)",
        )
    return tuple(result)


def freeze(value):
    """Lists (and lists of lists) as tuples, so options can key a cache."""
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    return value
