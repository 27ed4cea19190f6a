"""d2m-lower-to-loops: each bufferized `linalg.generic` becomes loops over its tiles,
one DST section per output tile.

For every point of the generic's parallel dimensions (an output tile) the pass emits a
DST section: `d2m.acquire_dst`, then (inside loops over the reduction dimensions, if
any) the body's tile ops, then `d2m.commit_dst` / `d2m.wait_dst`, the pack of the
result into the output block and `d2m.release_dst`.

Where a tile lives is explicit: `memref.load %block[i, j]` reads a tile from a CB
block (an operand the engine unpacks from L1), `memref.load %dst[s]` / `memref.store
%v, %dst[s]` read and write DST slot `s`. Each tile op gets its operands where its
engine takes them (the table `_FORMS`):

- matmul, reduce: A/B (input/scaler) from CBs, the accumulator in DST; the result
  stays in the accumulator's slot, so the reduction loop accumulates in DST;
- transpose, broadcast: input from a CB, result in a new slot;
- add/sub/mul: both operands from CBs (FPU) when both are CB tiles or the second is a
  broadcast of a CB tile (left unplaced: the FPU broadcasts while unpacking), else both
  in DST (SFPU); div, maximum, where: operands in DST (SFPU);
- unary SFPU ops and scalar ops: operand in DST, result in place;
- fill: result in a new slot.

A CB tile needed in DST is copied there (`memref.store (memref.load %block[..]),
%dst[s]`, which becomes copy_tile). Slots are handed out in order (a later pass,
d2m-dst-allocate, replaces this with liveness-based allocation). An accumulator whose
output block was just reserved (its contents undefined) starts from zero, as DST does
after acquire; a max reduction's starts from -inf.

Before (bufferized):

    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%in : memref<2x2x!tile, #l1>) outs(%out : memref<2x2x!tile, #l1>) {
    ^bb0(%a: !tile, %b: !tile):
      %e = d2m.tile_exp %a : !tile
      linalg.yield %e : !tile
    }

After:

    scf.for %i = %c0 to %c2 step %c1 {
      scf.for %j = %c0 to %c2 step %c1 {
        %dst = d2m.acquire_dst : memref<8x!tile, #dst>
        %a = memref.load %in[%i, %j] : memref<2x2x!tile, #l1>
        memref.store %a, %dst[%c0] : memref<8x!tile, #dst>
        %a_dst = memref.load %dst[%c0] : memref<8x!tile, #dst>
        %e = d2m.tile_exp %a_dst : !tile
        memref.store %e, %dst[%c0] : memref<8x!tile, #dst>
        d2m.commit_dst %dst
        d2m.wait_dst %dst
        %r = memref.load %dst[%c0] : memref<8x!tile, #dst>
        memref.store %r, %out[%i, %j] : memref<2x2x!tile, #l1>
        d2m.release_dst %dst
      }
    }

Fails (PassError) when a section needs more DST slots than the configuration's DST
capacity, when a tile op needs a CB operand that only exists in DST, when an in-place
op would overwrite a DST value that is used again, and on indexing maps other than
dimensions and constants.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum, auto

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IndexType, MemRefType, ModuleOp
from xdsl.dialects.linalg.ops import GenericOp, YieldOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from ttlang.dialects import d2m
from ttlang.dialects.ttcore import MemorySpace, MemorySpaceAttr, TileType
from ttlang.target.compute_config import compute_config_of
from ttlang.transforms.diagnostics import PassError


class Form(Enum):
    """Where a tile op takes its operands and puts its result."""

    ACCUMULATE_FROM_CBS = auto()  # leading operands from CBs, last operand (acc) in DST, in place
    FROM_CB = auto()  # one operand from a CB, result in a new slot
    FPU_OR_SFPU_BINARY = auto()  # both from CBs, or both in DST; result in a new slot
    SFPU = auto()  # every operand in DST, result in a new slot
    IN_PLACE = auto()  # one operand in DST, result in its slot
    NEW_TILE = auto()  # no operand, result in a new slot


_FORMS: dict[type[Operation], Form] = {
    d2m.TileMatmulOp: Form.ACCUMULATE_FROM_CBS,
    d2m.TileReduceSumOp: Form.ACCUMULATE_FROM_CBS,
    d2m.TileReduceMaxOp: Form.ACCUMULATE_FROM_CBS,
    d2m.TileTransposeOp: Form.FROM_CB,
    d2m.TileBcastOp: Form.FROM_CB,
    d2m.TileAddOp: Form.FPU_OR_SFPU_BINARY,
    d2m.TileSubOp: Form.FPU_OR_SFPU_BINARY,
    d2m.TileMulOp: Form.FPU_OR_SFPU_BINARY,
    d2m.TileDivOp: Form.SFPU,
    d2m.TileMaximumOp: Form.SFPU,
    d2m.TileWhereOp: Form.SFPU,
    d2m.TileExpOp: Form.IN_PLACE,
    d2m.TileSqrtOp: Form.IN_PLACE,
    d2m.TileRsqrtOp: Form.IN_PLACE,
    d2m.TileRecipOp: Form.IN_PLACE,
    d2m.TileNegOp: Form.IN_PLACE,
    d2m.TileAbsOp: Form.IN_PLACE,
    d2m.TileAddScalarOp: Form.IN_PLACE,
    d2m.TileSubScalarOp: Form.IN_PLACE,
    d2m.TileRsubScalarOp: Form.IN_PLACE,
    d2m.TileMulScalarOp: Form.IN_PLACE,
    d2m.TileDivScalarOp: Form.IN_PLACE,
    d2m.TileFillOp: Form.NEW_TILE,
}

MAX_IDENTITY = float("-inf")
"""Where a max reduction into an undefined accumulator starts."""


@dataclass(frozen=True)
class InCB:
    """A tile of a CB block: `block[indices]`."""

    block: SSAValue
    indices: tuple[SSAValue, ...]


@dataclass(frozen=True)
class InDst:
    """A tile in DST slot `slot`."""

    slot: int


@dataclass(frozen=True)
class Broadcast:
    """`op`, a broadcast of a CB tile, left for the FPU add/sub/mul that reads it: the
    FPU broadcasts its second operand while unpacking it from the CB."""

    op: d2m.TileBcastOp


Location = InCB | InDst | Broadcast

_FPU_BINARY_OPS = (d2m.TileAddOp, d2m.TileSubOp, d2m.TileMulOp)


def _feeds_fpu_binary(op: d2m.TileBcastOp) -> bool:
    """Whether the broadcast's only use is as the second operand of an add/sub/mul."""
    uses = list(op.result.uses)
    if len(uses) != 1:
        return False
    user = uses[0].operation
    return (
        isinstance(user, _FPU_BINARY_OPS)
        and uses[0].index == 1
        and user.operands[0] is not op.result
    )


