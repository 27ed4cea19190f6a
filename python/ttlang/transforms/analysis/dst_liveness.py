"""DST liveness of a `linalg.generic` body: where each tile op takes its operands, which
values sit in DST at once, and a slot for each.

The body of a bufferized generic computes one output tile. Its values live either in
a CB (the body's input arguments, and values a `d2m.dst_spill` packed into a CB) or in
DST (everything an op computes). Which operands an op reads from where is decided by
its engine (`FORMS`, shared with d2m-elementwise-fusion and d2m-lower-to-loops):

- matmul, reduce, accumulate: A and B (input, scaler) unpacked from CBs; the
  accumulator in DST, updated in place;
- transpose, broadcast: the input unpacked from a CB; the result in a new slot (not
  computed at all when applied while unpacking: a broadcast that is the second operand
  of an FPU add/sub/mul whose first operand is a CB tile, a transpose that is a
  matmul's B operand);
- add/sub/mul: both operands from CBs (FPU; of column vectors, marked
  `d2m.column_vectors`, with the rhs read column-broadcast: column 0, all their data,
  is the same, and the op shares the init of a broadcast op on CBs of the same tiles);
  one in DST and the other from a CB (FPU with dest reuse, in place of the DST operand
  when that operand dies there); else both in DST (SFPU);
- div, maximum, where: every operand in DST (SFPU);
- unary SFPU ops and scalar ops: in place on their operand's slot;
- fill: a new slot; `d2m.tile_copy`: its operand copied into a new slot.

`schedule_dst(generic, capacity)` walks the body in order as the hardware runs it and
returns a `DstSchedule`: the steps (copies of CB tiles into DST, each op with the slot
of its result and the engine computing it (`d2m.Engine`), spills) and the peak number
of slots in use. A slot is freed after the last use of its value and reused; an
in-place op whose operand is still needed later works on a copy; an operand needed
twice by one op is copied once. When an op needs a slot and none is free, every value
still needed is spilled (`Spill`): the DST section ends, the values go to a CB and are
read back from there when used again. With `capacity=None` nothing is ever spilled and
`peak` is the body's DST footprint per output tile (d2m-tile-subblock);
d2m-dst-allocate writes a schedule into the IR.

The body may hold a prologue (ops marked `d2m.prologue` by d2m-accumulate-into-dst,
run once to compute the accumulator's starting value), a reduction part (ops
accumulating over the reduction dimensions) and an epilogue (ops marked `d2m.epilogue`
by d2m-elementwise-fusion, applied once to the final accumulator): the accumulator's
slot is taken first and held throughout (with a prologue, the prologue's result is the
accumulator).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum, auto
from math import prod

from xdsl.dialects.builtin import DenseArrayBase
from xdsl.dialects.linalg.ops import GenericOp, YieldOp
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr

from ttlang.dialects import d2m

EPILOGUE_ATTR = "d2m.epilogue"
"""Unit attribute on the body ops of a reduction generic that run once, after the
reduction, on the final accumulator (a fused epilogue)."""

PROLOGUE_ATTR = "d2m.prologue"
"""Unit attribute on the body ops of a reduction generic that run once, before the
reduction, to compute the accumulator's starting value in DST (d2m-accumulate-into-dst)."""

L1_ACCUMULATE_ATTR = "d2m.l1_accumulate"
"""Unit attribute on a generic whose packs add onto its output block in L1 (the packer's
L1 accumulation, d2m-packer-l1-accumulate): its own reduction starts from DST's zeros,
whatever the block holds."""

SUMMED_OUTPUTS_ATTR = "d2m.summed_outputs"
"""`array<i64: ...>` on a generic: the outputs (by position among its outputs) its
result tiles are packed onto with L1 accumulation, each output tile gathering the tiles
of the iterations its map sends there on top of what the block holds
(d2m-row-sum-on-pack). Its other outputs are packed as usual."""

DST_SLOT_ATTR = "d2m.dst_slot"
"""Integer attribute on a body op whose result d2m-dst-allocate placed in DST: the slot
(counted in subblocks: slot `s` holds tile `t` of the subblock in DST index s*n + t)."""


