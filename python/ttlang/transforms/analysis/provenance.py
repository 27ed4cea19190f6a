"""Memref provenance: where the memory behind a compute region's memref lives.

Every memref a tile op reads or writes in a compute region comes from one of:

- a CB block, `d2m.wait` (the CB's front: the unpacker reads it) or `d2m.reserve`
  (its back: the packer writes it);
- an intermediate buffer, `memref.alloc` (a temporary block that bufferization created
  and d2m-memref-provenance has not bound to a CB yet);
- DST, `d2m.acquire_dst`.

A `d2m.block_view` (tile rows of a waited-for block) has the origin of the block it
views; the conversion adds its row offset to the tile indices.

`memref_origin` answers for a memref value, `tile_origin` for a tile value (through the
`memref.load` that read it, or the `linalg.generic` operand a body argument stands
for). Passes use it instead of guessing ("the first load in the function"): each
matmul, reduce and transpose finds its own operand CBs.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from ttlang.dialects import d2m
from ttlang.dialects.d2m import memory_space_of
from ttlang.dialects.ttcore import MemorySpace


@dataclass(frozen=True)
class CBBlock:
    """A block of a CB: its front after `d2m.wait`, its back after `d2m.reserve`."""

    op: d2m.WaitOp | d2m.ReserveOp

    @property
    def cb(self) -> SSAValue:
        return self.op.cb

    @property
    def is_front(self) -> bool:
        """Whether the block is readable by the unpacker (waited for, not reserved)."""
        return isinstance(self.op, d2m.WaitOp)


@dataclass(frozen=True)
class IntermediateBuffer:
    """A temporary block (`memref.alloc`) not bound to a CB yet."""

    op: memref.AllocOp

    @property
    def memory_space(self) -> MemorySpace | None:
        buffer_type = self.op.memref.type
        assert isinstance(buffer_type, MemRefType)
        return memory_space_of(buffer_type)


@dataclass(frozen=True)
class DstRegister:
    """The DST register file of one section (`d2m.acquire_dst`)."""

    op: d2m.AcquireDstOp


Origin = CBBlock | IntermediateBuffer | DstRegister


def memref_origin(value: SSAValue) -> Origin | None:
    """Where the memref `value` lives, or None when it has none of the known origins
    (a kernel argument, a block argument, an op this analysis does not trace). A
    `d2m.block_view` lives in the block it views."""
    owner = d2m.viewed_block(value).owner
    if isinstance(owner, d2m.WaitOp | d2m.ReserveOp):
        return CBBlock(owner)
    if isinstance(owner, memref.AllocOp):
        return IntermediateBuffer(owner)
    if isinstance(owner, d2m.AcquireDstOp):
        return DstRegister(owner)
    return None


def generic_operand(arg: BlockArgument) -> SSAValue | None:
    """The operand of a `linalg.generic` that the body argument `arg` stands for."""
    block = arg.owner
    assert isinstance(block, Block)
    generic = block.parent_op()
    if not isinstance(generic, GenericOp):
        return None
    return generic.operands[arg.index]


def tile_origin(tile: SSAValue) -> Origin | None:
    """Where the tile value `tile` was read from: the memref of the `memref.load` that
    produced it, or the operand a `linalg.generic` body argument stands for. None for
    tiles computed by tile ops (they live wherever their result is stored)."""
    owner = tile.owner
    if isinstance(owner, memref.LoadOp):
        return memref_origin(owner.memref)
    if isinstance(tile, BlockArgument):
        operand = generic_operand(tile)
        return memref_origin(operand) if operand is not None else None
    return None


def operand_origins(op: Operation) -> list[Origin | None]:
    """The origin of each operand of the tile op `op` (see `tile_origin`)."""
    return [tile_origin(operand) for operand in op.operands]


def intermediate_buffers(region_block: Block) -> list[memref.AllocOp]:
    """The intermediate buffers allocated anywhere in `region_block`, in program order."""
    return [op for top in region_block.ops for op in top.walk() if isinstance(op, memref.AllocOp)]
