"""d2m-lower-to-loops: each DST-allocated `linalg.generic` becomes loops over its
subblocks, one DST section (tile-regs sync) per subblock.

Input: generics placed by d2m-dst-allocate (`d2m.dst_slots`; body ops carry
`d2m.dst_slot`, CB tiles reach DST through `d2m.tile_copy`, `d2m.dst_spill` ends a
section) and, if d2m-tile-subblock split them, `d2m.subblock` (else one subblock is the
whole block).

For every subblock (row-major over the output block) the pass emits one section:

    d2m.acquire_dst                       (math takes DST)
    accumulator init                      (from the output block, or -inf for a max
                                           reduction into a fresh block; DST starts at 0)
    the prologue ops (`d2m.prologue`)     (computing the accumulator's start in DST)
    loops over the reduction dimensions:  the accumulating ops (matmul, reduce)
    the other ops (the epilogue)
    d2m.commit_dst ; d2m.wait_dst         (math hands DST to the packer)
    pack of the result tiles into each output block, in order (a generic with
                                           several outputs yields one value for all;
                                           onto the blocks of the outputs in
                                           `d2m.summed_outputs` each pack after a
                                           tile's first adds, `d2m.pack_l1_acc`)
    d2m.release_dst

Each body op runs over all tiles of the subblock before the next op starts (its own
loop nest over the subblock), so an op's init is needed once per subblock; the DST
index of tile `t` (row-major in the subblock) of a value in slot `s` is `s * n + t`,
`n` the subblock's tile count. A CB tile operand is `memref.load %block[indices]` (the
engine unpacks it), a DST one `memref.load %dst[index]`, a result `memref.store` into
DST. A `d2m.tile_copy` of a CB tile becomes such a load stored into DST (copy_tile).
A broadcast without a slot is left on the add/sub/mul that reads it (the FPU broadcasts
while unpacking). A `d2m.dst_spill` commits the section, packs its values into a block
reserved on its CB, releases DST, pushes the block, waits for it and acquires DST
again; later uses read the spilled tiles from that block; it is popped after the
section's last pack. A `d2m.tile_fill` makes the same tile for every tile of the
block: it is filled once per section, into tile 0 of its slot (index `s * n`), and
every read of it (ops using it, the packs of a fill generic) loads that tile, unless
an op using it writes its slot (in place): then it is filled per tile.

Skipped iterations (`d2m.triangles`, d2m-skip-masked-tiles; `#d2m.triangle<rows = r,
cols = c, diagonal = k>` skips those with index[c] - index[r] > k): a subblock whose
lowest, leftmost output tile is skipped runs no section at all; inside a section each
op's tile, pack and accumulator load is guarded by `col - row <= k` (an `scf.if`) for
each triangle whose dims the loop indices at hand include, so a reduction triangle
guards the tiles of the reduction loop. A `tril()` op (`d2m.tril_diagonal = k`, a
select or mask add) computed in place of its `x` (for the add: its operand in DST, a
matmul's result after d2m-cb-start-as-add) runs only on output tiles on and above its
diagonal (below it the mask tile is all 0 and `x` stays), and only in a subblock whose
top right output tile is (a subblock wholly below the diagonal issues neither the op
nor its init), as does the copy of a mask tile only such selects read:

    scf.if (col0 - (row0 + rows - 1) <= k) {     // some tile of the subblock is kept
      d2m.acquire_dst
      scf.for ... { scf.if (col - row <= k) { the op on tile (row, col) } }
      ...
    }

Fill generics (no inputs, all-parallel, the body one `d2m.tile_fill` yielded into every
output) that follow each other in a block, with only `d2m.reserve`s between them, share
one section whatever their subblocks: the reserves move before the first (a reserve
waits only for space its consumer frees, and no push or pop is passed), each distinct
value is filled once into a DST tile of its own (+0.0 first, where
ttkernel-drop-zero-fills erases it: DST starts cleared) and every output block is
packed from its value's tile, generic by generic. A run holds fills of one tile type
and at most DST-capacity distinct values. FlashAttention's m = -inf, l = 0, acc = 0
per Q chunk were three sections, each math step waiting for the packer to drain the
section before the last:

    %rm = d2m.reserve %m_cb
    linalg.generic outs(%rm) { %f = d2m.tile_fill -inf ; linalg.yield %f }
    %rl = d2m.reserve %l_cb
    linalg.generic outs(%rl) { %f = d2m.tile_fill 0.0 ; linalg.yield %f }

become

    %rm = d2m.reserve %m_cb
    %rl = d2m.reserve %l_cb
    %dst = d2m.acquire_dst
    %z = d2m.tile_fill 0.0 ; memref.store %z, %dst[%c0]
    %n = d2m.tile_fill -inf ; memref.store %n, %dst[%c1]
    d2m.commit_dst %dst ; d2m.wait_dst %dst
    scf.for ... { memref.store (memref.load %dst[%c1]), %rm[...] }
    scf.for ... { memref.store (memref.load %dst[%c0]), %rl[...] }
    d2m.release_dst %dst

Before (allocated; 1x2 subblocks of a 2x2 block):

    linalg.generic {...} ins(%in : memref<2x2x!tile, #l1>) outs(%out : memref<2x2x!tile, #l1>) {
    ^bb0(%a: !tile, %b: !tile):
      %c = d2m.tile_copy %a {d2m.dst_slot = 0 : i64} : !tile
      %e = d2m.tile_exp %c {d2m.dst_slot = 0 : i64} : !tile
      linalg.yield %e : !tile
    } {d2m.subblock = array<i64: 1, 2>, d2m.dst_slots = 1 : i64}

After:

    scf.for %i = %c0 to %c2 step %c1 {
      %dst = d2m.acquire_dst : memref<8x!tile, #dst>
      scf.for %j = %c0 to %c2 step %c1 {
        %x = memref.load %in[%i, %j] ; memref.store %x, %dst[%j]
      }
      scf.for %j = %c0 to %c2 step %c1 {
        %x = memref.load %dst[%j] ; %e = d2m.tile_exp %x ; memref.store %e, %dst[%j]
      }
      d2m.commit_dst %dst
      d2m.wait_dst %dst
      scf.for %j = %c0 to %c2 step %c1 {
        %r = memref.load %dst[%j] ; memref.store %r, %out[%i, %j]
      }
      d2m.release_dst %dst
    }

Fails (PassError) on generics not placed by d2m-dst-allocate, on generics that still
return tensors, and on indexing expressions other than sums and products of dimensions and
constants.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
import struct
from dataclasses import dataclass, field
from math import prod

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import DenseArrayBase, IndexType, IntegerAttr, MemRefType, ModuleOp, i1
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint, Rewriter

from ttlang.dialects import d2m
from ttlang.dialects.ttcore import MemorySpace, MemorySpaceAttr, TileType
from ttlang.transforms.analysis.compute_config import dst_capacity_of
from ttlang.transforms.analysis.dst_liveness import (
    DST_SLOT_ATTR,
    DST_SLOTS_ATTR,
    SUMMED_OUTPUTS_ATTR,
    accumulator,
    body_parts,
    is_cb_tile,
    loop_ranges,
    output_is_undefined,
    parallel_dims,
    subblock_extents,
    yielded_value,
)
from ttlang.transforms.analysis.triangles import triangles
from ttlang.transforms.diagnostics import PassError
from ttlang.transforms.index_arith import affine_value

MAX_IDENTITY = float("-inf")
"""Where a max reduction into an undefined accumulator starts."""


def _index(builder: Builder, value: int) -> SSAValue:
    return builder.insert(arith.ConstantOp.from_int_and_width(value, IndexType())).result


def _map_indices(
    builder: Builder, indexing_map: AffineMap, ivs: dict[int, SSAValue], op: Operation
) -> tuple[SSAValue, ...]:
    """The tile indices `indexing_map` gives for the loop induction variables `ivs`
    (sums and products of dimensions and constants: `tril`'s mask band reads tile
    `d1 - d0 + c`)."""

    def supported(expr: AffineExpr) -> bool:
        if isinstance(expr, AffineBinaryOpExpr):
            return expr.kind in (AffineBinaryOpKind.Add, AffineBinaryOpKind.Mul) and (
                supported(expr.lhs) and supported(expr.rhs)
            )
        return isinstance(expr, AffineDimExpr | AffineConstantExpr)

    for expr in indexing_map.results:
        if not supported(expr):
            raise PassError(
                op,
                f"has the indexing expression {expr}; only sums and products of dimensions and "
                "constants are supported.",
            )
    return tuple(
        affine_value(expr, ivs, lambda new: builder.insert(new).results[0], lambda v: _index(builder, v))
        for expr in indexing_map.results
    )


def _emit_loops(
    builder: Builder,
    extents: Sequence[int],
    body: Callable[[Builder, list[SSAValue]], None],
    steps: Sequence[int] | None = None,
) -> None:
    """Nested `scf.for` loops from 0 to each extent (by `steps`, default 1), calling
    `body` in the innermost; a dimension with a single iteration gets the constant 0."""
    if not extents:
        body(builder, [])
        return
    step = steps[0] if steps else 1
    rest_steps = steps[1:] if steps else None
    if extents[0] == step:
        zero = _index(builder, 0)
        _emit_loops(builder, extents[1:], lambda b, ivs: body(b, [zero, *ivs]), rest_steps)
        return
    lower, upper, step_value = (
        _index(builder, 0),
        _index(builder, extents[0]),
        _index(builder, step),
    )
    loop_block = Block(arg_types=[IndexType()])
    builder.insert(scf.ForOp(lower, upper, step_value, [], loop_block))
    inner = Builder(InsertPoint.at_end(loop_block))
    _emit_loops(inner, extents[1:], lambda b, ivs: body(b, [loop_block.args[0], *ivs]), rest_steps)
    inner.insert(scf.YieldOp())


def _slot(op: Operation) -> int | None:
    attr = op.attributes.get(DST_SLOT_ATTR)
    return attr.value.data if isinstance(attr, IntegerAttr) else None


def _filled_once(op: Operation | None) -> bool:
    """Whether `op` is a fill kept in one DST tile: no op using it writes its slot (an
    in-place user would overwrite that tile at the subblock's first tile and read the
    result back at the next)."""
    if not isinstance(op, d2m.TileFillOp):
        return False
    return all(_slot(use.operation) != _slot(op) for use in op.result.uses)


@dataclass
class _Subblock:
    """One DST section over a subblock: where each body value's tiles are."""

    generic: GenericOp
    dst: SSAValue
    dst_type: MemRefType
    parallel: list[int]
    extents: list[int]  # subblock extent per parallel dimension
    origin: list[SSAValue]  # first output tile of the subblock, per parallel dimension
    spilled: dict[SSAValue, tuple[SSAValue, int]] = field(default_factory=dict)
    spill_cbs: list[SSAValue] = field(default_factory=list)

    @property
    def triangles(self) -> list[d2m.TriangleAttr]:
        return triangles(self.generic)

    @property
    def tiles(self) -> int:
        return prod(self.extents)

    def per_tile(
        self,
        builder: Builder,
        reduction_ivs: dict[int, SSAValue],
        body: Callable[[Builder, dict[int, SSAValue], SSAValue], None],
        tril_diagonal: int | None = None,
    ) -> None:
        """`body(builder, ivs, t)` for each tile of the subblock, row-major: `ivs` are
        all loop dimensions' values, `t` the tile's position in the subblock. Iterations
        the generic's triangles skip (those whose dims are all in `ivs`) do not run it,
        nor, with `tril_diagonal`, output tiles below that tile diagonal."""

        def tile(inner: Builder, local: list[SSAValue]) -> None:
            ivs = dict(reduction_ivs)
            position: SSAValue | None = None
            for dim, origin, offset, extent in zip(self.parallel, self.origin, local, self.extents):
                ivs[dim] = inner.insert(arith.AddiOp(origin, offset)).result
                if position is None:
                    position = offset
                else:
                    scaled = inner.insert(arith.MuliOp(position, _index(inner, extent))).result
                    position = inner.insert(arith.AddiOp(scaled, offset)).result
            t = position if position is not None else _index(inner, 0)
            conditions = [
                _within(inner, ivs[tri.rows.data], ivs[tri.cols.data], tri.diagonal.data)
                for tri in self.triangles
                if tri.rows.data in ivs and tri.cols.data in ivs
            ]
            if tril_diagonal is not None:
                output_map = self.generic.indexing_maps.data[len(self.generic.inputs)].data
                row, col = _map_indices(inner, output_map, ivs, self.generic)[-2:]
                conditions.append(_within(inner, col, row, -tril_diagonal))
            _guarded(inner, conditions, lambda guarded: body(guarded, ivs, t))

        corner = self.tril_corner(builder, tril_diagonal)
        _guarded(builder, corner, lambda inner: _emit_loops(inner, self.extents, tile))

    def tril_corner(self, builder: Builder, tril_diagonal: int | None) -> list[SSAValue]:
        """For a `tril()` op on and above `tril_diagonal` only: the condition that the
        subblock's top right output tile is on or above it (else no tile is, and its init
        is not issued either), when the output's rows and columns are loop dims."""
        if tril_diagonal is None:
            return []
        output_map = self.generic.indexing_maps.data[len(self.generic.inputs)].data
        row, col = output_map.results[-2:]
        if not (isinstance(row, AffineDimExpr) and isinstance(col, AffineDimExpr)):
            return []
        if row.position not in self.parallel or col.position not in self.parallel:
            return []
        top = self.origin[self.parallel.index(row.position)]
        cols = self.parallel.index(col.position)
        last = _index(builder, self.extents[cols] - 1)
        right = builder.insert(arith.AddiOp(self.origin[cols], last)).result
        return [_within(builder, right, top, -tril_diagonal)]

    def dst_index(self, builder: Builder, slot: int, t: SSAValue) -> SSAValue:
        base = _index(builder, slot * self.tiles)
        return builder.insert(arith.AddiOp(base, t)).result

    def load_dst(self, builder: Builder, slot: int, t: SSAValue) -> SSAValue:
        return builder.insert(memref.LoadOp.get(self.dst, [self.dst_index(builder, slot, t)])).res

    def store_dst(self, builder: Builder, value: SSAValue, slot: int, t: SSAValue) -> None:
        builder.insert(memref.StoreOp.get(value, self.dst, [self.dst_index(builder, slot, t)]))

    def operand(
        self, builder: Builder, value: SSAValue, ivs: dict[int, SSAValue], t: SSAValue
    ) -> SSAValue:
        """`value`'s tile for this subblock tile: from its CB block or its DST slot."""
        generic = self.generic
        if isinstance(value, BlockArgument) and is_cb_tile(value):
            indexing_map = generic.indexing_maps.data[value.index].data
            indices = _map_indices(builder, indexing_map, ivs, generic)
            return builder.insert(memref.LoadOp.get(generic.inputs[value.index], indices)).res
        if value in self.spilled:
            block, row = self.spilled[value]
            return builder.insert(memref.LoadOp.get(block, [_index(builder, row), t])).res
        if isinstance(value, BlockArgument):  # the accumulator
            return self.load_dst(builder, self.accumulator_slot(), t)
        owner = value.owner
        assert isinstance(owner, Operation)
        slot = _slot(owner)
        if slot is None:  # a broadcast the FPU applies while unpacking its CB tile
            tile = self.operand(builder, owner.operands[0], ivs, t)
            clone = owner.clone(value_mapper={owner.operands[0]: tile})
            clone.attributes.clear()
            return builder.insert(clone).results[0]
        return self.load_dst(builder, slot, self.position(builder, value, t))

    @staticmethod
    def position(builder: Builder, value: SSAValue, t: SSAValue) -> SSAValue:
        """Where in its slot `value`'s tile `t` is: `t`, or 0 for a fill filled once
        (one tile holds it for the whole subblock)."""
        return _index(builder, 0) if _filled_once(value.owner) else t

    def accumulator_slot(self) -> int:
        acc = accumulator(self.generic)
        assert acc is not None
        slots = [_slot(use.operation) for use in acc.uses]
        assert slots and slots[0] is not None
        return slots[0]

    def emit(self, builder: Builder, op: Operation, reduction_ivs: dict[int, SSAValue]) -> None:
        """`op` over every tile of the subblock (a spill ends and restarts the section)."""
        if isinstance(op, d2m.DstSpillOp):
            self.spill(builder, op)
            return
        slot = _slot(op)
        if slot is None:
            return  # a broadcast left to the FPU op that reads it
        if _filled_once(op):  # every tile the same
            fill = builder.insert(op.clone())
            fill.attributes.clear()
            self.store_dst(builder, fill.results[0], slot, _index(builder, 0))
            return

        def one_tile(inner: Builder, ivs: dict[int, SSAValue], t: SSAValue) -> None:
            operands = [self.operand(inner, v, ivs, t) for v in op.operands]
            if isinstance(op, d2m.TileCopyOp) and op.engine == d2m.EngineAttr(d2m.Engine.FPU):
                self.store_dst(inner, operands[0], slot, t)  # copy_tile
                return
            new = op.clone(value_mapper=dict(zip(op.operands, operands)))
            new.attributes.clear()
            inner.insert(new)
            self.store_dst(inner, new.results[0], slot, t)

        self.per_tile(builder, reduction_ivs, one_tile, self.tril_diagonal(op))

    def tril_diagonal(self, op: Operation) -> int | None:
        """The tile diagonal below which `op` need not run: a `tril()` select or mask
        add (`d2m.tril_diagonal`) computed in place of its `x` (whose tile it leaves as
        it is there), or the copy of a mask tile only such selects read."""
        if isinstance(op, d2m.TileCopyOp):
            users = [use.operation for use in op.result.uses]
            diagonals = {self.tril_diagonal(u) if u.operands[0] is op.result else None for u in users}
            return diagonals.pop() if len(diagonals) == 1 else None
        attr = op.attributes.get(d2m.TRIL_DIAGONAL_ATTR)
        if not isinstance(attr, IntegerAttr):
            return None
        if isinstance(op, d2m.TileWhereOp):
            x = op.if_false
        else:  # the mask add: x is the operand in DST (a matmul's result), not the CB's mask
            x = next((v for v in op.operands if self.slot_of(v) is not None), op.operands[0])
        in_place = _slot(op) is not None and _slot(op) == self.slot_of(x)
        return attr.value.data if in_place else None

    def slot_of(self, value: SSAValue) -> int | None:
        """The DST slot holding `value`, None when it is read from a CB (or is a
        broadcast left to the FPU)."""
        if isinstance(value, BlockArgument):
            return None if is_cb_tile(value) else self.accumulator_slot()
        if value in self.spilled or not isinstance(value.owner, Operation):
            return None
        return _slot(value.owner)

    def pack(
        self, builder: Builder, value: SSAValue, block: SSAValue, row: int | None, output: int = 0
    ) -> None:
        """The subblock's tiles of `value` (in DST) packed into `block` (at output `output`'s
        indices, or in row `row` of a spill block). For an output in
        `d2m.summed_outputs`, each pack adds onto the block's tile (`d2m.pack_l1_acc` on)
        unless it is the tile's first: every loop dimension its map drops at 0. When the
        subblock packs onto one tile of the block, only its first pack can be the tile's
        first: accumulation is set for it and switched on after it (tt-metal's SDPA
        does the same per row); else it is set before every pack."""
        slot = self.slot_of(value)
        assert slot is not None, "d2m-dst-allocate leaves packed tiles in DST"
        output_map = self.generic.indexing_maps.data[len(self.generic.inputs) + output].data
        summed = self.generic.attributes.get(SUMMED_OUTPUTS_ATTR)
        dropped: list[int] = []
        if isinstance(summed, DenseArrayBase) and output in summed.get_values():
            kept = {e.position for e in output_map.results if isinstance(e, AffineDimExpr)}
            dropped = [d for d in self.parallel if d not in kept]
        one_target = all(
            extent == 1 for d, extent in zip(self.parallel, self.extents) if d not in dropped
        )

        def not_first(inner: Builder, ivs: dict[int, SSAValue]) -> SSAValue:
            zero = _index(inner, 0)
            flags = [inner.insert(arith.CmpiOp(ivs[d], zero, "ne")).result for d in dropped]
            while len(flags) > 1:
                flags = [inner.insert(arith.OrIOp(flags[0], flags[1])).result, *flags[2:]]
            return flags[0]

        if dropped and one_target:
            origin = dict(zip(self.parallel, self.origin))
            builder.insert(d2m.PackL1AccOp(not_first(builder, origin)))

        def one_tile(inner: Builder, ivs: dict[int, SSAValue], t: SSAValue) -> None:
            if dropped and one_target:
                second = inner.insert(arith.CmpiOp(t, _index(inner, 1), "eq")).result
                on = arith.ConstantOp(IntegerAttr(1, i1))
                inner.insert(scf.IfOp(second, [], [on, d2m.PackL1AccOp(on.result), scf.YieldOp()]))
            elif dropped:
                inner.insert(d2m.PackL1AccOp(not_first(inner, ivs)))
            tile = self.load_dst(inner, slot, self.position(inner, value, t))
            if row is None:
                indices = _map_indices(inner, output_map, ivs, self.generic)
            else:
                indices = (_index(inner, row), t)
            inner.insert(memref.StoreOp.get(tile, block, indices))

        self.per_tile(builder, {}, one_tile)
        if dropped:
            _pack_l1_acc(builder, False)

    def spill(self, builder: Builder, op: d2m.DstSpillOp) -> None:
        cb_type = op.cb.type
        assert isinstance(cb_type, d2m.CBType)
        reserved = builder.insert(d2m.ReserveOp(op.cb, cb_type.block)).result
        builder.insert(d2m.CommitDstOp(self.dst))
        builder.insert(d2m.WaitDstOp(self.dst))
        for row, value in enumerate(op.values):
            self.pack(builder, value, reserved, row)
        builder.insert(d2m.ReleaseDstOp(self.dst))
        builder.insert(d2m.PushOp(op.cb))
        block = builder.insert(d2m.WaitOp(op.cb, cb_type.block)).result
        for row, spilled in enumerate(op.spilled):
            self.spilled[spilled] = (block, row)
        self.spill_cbs.append(op.cb)
        self.dst = builder.insert(d2m.AcquireDstOp.build(result_types=[self.dst_type])).result