class Form(Enum):
    """Where a tile op takes its operands and puts its result."""

    ACCUMULATE_FROM_CBS = auto()  # leading operands from CBs, last operand (acc) in DST, in place
    FROM_CB = auto()  # one operand from a CB, result in a new slot
    FPU_OR_SFPU_BINARY = auto()  # from CBs (FPU), one in DST (dest reuse), or in DST (SFPU)
    SFPU = auto()  # every operand in DST, result in a new slot
    IN_PLACE = auto()  # one operand in DST, result in its slot
    NEW_TILE = auto()  # no operand, result in a new slot
    COPY = auto()  # one operand (CB or DST) copied into a new slot


FORMS: dict[type[Operation], Form] = {
    d2m.TileMatmulOp: Form.ACCUMULATE_FROM_CBS,
    d2m.TileReduceSumOp: Form.ACCUMULATE_FROM_CBS,
    d2m.TileReduceMaxOp: Form.ACCUMULATE_FROM_CBS,
    d2m.TileAccumulateOp: Form.ACCUMULATE_FROM_CBS,
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
    d2m.TileCopyOp: Form.COPY,
}

SUBBLOCK_ATTR = "d2m.subblock"
"""`array<i64: ...>` on a generic, one extent per parallel dimension: the output tiles
one DST section computes (d2m-tile-subblock). Without it a section computes them all."""

DST_SLOTS_ATTR = "d2m.dst_slots"
"""Integer attribute on a generic whose body d2m-dst-allocate placed: the slots (per
subblock tile) its body uses at most. d2m-lower-to-loops requires it."""


def loop_ranges(generic: GenericOp) -> list[int]:
    """The trip count of each loop dimension of `generic`, read off its operand shapes."""
    ranges: dict[int, int] = {}
    for operand, map_attr in zip(generic.operands, generic.indexing_maps):
        shape = operand.type.get_shape()  # type: ignore[attr-defined]
        for expr, extent in zip(map_attr.data.results, shape):
            if isinstance(expr, AffineDimExpr):
                ranges.setdefault(expr.position, extent)
    # linalg.generic's verifier guarantees that every dimension indexes some operand.
    return [ranges[dim] for dim in range(generic.indexing_maps.data[0].data.num_dims)]


def parallel_dims(generic: GenericOp) -> list[int]:
    return [d for d, it in enumerate(generic.iterator_types) if it.data.value == "parallel"]


def subblock_extents(generic: GenericOp) -> list[int]:
    """Output tiles per DST section along each parallel dimension."""
    attr = generic.attributes.get(SUBBLOCK_ATTR)
    if isinstance(attr, DenseArrayBase):
        return [int(v) for v in attr.get_values()]
    ranges = loop_ranges(generic)
    return [ranges[d] for d in parallel_dims(generic)]


def subblock_tiles(generic: GenericOp) -> int:
    return prod(subblock_extents(generic))


class DstLivenessError(Exception):
    """The body cannot be placed on the engines; `op` is the op at fault."""

    def __init__(self, op: Operation, message: str):
        super().__init__(message)
        self.op = op
        self.message = message


def is_epilogue(op: Operation) -> bool:
    return EPILOGUE_ATTR in op.attributes


def is_prologue(op: Operation) -> bool:
    return PROLOGUE_ATTR in op.attributes


def output_is_undefined(op: GenericOp) -> bool:
    """Whether `op` is the first to touch its output block since it was reserved, so
    the block's contents (the accumulator's initial value) are undefined: a reduction
    into it starts from its identity (DST's zeros, or -inf for a maximum). A generic
    whose packs accumulate in L1 starts from DST's zeros too: the block's contents are
    added by the packer."""
    if L1_ACCUMULATE_ATTR in op.attributes:
        return True
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


def body_ops(generic: GenericOp) -> list[Operation]:
    """The tile ops of `generic`'s body, in order (the yield left out)."""
    return [op for op in generic.body.block.ops if not isinstance(op, YieldOp)]


