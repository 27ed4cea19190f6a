"""What a name in a thread can stand for while the frontend compiles it.

Plain Python values (ints, floats, bools, accessors, helper functions) are
compile-time values and stay Python objects. Everything that exists only at run time
is one of the classes below, each wrapping the SSA value that holds it in the IR.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from xdsl.dialects.builtin import MemRefType, TensorType
from xdsl.ir import Operation, SSAValue

from ttlang.dialects.ttcore import TileType
from ttlang.dsl.api import KernelTensor, TensorAccessor
from ttlang.dsl.diagnostics import SourceLocation

TILE = 32


@dataclass(frozen=True)
class CBHandle:
    """A CircularBuffer in a thread: a parameter, the CB of kernel tensor `tensor`, or a
    kernel-local CB (`tensor` None) the thread names."""

    name: str
    value: SSAValue  # the region's block argument of type !d2m.cb
    block_tile_shape: tuple[int, ...]  # one block, in tiles
    tensor: KernelTensor | None = None


@dataclass(eq=False)
class Acquisition:
    """One `cb.wait()` or `cb.reserve()`, and the pop/push that ends it.

    A compute thread's `wait()` on a CB it pushed itself, in the same straight-line
    code, reads its own block back: `read_back` is set, the block is the value last
    stored into that reserved block, and the store/push that sent it and the pop that
    ends it make no CB traffic (`ops` lists what to erase). The reserve it undid is
    `returned`: reserved again, pushed only if something is stored into it again (as
    tt-lang's `o.store(x); out_cb.push(); y = out_cb.wait(); o.store(f(y))`), else
    dropped."""

    cb: CBHandle
    kind: Literal["wait", "reserve"]
    location: SourceLocation
    depth: int  # nesting of loops / run-time branches where it happened
    released_at: SourceLocation | None = None
    # The IR of a reserve: the d2m.reserve, the stores into its block, the push.
    ops: list[Operation] = field(default_factory=list)
    stored: Block | None = None  # the value last stored into a reserved block
    read_back: bool = False
    returned: bool = False

    @property
    def ended(self) -> bool:
        """Whether its block is gone: popped/pushed through the CB (a block read back
        stays a value)."""
        return self.released_at is not None and not self.read_back

    @property
    def dropped(self) -> bool:
        """A returned reserve nothing was stored into again: releasing it sends nothing."""
        return self.returned and self.stored is None

    @property
    def releaser(self) -> str:
        return "pop" if self.kind == "wait" else "push"


@dataclass(frozen=True)
class Block:
    """A block of tiles: a tensor (compute threads) or an L1 memref (data movement).

    `shape` is the logical shape: leading (batch) dims are counts, the last two are
    elements, each a multiple of 32 or 1 (the reduced axis of a reduction result).
    `acquisition` is the wait/reserve the block came from, None for computed blocks.
    `view_start` is set on a view of a waited-for block (`blk[:, a:b]`, a
    `d2m.block_view`): the first tile row of the block it shows.
    """

    value: SSAValue
    shape: tuple[int, ...]
    acquisition: Acquisition | None = field(default=None, compare=False)
    view_start: int | None = field(default=None, compare=False)

    @property
    def tile_type(self) -> TileType:
        shaped = self.value.type
        assert isinstance(shaped, TensorType | MemRefType)
        element = shaped.get_element_type()
        assert isinstance(element, TileType)
        return element

    @property
    def tile_shape(self) -> tuple[int, ...]:
        return tile_shape(self.shape)


def tile_shape(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Tiles per dim of a logical block shape: a size-1 axis still takes one tile."""
    *batch, rows, cols = shape
    return (*batch, max(1, rows // TILE), max(1, cols // TILE))


def logical_shape(tiles: tuple[int, ...]) -> tuple[int, ...]:
    """The logical shape of a whole-tile block of `tiles`."""
    *batch, rows, cols = tiles
    return (*batch, rows * TILE, cols * TILE)


@dataclass(frozen=True)
class Index:
    """A run-time integer (index type): loop variables, core coordinates, arithmetic."""

    value: SSAValue


@dataclass(frozen=True)
class Condition:
    """A run-time boolean (i1), from comparing indices."""

    value: SSAValue


@dataclass(frozen=True)
class Transfer:
    """A DMA in flight (`!d2m.mem_tx`); `.wait()` blocks until it completes."""

    value: SSAValue


@dataclass(frozen=True)
class SemaphoreHandle:
    """A thread's Semaphore parameter."""

    name: str
    value: SSAValue


@dataclass(frozen=True)
class AccessorBlock:
    """`acc[...]`: the block of a kernel tensor starting at tile `offsets` (one per
    dim, ints or run-time indices); `extents` are the tiles a slice selects per dim,
    None where the slice bounds are run-time values (the CB block decides)."""

    accessor: TensorAccessor
    offsets: tuple[int | Index, ...]
    extents: tuple[int | None, ...]
