"""d2m-memref-provenance: every intermediate buffer of a compute region is bound to a
compute-local CB in L1, and every block a generic touches is checked against where
its engine can reach it.

The provenance analysis (`ttlang.transforms.analysis.provenance`) says where each
memref comes from: a CB block (`d2m.wait` front / `d2m.reserve` back), an intermediate
buffer (`memref.alloc`), or DST. This pass

- binds each intermediate buffer to a one-block compute-local CB (`d2m.local_cb`) in L1
  of the buffer's shape: reserve before the generic writing it, push after it, wait
  for it before its first reader (so the ops in between run while the packer finishes
  the block: a generic waiting right after the push waits for its last pack), pop
  after its last use; buffers of the same block type whose lifetimes do not
  overlap share one CB (a kernel has 32 CBs, and each costs L1);
- gives an intermediate buffer without a memory space the L1 space;
- checks that generics read CB fronts (the unpacker reads a CB at its read pointer)
  and write CB backs (the packer writes at the write pointer), so that convert-d2m-to-
  ttkernel gives each matmul, reduce and transpose the CBs of its own operands.

Before:

    %x = memref.alloc() : memref<2x2x!tile, #l1>
    linalg.generic {...} ins(%a, %b : ...) outs(%x : memref<2x2x!tile, #l1>) {tile_matmul}
    linalg.generic {...} ins(%x, %c : ...) outs(%o : memref<2x2x!tile, #l1>) {tile_matmul}
    %y = memref.alloc() : memref<2x2x!tile, #l1>
    linalg.generic {...} ins(%o : ...) outs(%y : ...) {tile_exp}
    ...

After:

    %tmp_cb = d2m.local_cb : !d2m.cb<memref<2x2x!tile, #l1>, 1>     // at the region entry
    ...
    %xw = d2m.reserve %tmp_cb : ... -> memref<2x2x!tile, #l1>
    linalg.generic {...} ins(%a, %b : ...) outs(%xw : ...) {tile_matmul}
    d2m.push %tmp_cb
    %xr = d2m.wait %tmp_cb : ... -> memref<2x2x!tile, #l1>
    linalg.generic {...} ins(%xr, %c : ...) outs(%o : ...) {tile_matmul}
    d2m.pop %tmp_cb
    %yw = d2m.reserve %tmp_cb ...                                  // %x is dead: same CB

Fails (PassError) on an intermediate buffer outside a compute region, in a memory
space other than L1, not written by exactly one generic, read before it is written,
or used by anything but generics; on a generic that writes a block taken with
`d2m.wait` or reads one taken with `d2m.reserve`, or touches a memref of unknown
origin; and on a kernel needing more than 32 CBs.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from ttlang.dialects import d2m
from ttlang.dialects.ttcore import MemorySpace, MemorySpaceAttr, device_of
from ttlang.transforms.analysis.provenance import (
    CBBlock,
    IntermediateBuffer,
    intermediate_buffers,
    memref_origin,
)
from ttlang.transforms.compute_region import ancestor_in_block, declare_local_cb, last_user
from ttlang.transforms.diagnostics import PassError

LOCAL_CB_BUFFERS = 1
"""A temporary is produced and consumed by the same thread, so one block suffices."""


@dataclass(frozen=True)
class _Lifetime:
    """An intermediate buffer, the generic writing it, and the span of the compute
    region (positions in program order) from that write to its last use."""

    buffer: memref.AllocOp
    writer: GenericOp
    last_use: Operation  # in the writer's block: the last user or the op holding it
    start: int
    end: int


def _writer(buffer: memref.AllocOp) -> GenericOp:
    """The one generic writing `buffer`; every other use must be a generic input."""
    writers: list[GenericOp] = []
    for use in buffer.memref.uses:
        user = use.operation
        if not isinstance(user, GenericOp):
            raise PassError(
                user,
                "uses an intermediate buffer; only linalg.generic may read or write one "
                "(d2m-memref-provenance binds it to a CB block).",
            )
        if buffer.memref in user.outputs:
            writers.append(user)
    if len(writers) != 1:
        raise PassError(
            buffer,
            f"is written by {len(writers)} generics; an intermediate buffer is bound to a "
            "CB block that exactly one generic produces.",
        )
    return writers[0]


def _lifetime(buffer: memref.AllocOp, order: dict[Operation, int]) -> _Lifetime:
    writer = _writer(buffer)
    block = writer.parent_block()
    assert block is not None
    for use in buffer.memref.uses:
        reader = use.operation
        if reader is writer:
            continue
        anchor = ancestor_in_block(reader, block)
        if anchor is None or not writer.is_before_in_block(anchor):
            raise PassError(
                reader,
                "reads an intermediate buffer before (or outside the block where) it is "
                "written; the buffer's CB block holds data only after its producer.",
            )
    final = last_user(buffer.memref, block, writer)
    end = max(order[op] for op in final.walk())
    return _Lifetime(buffer, writer, final, order[writer], end)


def _assign_cbs(lifetimes: list[_Lifetime]) -> list[int]:
    """A CB group per lifetime: lifetimes of one block type that do not overlap share a
    group (greedy in order of start, which is optimal for intervals)."""
    groups: list[tuple[MemRefType, int]] = []  # (block type, end of its last lifetime)
    assignment: list[int] = []
    for lifetime in lifetimes:
        block_type = _l1_type(lifetime.buffer)
        free = next(
            (
                index
                for index, (group_type, end) in enumerate(groups)
                if group_type == block_type and end < lifetime.start
            ),
            None,
        )
        if free is None:
            groups.append((block_type, lifetime.end))
            assignment.append(len(groups) - 1)
        else:
            groups[free] = (block_type, lifetime.end)
            assignment.append(free)
    return assignment


def _l1_type(buffer: memref.AllocOp) -> MemRefType:
    """The buffer's type in L1 (a buffer without a memory space goes to L1)."""
    origin = IntermediateBuffer(buffer)
    buffer_type = buffer.memref.type
    assert isinstance(buffer_type, MemRefType)
    if origin.memory_space not in (None, MemorySpace.L1):
        raise PassError(
            buffer,
            f"is an intermediate buffer in {origin.memory_space.value}; a compute "
            "temporary lives in a CB in L1.",
        )
    return MemRefType(
        buffer_type.get_element_type(),
        buffer_type.get_shape(),
        memory_space=MemorySpaceAttr(MemorySpace.L1),
    )