def body_parts(generic: GenericOp) -> tuple[list[Operation], list[Operation], list[Operation]]:
    """The body ops in the three parts a DST section runs (d2m-lower-to-loops): the
    prologue (once, first), the ops inside the loops over the reduction dimensions (every
    iteration: up to the last accumulating op outside the epilogue; none without
    reduction dimensions) and the rest (the epilogue, once, last)."""
    prologue = [o for o in body_ops(generic) if is_prologue(o)]
    ops = [o for o in body_ops(generic) if not is_prologue(o)]
    accumulating = [
        o for o in ops if not is_epilogue(o) and FORMS.get(type(o)) is Form.ACCUMULATE_FROM_CBS
    ]
    reduces = len(parallel_dims(generic)) < len(generic.iterator_types)
    in_reduction = ops[: ops.index(accumulating[-1]) + 1] if reduces and accumulating else []
    return prologue, in_reduction, ops[len(in_reduction) :]


def fill_value(generic: GenericOp) -> float | None:
    """The constant a generic without inputs fills its output with (its body one
    `d2m.tile_fill`), else None."""
    ops = body_ops(generic)
    if generic.inputs or len(ops) != 1 or not isinstance(ops[0], d2m.TileFillOp):
        return None
    return ops[0].value.value.data


def yielded_value(generic: GenericOp) -> SSAValue:
    last = generic.body.block.last_op
    assert isinstance(last, YieldOp)
    return last.operands[0]


def accumulator(generic: GenericOp) -> BlockArgument | None:
    """The body argument standing for the (first) output's tile, when the body reads it."""
    acc = generic.body.block.args[len(generic.inputs)]
    return acc if acc.uses else None


def applied_while_unpacking(op: Operation) -> bool:
    """Whether `op` transforms a CB tile on its way into the engine that uses it, and so
    is never computed into DST: a broadcast that is the second operand of an add/sub/mul
    whose first operand is a CB tile (the FPU broadcasts while unpacking), or a
    transpose that is the B operand of a matmul (the unpacker transposes B tiles)."""
    if not isinstance(op, d2m.TileBcastOp | d2m.TileTransposeOp) or not is_cb_tile(op.input):
        return False
    uses = list(op.result.uses)
    if len(uses) != 1:
        return False
    user, index = uses[0].operation, uses[0].index
    if isinstance(op, d2m.TileTransposeOp):
        return isinstance(user, d2m.TileMatmulOp) and index == 1 and user.a is not op.result
    return (
        isinstance(user, d2m.FPU_BINARY_OPS)
        and index == 1
        and user.operands[0] is not op.result
        and is_cb_tile(user.operands[0])
    )


def is_cb_tile(value: SSAValue) -> bool:
    """Whether `value` is read from a CB: a body input argument or a spilled tile."""
    if isinstance(value, BlockArgument):
        owner = value.block.parent_op()
        return isinstance(owner, GenericOp) and value.index < len(owner.inputs)
    return isinstance(value.owner, d2m.DstSpillOp)


@dataclass(frozen=True)
class Copy:
    """`value` (a CB tile, or a DST tile that an in-place op is about to overwrite)
    copied into `slot`: by the FPU (copy_tile) from a CB, by the SFPU within DST."""

    value: SSAValue
    slot: int
    index: int  # the position of the op the copy is for
    engine: d2m.Engine = d2m.Engine.FPU


@dataclass(frozen=True)
class Compute:
    """`op` computed on `engine` with its result in `slot` (None: applied while
    unpacking)."""

    op: Operation
    slot: int | None
    operands: tuple[SSAValue | Copy, ...]  # each operand, or the copy standing for it
    engine: d2m.Engine


@dataclass(frozen=True)
class Spill:
    """The DST section ends before the op at `index`: `values` (in DST) go to a CB;
    later uses read them there."""

    values: tuple[SSAValue, ...]
    index: int


Step = Copy | Compute | Spill