def _index(builder: Builder, value: int) -> SSAValue:
    return builder.insert(arith.ConstantOp.from_int_and_width(value, IndexType())).result


def _map_indices(
    builder: Builder, indexing_map: AffineMap, ivs: dict[int, SSAValue], op: Operation
) -> tuple[SSAValue, ...]:
    """The tile indices `indexing_map` gives for the loop induction variables `ivs`."""
    indices: list[SSAValue] = []
    for expr in indexing_map.results:
        if isinstance(expr, AffineDimExpr):
            indices.append(ivs[expr.position])
        elif isinstance(expr, AffineConstantExpr):
            indices.append(_index(builder, expr.value))
        else:
            raise PassError(
                op,
                f"has the indexing expression {expr}; only dimensions and constants are supported.",
            )
    return tuple(indices)


def loop_ranges(op: GenericOp) -> list[int]:
    """The trip count of each loop dimension of `op`, read off its operands' shapes."""
    ranges: dict[int, int] = {}
    for operand, map_attr in zip(op.operands, op.indexing_maps):
        operand_type = operand.type
        assert isinstance(operand_type, MemRefType)
        for expr, extent in zip(map_attr.data.results, operand_type.get_shape()):
            if isinstance(expr, AffineDimExpr):
                ranges.setdefault(expr.position, extent)
    # linalg.generic's verifier guarantees that every dimension indexes some operand.
    return [ranges[dim] for dim in range(op.indexing_maps.data[0].data.num_dims)]


def output_is_undefined(op: GenericOp) -> bool:
    """Whether `op` is the first to touch its output block since it was reserved, so
    the block's contents (the accumulator's initial value) are undefined."""
    output = op.outputs[0]
    if not isinstance(output.owner, d2m.ReserveOp):
        return False
    block = op.parent_block()
    for use in output.uses:
        user = use.operation
        if user is op:
            continue
        while user is not None and user.parent_block() is not block:
            user = user.parent_op()
        if user is None or user.is_before_in_block(op):
            return False
    return True


def _emit_loops(
    builder: Builder, extents: Sequence[int], body: Callable[[Builder, list[SSAValue]], None]
) -> None:
    """Nested `scf.for` loops from 0 to each extent, calling `body` in the innermost."""
    if not extents:
        body(builder, [])
        return
    lower = _index(builder, 0)
    step = _index(builder, 1)
    upper = _index(builder, extents[0])
    loop_block = Block(arg_types=[IndexType()])
    builder.insert(scf.ForOp(lower, upper, step, [], loop_block))
    inner = Builder(InsertPoint.at_end(loop_block))

    def rest(b: Builder, ivs: list[SSAValue]) -> None:
        body(b, [loop_block.args[0], *ivs])

    _emit_loops(inner, extents[1:], rest)
    inner.insert(scf.YieldOp())