def _bind(lifetime: _Lifetime, cb_block_type: MemRefType, cb: SSAValue) -> None:
    """Rewrites one intermediate buffer into a block of `cb` (see the module doc)."""
    writer, value = lifetime.writer, lifetime.buffer.memref
    reserve = d2m.ReserveOp(cb, cb_block_type)
    Rewriter.insert_op(reserve, InsertPoint.before(writer))
    wait = d2m.WaitOp(cb, cb_block_type)
    block = writer.parent_block()
    assert block is not None
    readers = [ancestor_in_block(use.operation, block) for use in value.uses]
    first = min(
        (r for r in readers if r is not None and r is not writer),
        key=block.get_operation_index,
        default=None,
    )
    push = d2m.PushOp(cb)
    Rewriter.insert_op(push, InsertPoint.after(writer))
    Rewriter.insert_op(wait, InsertPoint.before(first) if first is not None else InsertPoint.after(push))
    Rewriter.insert_op(d2m.PopOp(cb), InsertPoint.after(lifetime.last_use))
    for use in list(value.uses):
        replacement = reserve.result if use.operation is writer else wait.result
        use.operation.operands[use.index] = replacement
    Rewriter.erase_op(lifetime.buffer)


def _check_generic_blocks(generic: GenericOp) -> None:
    """Inputs are CB fronts, the output a CB back."""
    for operand in generic.operands:
        origin = memref_origin(operand)
        if not isinstance(origin, CBBlock):
            raise PassError(
                generic,
                "touches a memref that is neither a CB block nor an intermediate buffer; "
                "its engine cannot reach it.",
            )
        writes = operand in generic.outputs
        if writes and origin.is_front:
            raise PassError(
                generic,
                "writes a block taken with d2m.wait; the packer writes only a CB's back "
                "(a block taken with d2m.reserve).",
            )
        if not writes and not origin.is_front:
            raise PassError(
                generic,
                "reads a block taken with d2m.reserve before it is pushed; the unpacker "
                "reads only a CB's front (a block taken with d2m.wait).",
            )


def bind_compute_region(generic: d2m.GenericOp, entry: Block) -> None:
    """Binds the intermediate buffers of the compute region `entry` to local CBs."""
    order = {op: index for index, op in enumerate(op for top in entry.ops for op in top.walk())}
    buffers = intermediate_buffers(entry)
    lifetimes = sorted((_lifetime(b, order) for b in buffers), key=lambda life: life.start)
    cbs: list[SSAValue] = []
    for lifetime, group in zip(lifetimes, _assign_cbs(lifetimes)):
        block_type = _l1_type(lifetime.buffer)
        if group == len(cbs):
            cbs.append(declare_local_cb(lifetime.writer, block_type, LOCAL_CB_BUFFERS))
        _bind(lifetime, block_type, cbs[group])
    for op in entry.walk():
        if isinstance(op, GenericOp):
            _check_generic_blocks(op)
    thread_cbs = sum(isinstance(arg.type, d2m.CBType) for arg in entry.args)
    local_cbs = sum(isinstance(op, d2m.LocalCBOp) for op in entry.ops)
    max_cbs = device_of(generic).max_cbs.data
    if thread_cbs + local_cbs > max_cbs:
        raise PassError(
            generic,
            f"needs {thread_cbs + local_cbs} circular buffers ({thread_cbs} of operands and "
            f"kernel-local, {local_cbs} compute temporaries), more than the {max_cbs} a core has.",
        )


@dataclass(frozen=True)
class D2MMemrefProvenance(ModulePass):
    """Intermediate buffers -> blocks of compute-local L1 CBs (shared when lifetimes
    allow); generics checked to read CB fronts and write CB backs."""

    name = "d2m-memref-provenance"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for generic in list(op.walk()):
            if not isinstance(generic, d2m.GenericOp):
                continue
            for kind, region in zip(generic.thread_kinds, generic.thread_regions):
                if kind == d2m.ThreadType.COMPUTE:
                    bind_compute_region(generic, region.block)
                else:
                    stray = intermediate_buffers(region.block)
                    if stray:
                        raise PassError(
                            stray[0],
                            "is an intermediate buffer in a data-movement thread; only "
                            "compute threads hold temporaries.",
                        )