@dataclass
class DstSchedule:
    """The DST placement of one body (see the module docstring)."""

    steps: list[Step] = field(default_factory=list)
    peak: int = 0  # most slots in use at once (slots are taken lowest first)


@dataclass
class _Walk:
    """The state of `schedule_dst`'s walk over the body."""

    capacity: int | None
    order: dict[Operation, int]
    schedule: DstSchedule = field(default_factory=DstSchedule)
    slot_of: dict[SSAValue, int] = field(default_factory=dict)  # values now in DST
    copies: dict[SSAValue, Copy] = field(default_factory=dict)  # CB tiles copied to DST
    spilled: set[SSAValue] = field(default_factory=set)  # computed values now in a CB
    free: list[int] = field(default_factory=list)
    used: int = 0  # slots ever handed out (the highest + 1)

    def last_use(self, value: SSAValue) -> int:
        """The position of the last op using `value` (the yield counts as last)."""
        return max(
            (self.order.get(use.operation, len(self.order)) for use in value.uses), default=-1
        )

    def live_after(self, value: SSAValue, index: int) -> bool:
        return self.last_use(value) > index

    def in_cb(self, value: SSAValue) -> bool:
        return is_cb_tile(value) or value in self.spilled

    def in_dst(self, value: SSAValue) -> bool:
        return value in self.slot_of or value in self.copies

    def dst_slot(self, value: SSAValue) -> int:
        return self.copies[value].slot if value in self.copies else self.slot_of[value]

    def take_slot(self) -> int | None:
        """A free slot, or None when every slot is taken (the caller spills)."""
        if self.free:
            self.free.sort()
            return self.free.pop(0)
        if self.capacity is not None and self.used >= self.capacity:
            return None
        self.used += 1
        self.schedule.peak = max(self.schedule.peak, self.used)
        return self.used - 1

    def release(self, slot: int) -> None:
        self.free.append(slot)

    def copy_in(self, value: SSAValue, index: int) -> Copy | None:
        """A copy of the CB tile `value` into a new slot (None: no slot is free)."""
        slot = self.take_slot()
        if slot is None:
            return None
        copy = Copy(value, slot, index)
        self.schedule.steps.append(copy)
        self.copies[value] = copy
        return copy

    def drop_dead(self, values: list[SSAValue], index: int, keep: int | None) -> None:
        """Frees the slots of `values` not used after `index` (except slot `keep`)."""
        for value in dict.fromkeys(values):
            if not self.in_dst(value) or self.live_after(value, index):
                continue
            slot = self.dst_slot(value)
            self.copies.pop(value, None)
            self.slot_of.pop(value, None)
            if slot != keep:
                self.release(slot)

    def spill(self, index: int) -> None:
        """Ends the section before the op at `index`: computed values still needed go
        to a CB; DST empties."""
        values = tuple(v for v in self.slot_of if v not in self.spilled)
        if values:
            self.schedule.steps.append(Spill(values, index))
            self.spilled.update(values)
        self.slot_of.clear()
        self.copies.clear()
        self.free = list(range(self.used))


def _accumulate_slot(walk: _Walk, op: Operation, acc: SSAValue) -> int:
    if acc not in walk.slot_of:
        raise DstLivenessError(op, "accumulates into a tile that is not in DST.")
    return walk.slot_of[acc]