@dataclass
class _Section:
    """One DST section: hands out slots and tracks where each body value lives."""

    generic: GenericOp
    dst: SSAValue
    capacity: int
    locations: dict[SSAValue, Location] = field(default_factory=dict)
    slots_used: int = 0

    def new_slot(self) -> int:
        if self.slots_used == self.capacity:
            raise PassError(
                self.generic,
                f"needs more than {self.capacity} DST tiles for one output tile, but the "
                f"DST section of this compute configuration holds {self.capacity}.",
            )
        self.slots_used += 1
        return self.slots_used - 1

    def load_dst(self, builder: Builder, slot: int) -> SSAValue:
        return builder.insert(memref.LoadOp.get(self.dst, [_index(builder, slot)])).res

    def store_dst(self, builder: Builder, value: SSAValue, slot: int) -> None:
        builder.insert(memref.StoreOp.get(value, self.dst, [_index(builder, slot)]))

    def from_cb(self, builder: Builder, value: SSAValue, user: Operation) -> SSAValue:
        """`value` read from its CB block, for an engine that unpacks it from L1."""
        location = self.locations[value]
        if not isinstance(location, InCB):
            raise PassError(
                user,
                "needs an operand from a circular buffer, but it is computed in DST by the "
                "same generic; split the expression so that the operand is a block.",
            )
        return builder.insert(memref.LoadOp.get(location.block, location.indices)).res

    def copy_to_dst(self, builder: Builder, value: SSAValue) -> int:
        """The slot holding `value`, copying it from its CB (or broadcasting it) into a
        new slot if needed."""
        location = self.locations[value]
        if isinstance(location, InDst):
            return location.slot
        if isinstance(location, Broadcast):
            self.lower(builder, location.op, defer_broadcast=False)
            return self.copy_to_dst(builder, value)
        slot = self.new_slot()
        tile = builder.insert(memref.LoadOp.get(location.block, location.indices)).res
        self.store_dst(builder, tile, slot)
        return slot

    def in_dst(self, builder: Builder, value: SSAValue) -> SSAValue:
        """`value` read from DST (copied there first if it is a CB tile)."""
        return self.load_dst(builder, self.copy_to_dst(builder, value))

    def broadcast_from_cb(self, builder: Builder, value: SSAValue, user: Operation) -> SSAValue:
        """The deferred broadcast `value` of a CB tile, for the FPU op `user`."""
        location = self.locations[value]
        assert isinstance(location, Broadcast)
        tile = self.from_cb(builder, location.op.input, user)
        return builder.insert(location.op.clone(value_mapper={location.op.input: tile})).result

    def lower(self, builder: Builder, op: Operation, defer_broadcast: bool = True) -> None:
        """Emits `op` with its operands where its engine takes them; records its result.
        A broadcast of a CB tile that only feeds an FPU add/sub/mul is deferred to it."""
        form = _FORMS.get(type(op))
        if form is None:
            raise PassError(
                op, "is not a tile op that d2m-lower-to-loops knows how to place on an engine."
            )
        operands = list(op.operands)
        locations = [self.locations[v] for v in operands]
        if (
            defer_broadcast
            and isinstance(op, d2m.TileBcastOp)
            and isinstance(locations[0], InCB)
            and _feeds_fpu_binary(op)
        ):
            self.locations[op.result] = Broadcast(op)
            return
        if form is Form.ACCUMULATE_FROM_CBS:
            *from_cbs, acc = operands
            new_operands = [self.from_cb(builder, v, op) for v in from_cbs]
            slot = self.copy_to_dst(builder, acc)
            self._check_overwrite(acc, op)
            new_operands.append(self.load_dst(builder, slot))
        elif form is Form.FROM_CB:
            new_operands = [self.from_cb(builder, operands[0], op)]
            slot = self.new_slot()
        elif (
            form is Form.FPU_OR_SFPU_BINARY
            and isinstance(locations[0], InCB)
            and isinstance(locations[1], InCB)
        ):
            new_operands = [self.from_cb(builder, v, op) for v in operands]
            slot = self.new_slot()
        elif (
            form is Form.FPU_OR_SFPU_BINARY
            and isinstance(locations[0], InCB)
            and isinstance(locations[1], Broadcast)
        ):
            new_operands = [
                self.from_cb(builder, operands[0], op),
                self.broadcast_from_cb(builder, operands[1], op),
            ]
            slot = self.new_slot()
        elif form in (Form.FPU_OR_SFPU_BINARY, Form.SFPU):
            new_operands = [self.in_dst(builder, v) for v in operands]
            slot = self.new_slot()
        elif form is Form.IN_PLACE:
            (operand,) = operands
            self._check_overwrite(operand, op)
            slot = self.copy_to_dst(builder, operand)
            new_operands = [self.load_dst(builder, slot)]
        else:
            new_operands = []
            slot = self.new_slot()
        new = builder.insert(op.clone(value_mapper=dict(zip(operands, new_operands))))
        self.store_dst(builder, new.results[0], slot)
        self.locations[op.results[0]] = InDst(slot)

    def _check_overwrite(self, value: SSAValue, op: Operation) -> None:
        """An op that computes in `value`'s slot may not destroy a DST value used again."""
        if isinstance(self.locations[value], InDst) and value.uses.get_length() > 1:
            raise PassError(
                op,
                "overwrites its operand in DST, but the operand is used again; "
                "d2m-lower-to-loops does not copy DST values.",
            )


