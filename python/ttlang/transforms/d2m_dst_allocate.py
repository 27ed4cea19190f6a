"""d2m-dst-allocate: a DST slot for every tile a bufferized generic's body keeps in DST,
by liveness; spills to an L1 CB when the slots run out.

The body computes one output tile; a DST section computes a subblock of `n` output
tiles (`d2m.subblock`, else the whole block) one op at a time over its tiles, so a
body value occupies `n` DST tiles and a section has `capacity // n` slots (capacity
from the function's `ttcore.compute_config`). The schedule comes from the DST liveness
analysis (`ttlang.transforms.analysis.dst_liveness`) and is written into the body:

- each op whose result lives in DST gets `d2m.dst_slot = s` (its tile `t` of the
  subblock is DST index `s * n + t`); a slot is reused once its value's last use is
  past; unary SFPU ops run in place; an add/sub/mul with one operand in DST and the
  other in a CB reuses the DST operand's slot (FPU dest reuse);
- a CB tile needed in DST gets an explicit `d2m.tile_copy` (copy_tile) with its slot,
  once, however many ops then read it; an in-place op whose operand is still needed
  later works on a `d2m.tile_copy` of it;
- when an op needs a slot and none is free, `d2m.dst_spill` ends the section: the
  values still needed are packed into a compute-local CB (`d2m.local_cb` at the region
  entry, one page per value and subblock tile) and later uses read them from there
  (FPU ops directly, others after a `d2m.tile_copy`);
- every placed op gets its `engine` property (`d2m.Engine`: fpu, dest_to_srca/srcb,
  sfpu, or unpack for a broadcast/transpose the unpacker applies), which
  convert-d2m-to-ttkernel lowers by;
- the generic gets `d2m.dst_slots`, the slots its body uses at most.

With `report=true` the pass prints, per generic, the DST tiles used at most against
the capacity, the spills and the sync sections per execution of the generic.

Before (capacity 8, subblock of 2 tiles: 4 slots):

    linalg.generic {...} ins(%a, %b : ...) outs(%o : ...) {
    ^bb0(%x: !tile, %y: !tile, %out: !tile):
      %e = d2m.tile_exp %x : !tile
      %s = d2m.tile_add %e, %y : !tile
      linalg.yield %s : !tile
    }

After:

    linalg.generic {...} ins(%a, %b : ...) outs(%o : ...) {
    ^bb0(%x: !tile, %y: !tile, %out: !tile):
      %c = d2m.tile_copy %x {d2m.dst_slot = 0 : i64, engine = #d2m.engine<fpu>} : !tile
      %e = d2m.tile_exp %c {d2m.dst_slot = 0 : i64, engine = #d2m.engine<sfpu>} : !tile
      %s = d2m.tile_add %e, %y {d2m.dst_slot = 0 : i64, engine = #d2m.engine<dest_to_srca>} : !tile
      linalg.yield %s : !tile
    } {d2m.dst_slots = 1 : i64}

Fails (PassError) when the subblock alone has more tiles than DST holds (run
d2m-tile-subblock first), when an op needs from a CB an operand the body computes in
DST, and on ops with no engine placement.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp, UnitAttr, i64
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from ttlang.dialects import d2m
from ttlang.dialects.ttcore import MemorySpace, MemorySpaceAttr, TileType
from ttlang.transforms.analysis.compute_config import dst_capacity_of
from ttlang.transforms.analysis.dst_liveness import (
    DST_SLOT_ATTR,
    DST_SLOTS_ATTR,
    PROLOGUE_ATTR,
    Compute,
    Copy,
    DstLivenessError,
    DstSchedule,
    Spill,
    body_ops,
    is_prologue,
    loop_ranges,
    parallel_dims,
    schedule_dst,
    subblock_extents,
    subblock_tiles,
)
from ttlang.transforms.compute_region import compute_entry, declare_local_cb
from ttlang.transforms.diagnostics import PassError


def _slot_attr(slot: int) -> IntegerAttr:
    return IntegerAttr(slot, i64)


def _spill_cb(generic: GenericOp, count: int, tiles: int) -> SSAValue:
    """A compute-local CB of one block: `count` x `tiles` tiles of the body's type."""
    tile = generic.body.block.args[-1].type
    assert isinstance(tile, TileType)
    block = MemRefType(tile, [count, tiles], memory_space=MemorySpaceAttr(MemorySpace.L1))
    if compute_entry(generic) is None:
        raise PassError(generic, "is not inside a d2m.generic compute region.")
    return declare_local_cb(generic, block, 1)