def _place(walk: _Walk, op: Operation, index: int) -> bool:
    """Schedules `op` (and the copies it needs); False when a slot was missing (nothing
    of `op` is scheduled then, except copies that stay valid)."""
    form = FORMS.get(type(op))
    if form is None:
        raise DstLivenessError(op, "is not a tile op with a known engine placement.")
    operands = list(op.operands)

    def need_cb(value: SSAValue) -> None:
        if not walk.in_cb(value) and not (
            isinstance(value.owner, Operation) and applied_while_unpacking(value.owner)
        ):
            raise DstLivenessError(
                op,
                "needs an operand from a circular buffer, but it is computed in DST by the "
                "same generic; split the expression so that the operand is a block.",
            )

    def ensure_dst(value: SSAValue) -> SSAValue | Copy | None:
        if value in walk.slot_of:
            return value
        if value in walk.copies:
            return walk.copies[value]
        if walk.in_cb(value):
            return walk.copy_in(value, index)
        raise DstLivenessError(op, "reads a value that is neither in DST nor in a CB.")

    result_slot: int | None
    placed: list[SSAValue | Copy]
    engine = d2m.Engine.FPU
    if form is Form.ACCUMULATE_FROM_CBS:
        *from_cbs, acc = operands
        for value in from_cbs:
            need_cb(value)
        result_slot = _accumulate_slot(walk, op, acc)
        placed = [*from_cbs, acc]
    elif form is Form.FROM_CB:
        need_cb(operands[0])
        if applied_while_unpacking(op):
            walk.schedule.steps.append(Compute(op, None, tuple(operands), d2m.Engine.UNPACK))
            return True
        result_slot = walk.take_slot()
        if result_slot is None:
            return False
        placed = operands
    elif form is Form.NEW_TILE:
        engine = d2m.Engine.SFPU
        result_slot = walk.take_slot()
        if result_slot is None:
            return False
        placed = []
    elif form is Form.FPU_OR_SFPU_BINARY and _reads_from_cbs(walk, operands):
        result_slot = walk.take_slot()
        if result_slot is None:
            return False
        placed = operands
        if d2m.COLUMN_VECTORS_ATTR in op.attributes and walk.in_cb(operands[1]):
            engine = d2m.Engine.FPU_BCAST_COL
    elif form is Form.FPU_OR_SFPU_BINARY and _dest_reuse_operand(walk, operands, index) is not None:
        in_dst = _dest_reuse_operand(walk, operands, index)
        assert in_dst is not None
        engine = d2m.Engine.DEST_TO_SRCA if in_dst is operands[0] else d2m.Engine.DEST_TO_SRCB
        result_slot = walk.slot_of[in_dst]
        placed = operands
    elif form is Form.IN_PLACE and _dies_in_dst(walk, operands[0], index):
        # In place on the operand's slot (a computed tile, or a CB tile's copy).
        (operand,) = operands
        engine = d2m.Engine.SFPU
        result_slot = walk.dst_slot(operand)
        placed = [walk.copies.get(operand, operand)]
    elif form in (Form.IN_PLACE, Form.COPY):
        # A copy of its own: from the CB when the operand is there (a CB tile, even one
        # already copied to DST: copy_tile reads the CB), else within DST by the SFPU
        # (a computed tile needed again).
        (operand,) = operands
        if not walk.in_dst(operand) and not walk.in_cb(operand):
            raise DstLivenessError(op, "reads a value that is neither in DST nor in a CB.")
        result_slot = walk.take_slot()
        if result_slot is None:
            return False
        from_dst = d2m.Engine.FPU if walk.in_cb(operand) else d2m.Engine.SFPU
        if form is Form.COPY:
            engine = from_dst
            placed = [operand]
        else:
            engine = d2m.Engine.SFPU
            copy = Copy(operand, result_slot, index, from_dst)
            walk.schedule.steps.append(copy)
            placed = [copy]
    else:  # SFPU: every operand in DST
        engine = d2m.Engine.SFPU
        placed = []
        for value in operands:
            located = ensure_dst(value)
            if located is None:
                return False
            placed.append(located)
        # The result may take the slot of an operand that dies here (a tril() select
        # its x's, first: below the diagonal the result is x, left in place).
        preferred = operands[2:] + operands[:2] if d2m.TRIL_DIAGONAL_ATTR in op.attributes else operands
        dying = [
            v for v in dict.fromkeys(preferred)
            if walk.in_dst(v) and not walk.live_after(v, index)
        ]  # fmt: skip
        if dying:
            result_slot = walk.dst_slot(dying[0])
        else:
            result_slot = walk.take_slot()
            if result_slot is None:
                return False
    walk.schedule.steps.append(Compute(op, result_slot, tuple(placed), engine))
    walk.drop_dead(operands, index, keep=result_slot)
    if result_slot is not None:
        for value, slot in list(walk.slot_of.items()):
            if slot == result_slot:
                del walk.slot_of[value]
        for value, copy in list(walk.copies.items()):
            if copy.slot == result_slot:
                del walk.copies[value]
        if op.results and walk.live_after(op.results[0], index):
            walk.slot_of[op.results[0]] = result_slot
        else:
            walk.release(result_slot)
    return True