def _lower_generic(op: GenericOp, capacity: int) -> None:
    """Emits, before `op`, the loops and DST sections computing it (see the module doc)."""
    if DST_SLOTS_ATTR not in op.attributes:
        raise PassError(op, "has no DST allocation; run d2m-dst-allocate first.")
    maps = [attr.data for attr in op.indexing_maps]
    ranges = loop_ranges(op)
    parallel = parallel_dims(op)
    reduction = [d for d in range(len(ranges)) if d not in parallel]
    extents = subblock_extents(op)
    acc = accumulator(op)
    yielded = yielded_value(op)
    prologue, in_reduction, epilogue = body_parts(op)
    tile_type = op.body.block.args[-1].type
    assert isinstance(tile_type, TileType)
    dst_type = MemRefType(tile_type, [capacity], memory_space=MemorySpaceAttr(MemorySpace.DST))
    undefined_init = output_is_undefined(op)
    output = op.outputs[0]

    def section(builder: Builder, origin: list[SSAValue]) -> None:
        """One DST section, unless every tile of it is skipped (its lowest, leftmost
        output tile lies above an output triangle's diagonal)."""
        conditions = []
        for tri in triangles(op):
            if tri.rows.data in parallel and tri.cols.data in parallel:
                rows, cols = parallel.index(tri.rows.data), parallel.index(tri.cols.data)
                last = _index(builder, extents[rows] - 1)
                bottom = builder.insert(arith.AddiOp(origin[rows], last)).result
                conditions.append(_within(builder, bottom, origin[cols], tri.diagonal.data))
        _guarded(builder, conditions, lambda inner: section_body(inner, origin))

    def section_body(builder: Builder, origin: list[SSAValue]) -> None:
        dst = builder.insert(d2m.AcquireDstOp.build(result_types=[dst_type])).result
        state = _Subblock(op, dst, dst_type, parallel, extents, origin)
        if acc is not None:
            _init_accumulator(builder, state, undefined_init, maps[len(op.inputs)], output)
        for body_op in prologue:
            state.emit(builder, body_op, {})

        def reduce(inner: Builder, reduction_values: list[SSAValue]) -> None:
            ivs = dict(zip(reduction, reduction_values))
            for body_op in in_reduction:
                state.emit(inner, body_op, ivs)

        if in_reduction:
            _emit_loops(builder, [ranges[d] for d in reduction], reduce)
        for body_op in epilogue:
            state.emit(builder, body_op, {})
        builder.insert(d2m.CommitDstOp(state.dst))
        builder.insert(d2m.WaitDstOp(state.dst))
        for index, block in enumerate(op.outputs):  # summed ones by L1 accumulation
            state.pack(builder, yielded, block, None, index)
        builder.insert(d2m.ReleaseDstOp(state.dst))
        for cb in state.spill_cbs:
            builder.insert(d2m.PopOp(cb))

    _emit_loops(
        Builder(InsertPoint.before(op)), [ranges[d] for d in parallel], section, steps=extents
    )