def _lower_generic(op: GenericOp, capacity: int) -> None:
    """Emits, before `op`, the loops and DST sections computing it (see the module doc)."""
    maps = [attr.data for attr in op.indexing_maps]
    ranges = loop_ranges(op)
    parallel = [d for d, it in enumerate(op.iterator_types) if it.data.value == "parallel"]
    reduction = [d for d in range(len(ranges)) if d not in parallel]
    body = op.body.block
    acc_arg = body.args[-1]
    assert isinstance(body.last_op, YieldOp)
    (yielded,) = body.last_op.operands
    output = op.outputs[0]
    tile_type = acc_arg.type
    assert isinstance(tile_type, TileType)
    dst_type = MemRefType(tile_type, [capacity], memory_space=MemorySpaceAttr(MemorySpace.DST))
    undefined_init = output_is_undefined(op)

    def section(builder: Builder, parallel_ivs: list[SSAValue]) -> None:
        ivs = dict(zip(parallel, parallel_ivs))
        dst = builder.insert(d2m.AcquireDstOp.build(result_types=[dst_type])).result
        state = _Section(op, dst, capacity)
        output_indices = _map_indices(builder, maps[-1], ivs, op)
        if acc_arg.uses:
            slot = state.new_slot()
            if undefined_init:
                if any(isinstance(use.operation, d2m.TileReduceMaxOp) for use in acc_arg.uses):
                    fill = builder.insert(d2m.TileFillOp(MAX_IDENTITY, tile_type))
                    state.store_dst(builder, fill.result, slot)
            else:
                tile = builder.insert(memref.LoadOp.get(output, output_indices)).res
                state.store_dst(builder, tile, slot)
            state.locations[acc_arg] = InDst(slot)

        def compute(inner: Builder, reduction_ivs: list[SSAValue]) -> None:
            all_ivs = {**ivs, **dict(zip(reduction, reduction_ivs))}
            for arg, operand, indexing_map in zip(body.args, op.inputs, maps):
                state.locations[arg] = InCB(operand, _map_indices(inner, indexing_map, all_ivs, op))
            for body_op in body.ops:
                if not isinstance(body_op, YieldOp):
                    state.lower(inner, body_op)
            if acc_arg.uses and state.locations.get(yielded) != state.locations[acc_arg]:
                raise PassError(
                    op,
                    "reads its output but yields a value computed elsewhere; the "
                    "accumulator must be updated in place.",
                )

        _emit_loops(builder, [ranges[d] for d in reduction], compute)
        if reduction and isinstance(state.locations[yielded], InCB):
            raise PassError(op, "reduces but yields an input tile unchanged.")
        slot = state.copy_to_dst(builder, yielded)
        builder.insert(d2m.CommitDstOp(dst))
        builder.insert(d2m.WaitDstOp(dst))
        result = state.load_dst(builder, slot)
        builder.insert(memref.StoreOp.get(result, output, output_indices))
        builder.insert(d2m.ReleaseDstOp(dst))

    _emit_loops(Builder(InsertPoint.before(op)), [ranges[d] for d in parallel], section)


class LowerGenericToTileLoops(RewritePattern):
    """A linalg.generic on tile blocks -> loops over its output tiles, a DST section each."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GenericOp, rewriter: PatternRewriter) -> None:
        if not all(isinstance(arg.type, TileType) for arg in op.body.block.args):
            return
        if op.res:
            raise PassError(op, "still returns tensors; run d2m-bufferize first.")
        _lower_generic(op, compute_config_of(op).dst_capacity_tiles)
        rewriter.erase(op)


@dataclass(frozen=True)
class D2MLowerToLoops(ModulePass):
    """Bufferized linalg.generics -> tile loops with one DST section per output tile."""

    name = "d2m-lower-to-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(LowerGenericToTileLoops(), apply_recursively=False).rewrite_module(op)