def _dies_in_dst(walk: _Walk, value: SSAValue, index: int) -> bool:
    """Whether `value` is in DST (computed there or copied there) and not used after
    the op at `index`, so that an op may overwrite it."""
    return walk.in_dst(value) and not walk.live_after(value, index)


def _reads_from_cbs(walk: _Walk, operands: list[SSAValue]) -> bool:
    """Whether an add/sub/mul reads both operands from CBs (the second may be a
    broadcast the FPU applies)."""
    lhs, rhs = operands
    rhs_owner = rhs.owner
    rhs_from_cb = walk.in_cb(rhs) or (
        isinstance(rhs_owner, d2m.TileBcastOp) and applied_while_unpacking(rhs_owner)
    )
    return walk.in_cb(lhs) and rhs_from_cb


def _dest_reuse_operand(walk: _Walk, operands: list[SSAValue], index: int) -> SSAValue | None:
    """The operand of an add/sub/mul that is computed in DST and dies here while the
    other is a CB tile: the FPU reads DST and the CB and writes over the DST operand."""
    lhs, rhs = operands
    for in_dst, other in ((lhs, rhs), (rhs, lhs)):
        if (
            in_dst is not other
            and in_dst in walk.slot_of
            and not walk.live_after(in_dst, index)
            and walk.in_cb(other)
        ):
            return in_dst
    return None


def _computed_from(value: SSAValue, acc: SSAValue) -> bool:
    """Whether `value` is `acc` or computed from it by the body's ops."""
    if value is acc:
        return True
    owner = value.owner
    return isinstance(owner, Operation) and any(_computed_from(v, acc) for v in owner.operands)


def schedule_dst(generic: GenericOp, capacity: int | None = None) -> DstSchedule:
    """The DST schedule of `generic`'s body with `capacity` slots (None: unbounded).

    Raises DstLivenessError when an op cannot be placed (a CB operand computed in DST,
    an unknown op), when one op alone needs more slots than `capacity`, when the body
    reads its accumulator but yields something not computed from it, and when a
    reduction yields an input tile unchanged."""
    ops = body_ops(generic)
    walk = _Walk(capacity, {op: index for index, op in enumerate(ops)})
    acc = accumulator(generic)
    result = yielded_value(generic)
    if acc is not None and not _computed_from(result, acc):
        raise DstLivenessError(
            generic,
            "reads its output but yields a value computed elsewhere; the accumulator "
            "must be updated in place.",
        )
    if len(parallel_dims(generic)) < len(generic.iterator_types) and is_cb_tile(result):
        raise DstLivenessError(generic, "reduces but yields an input tile unchanged.")
    if acc is not None:
        slot = walk.take_slot()
        assert slot is not None  # capacity >= 1
        walk.slot_of[acc] = slot
    for index, op in enumerate(ops):
        scheduled = len(walk.schedule.steps)
        if _place(walk, op, index):
            continue
        del walk.schedule.steps[scheduled:]  # copies made for the op before it failed
        walk.spill(index)
        if not _place(walk, op, index):
            raise DstLivenessError(
                op, f"needs more DST slots than the {capacity} a section holds, even alone."
            )
    if not walk.in_dst(result):
        if not walk.in_cb(result):
            raise DstLivenessError(generic, "yields a value that is neither in DST nor in a CB.")
        copy = walk.copy_in(result, len(ops))
        if copy is None:
            walk.spill(len(ops))
            copy = walk.copy_in(result, len(ops))
        assert copy is not None
    return walk.schedule