def _within(builder: Builder, row: SSAValue, col: SSAValue, diagonal: int) -> SSAValue:
    """`col - row <= diagonal`: tile (row, col) is on or below that tile diagonal."""
    offset = builder.insert(arith.SubiOp(col, row)).result
    return builder.insert(arith.CmpiOp(offset, _index(builder, diagonal), "sle")).result


def _guarded(
    builder: Builder, conditions: list[SSAValue], body: Callable[[Builder], None]
) -> None:
    """`body` emitted under `scf.if` of all `conditions` (directly when there are none)."""
    if not conditions:
        body(builder)
        return
    condition = conditions[0]
    for other in conditions[1:]:
        condition = builder.insert(arith.AndIOp(condition, other)).result
    then = Block()
    inner = Builder(InsertPoint.at_end(then))
    body(inner)
    inner.insert(scf.YieldOp())
    builder.insert(scf.IfOp(condition, [], Region(then)))


def _pack_l1_acc(builder: Builder, enable: bool) -> None:
    flag = builder.insert(arith.ConstantOp(IntegerAttr(int(enable), i1))).result
    builder.insert(d2m.PackL1AccOp(flag))


def _init_accumulator(
    builder: Builder,
    state: _Subblock,
    undefined_init: bool,
    output_map: AffineMap,
    output: SSAValue,
) -> None:
    """The accumulator's starting tiles: the output block's, or (block just reserved)
    DST's zeros, or -inf for a max reduction."""
    acc = accumulator(state.generic)
    assert acc is not None
    slot = state.accumulator_slot()
    is_max = any(isinstance(use.operation, d2m.TileReduceMaxOp) for use in acc.uses)
    if undefined_init and not is_max:
        return
    tile_type = acc.type
    assert isinstance(tile_type, TileType)

    def one_tile(inner: Builder, ivs: dict[int, SSAValue], t: SSAValue) -> None:
        if undefined_init:
            fill = d2m.TileFillOp(MAX_IDENTITY, tile_type)
            fill.engine = d2m.EngineAttr(d2m.Engine.SFPU)
            tile = inner.insert(fill).result
        else:
            indices = _map_indices(inner, output_map, ivs, state.generic)
            tile = inner.insert(memref.LoadOp.get(output, indices)).res
        state.store_dst(inner, tile, slot, t)

    state.per_tile(builder, {}, one_tile)