def write_schedule(generic: GenericOp, schedule: DstSchedule, tiles: int) -> None:
    """Writes `schedule` into `generic`'s body (see the module docstring)."""
    ops = body_ops(generic)
    anchor = [*ops, generic.body.block.last_op]  # steps for op i go before anchor[i]
    current: dict[SSAValue, SSAValue] = {}  # spilled values -> their CB tiles
    copies: dict[Copy, SSAValue] = {}

    def now(value: SSAValue) -> SSAValue:
        return current.get(value, value)

    for step in schedule.steps:
        if isinstance(step, Copy):
            copy = d2m.TileCopyOp(now(step.value))
            copy.engine = d2m.EngineAttr(step.engine)
            copy.attributes[DST_SLOT_ATTR] = _slot_attr(step.slot)
            anchor_op = anchor[step.index]
            assert anchor_op is not None
            if is_prologue(anchor_op):  # runs before the reduction loop, as its user
                copy.attributes[PROLOGUE_ATTR] = UnitAttr()
            generic.body.block.insert_op_before(copy, anchor_op)
            copies[step] = copy.result
        elif isinstance(step, Spill):
            cb = _spill_cb(generic, len(step.values), tiles)
            spill = d2m.DstSpillOp(cb, [now(v) for v in step.values])
            anchor_op = anchor[step.index]
            assert anchor_op is not None
            generic.body.block.insert_op_before(spill, anchor_op)
            for value, spilled in zip(step.values, spill.spilled):
                current[value] = spilled
        else:
            assert isinstance(step, Compute)
            step.op.operands = [
                copies[placed] if isinstance(placed, Copy) else now(placed)
                for placed in step.operands
            ]
            step.op.engine = d2m.EngineAttr(step.engine)  # type: ignore[attr-defined]
            if step.slot is None:
                step.op.attributes.pop(DST_SLOT_ATTR, None)
            else:
                step.op.attributes[DST_SLOT_ATTR] = _slot_attr(step.slot)
    # The yield packs the last copy of its value (a CB tile copied to DST at the end).
    yield_op = generic.body.block.last_op
    assert yield_op is not None
    final = [s for s in schedule.steps if isinstance(s, Copy) and s.index == len(ops)]
    if final:
        yield_op.operands = [copies[final[-1]]]
    generic.attributes[DST_SLOTS_ATTR] = IntegerAttr(schedule.peak, i64)


def dst_report(generic: GenericOp, capacity: int) -> str:
    """One line on the DST use of an allocated generic."""
    tiles = subblock_tiles(generic)
    slots = generic.attributes[DST_SLOTS_ATTR]
    assert isinstance(slots, IntegerAttr)
    spills = [op for op in generic.body.walk() if isinstance(op, d2m.DstSpillOp)]
    extents = subblock_extents(generic)
    ranges = loop_ranges(generic)
    subblocks = 1
    for dim, extent in zip(parallel_dims(generic), extents):
        subblocks *= ranges[dim] // extent
    body = ", ".join(op.name.removeprefix("d2m.") for op in body_ops(generic))
    return (
        f"dst-report: generic [{body}]: subblock {'x'.join(map(str, extents))} "
        f"({subblocks} per block), peak {slots.value.data * tiles}/{capacity} DST tiles, "
        f"spills {sum(len(s.values) for s in spills) * tiles} tiles, "
        f"sync sections {subblocks * (len(spills) + 1)}"
    )


@dataclass
class AllocateDst(RewritePattern):
    """A bufferized generic on tiles -> its body with DST slots, copies and spills."""

    report: bool = False

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GenericOp, rewriter: PatternRewriter) -> None:
        if DST_SLOTS_ATTR in op.attributes or not op.body.block.args:
            return
        if not all(isinstance(arg.type, TileType) for arg in op.body.block.args):
            return
        if op.res:
            raise PassError(op, "still returns tensors; run d2m-bufferize first.")
        capacity = dst_capacity_of(op)
        tiles = subblock_tiles(op)
        if tiles > capacity:
            raise PassError(
                op,
                f"computes {tiles} output tiles per DST section, but DST holds {capacity}; "
                "run d2m-tile-subblock first.",
            )
        try:
            schedule = schedule_dst(op, capacity // tiles)
        except DstLivenessError as error:
            raise PassError(error.op, error.message) from None
        write_schedule(op, schedule, tiles)
        rewriter.notify_op_modified(op)
        if self.report:
            print(dst_report(op, capacity), file=sys.stderr)


@dataclass(frozen=True)
class D2MDstAllocate(ModulePass):
    """Liveness-based DST slots (with spills) for every bufferized generic's body."""

    name = "d2m-dst-allocate"

    report: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(AllocateDst(self.report), apply_recursively=False).rewrite_module(op)