def _fill_of(op: Operation) -> d2m.TileFillOp | None:
    """The fill `op` packs when it is a fill generic: allocated, on memrefs, no inputs,
    all-parallel, its body one `d2m.tile_fill` it yields (into every output)."""
    if (
        not isinstance(op, GenericOp)
        or op.inputs
        or op.res
        or DST_SLOTS_ATTR not in op.attributes
        or SUMMED_OUTPUTS_ATTR in op.attributes
        or d2m.TRIANGLES_ATTR in op.attributes
        or len(parallel_dims(op)) != len(op.iterator_types)
    ):
        return None
    fill = op.body.block.first_op
    if not isinstance(fill, d2m.TileFillOp) or fill.next_op is not op.body.block.last_op:
        return None
    return fill


def _fill_key(fill: d2m.TileFillOp) -> bytes:
    """A fill's value as its bits (0.0 and -0.0 differ, a NaN equals itself)."""
    return struct.pack("<f", fill.value.value.data)


def _fill_runs(block: Block) -> list[list[Operation]]:
    """The runs of fill generics in `block` (each with the `d2m.reserve`s between its
    generics): consecutive fills of one tile type, at most DST-capacity values."""
    runs: list[list[Operation]] = []
    run: list[Operation] = []
    values: set[bytes] = set()
    for op in block.ops:
        fill = _fill_of(op)
        if fill is not None:
            first = _fill_of(run[0]) if run else None
            values_after = values | {_fill_key(fill)}
            if first is None or (
                first.result.type == fill.result.type and len(values_after) <= dst_capacity_of(op)
            ):
                run.append(op)
                values = values_after
                continue
        if isinstance(op, d2m.ReserveOp) and run:
            run.append(op)
            continue
        runs.append(run)
        run, values = ([op], {_fill_key(fill)}) if fill is not None else ([], set())
    runs.append(run)
    for run in runs:
        while run and isinstance(run[-1], d2m.ReserveOp):
            run.pop()
    return [run for run in runs if run]


def _lower_fill_run(run: list[Operation]) -> None:
    """One DST section for a run of fill generics (`_fill_runs`): the reserves between
    them move before the first (a reserve only waits for space its consumer frees; no
    push or pop is passed), each distinct value is filled once into a DST tile of its
    own (+0.0 first: ttkernel-drop-zero-fills erases a section's leading zero fills),
    and every output block of every generic is packed from its value's tile."""
    generics = [op for op in run if isinstance(op, GenericOp)]
    first = generics[0]
    for reserve in run:
        if isinstance(reserve, d2m.ReserveOp) and reserve.parent_block() is not None:
            reserve.detach()
            Rewriter.insert_op(reserve, InsertPoint.before(first))
    fills = [_fill_of(op) for op in generics]
    tile_type = fills[0].result.type
    zero = struct.pack("<f", 0.0)
    keys = sorted(dict.fromkeys(_fill_key(fill) for fill in fills), key=lambda k: k != zero)
    builder = Builder(InsertPoint.before(first))
    dst_space = MemorySpaceAttr(MemorySpace.DST)
    dst_type = MemRefType(tile_type, [dst_capacity_of(first)], memory_space=dst_space)
    dst = builder.insert(d2m.AcquireDstOp.build(result_types=[dst_type])).result
    for index, key in enumerate(keys):
        fill = builder.insert(next(f for f in fills if _fill_key(f) == key).clone())
        fill.attributes.clear()
        builder.insert(memref.StoreOp.get(fill.results[0], dst, [_index(builder, index)]))
    builder.insert(d2m.CommitDstOp(dst))
    builder.insert(d2m.WaitDstOp(dst))
    for generic, fill in zip(generics, fills):
        parallel = parallel_dims(generic)
        ranges = loop_ranges(generic)
        origin = [_index(builder, 0)] * len(parallel)
        extents = [ranges[d] for d in parallel]
        state = _Subblock(generic, dst, dst_type, parallel, extents, origin)
        for output, block in zip(generic.indexing_maps.data, generic.outputs):

            def pack(inner: Builder, ivs: dict[int, SSAValue], t: SSAValue) -> None:
                source = _index(inner, keys.index(_fill_key(fill)))
                tile = inner.insert(memref.LoadOp.get(dst, [source])).res
                indices = _map_indices(inner, output.data, ivs, generic)
                inner.insert(memref.StoreOp.get(tile, block, indices))

            state.per_tile(builder, {}, pack)
    builder.insert(d2m.ReleaseDstOp(dst))
    for generic in generics:
        Rewriter.erase_op(generic)


class LowerGenericToTileLoops(RewritePattern):
    """An allocated linalg.generic on tile blocks -> loops over subblocks, a DST section each."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GenericOp, rewriter: PatternRewriter) -> None:
        if not all(isinstance(arg.type, TileType) for arg in op.body.block.args):
            return
        if op.res:
            raise PassError(op, "still returns tensors; run d2m-bufferize first.")
        _lower_generic(op, dst_capacity_of(op))
        rewriter.erase(op)


@dataclass(frozen=True)
class D2MLowerToLoops(ModulePass):
    """Allocated linalg.generics -> subblock loops with one DST section per subblock."""

    name = "d2m-lower-to-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        regions = [region for inner in op.walk() for region in inner.regions]
        for block in [block for region in regions for block in region.blocks]:
            for run in _fill_runs(block):
                _lower_fill_run(run)
        PatternRewriteWalker(LowerGenericToTileLoops(), apply_recursively=False).rewrite_module(op)
