"""d2m-deferred-row-sum: a row sum carried across the iterations of a loop and read only
after it (`l = l * a + rowsum(x)` or `l = l + rowsum(x)`, FlashAttention's softmax
denominator) keeps a tile-wide partial sum instead: `L = L * bcast(a) + (x's tiles
added along the reduced dim)`, each element of `L` the sum over its column position,
and the row sum is taken once, `rowsum(L)`, after the loop. By linearity,
`rowsum(L) * a + rowsum(x) = rowsum(L * bcast(a) + sum_j x_j)`: exact up to rounding.

A reduce_tile costs 8 modeled cycles per fidelity phase (16 at HiFi2) for every tile
of `x`; adding `x`'s tile onto the partial in DST (`d2m.tile_accumulate`:
`binary_dest_reuse_tiles`, an FPU add) costs 8 (docs/cost_model.md), and the row sum
after the loop one reduce_tile per tile of `L`; when a generic computes `x` in DST,
d2m-row-sum-on-pack has its packer add the tiles instead (no math at all). tt-metal's
SDPA keeps its running sum the same way (a full tile per row of tiles, reduced by a
matmul after the last chunk).

An update qualifies when its generic (on tensors, after d2m-elementwise-fusion) has
loops parallel but for the last, a reduction; an output map `(d0, ..., 0)`; an
undefined output (`tensor.empty`); and a body of exactly

- `r = d2m.tile_reduce_sum <row> %x, %s, %out` with `%s` read from a block filled with
  1.0 (a plain row sum, as `rowsum()` emits it),
- `d2m.tile_add` of `r` and `y` (either order), yielded, with `y` the carried tile `%l`
  or `d2m.tile_mul` of `%l` and a factor `a`, where `%l` is an input read through the
  output map, used once, and `a` is such an input, its `bcast<col>`, or epilogue
  elementwise ops of those (FlashAttention's `exp(m - m_new)` when fusion put it in the
  update).

A carried value (a tensor SSA value) becomes a partial when it is a zero fill, the
result of a qualifying update of a partial, or an `scf.for` iteration argument or
result whose init and yielded value are partials; every use of a partial must be the
carried operand of an update whose result is a partial, the init or yielded value of
a partial loop value, or (results of an `scf.for` only: the sum is read after its
loop) any other op, which then reads `rowsum(L)`. The largest set of values meeting
these conditions is rewritten (a fixed point: a loop's iteration argument is a
partial when what its body yields is). A chain through several loops, such as causal
FlashAttention's (a loop, the masked diagonal step, a loop), is one partial.

The rewrite: each update's reduce becomes `d2m.tile_accumulate %x, %out` (the scaler
input dropped when nothing else reads it) and every input `%i` the factor is computed
from becomes `bcast<col>(%i)` (elementwise ops commute with the broadcast), so every row
of the partial is rescaled by its row's factor (as `a` holds it, in column 0);
after a loop whose result is read, a generic of the row-sum form `rowsum()` emits
(the partial, the update's 1.0 block, reduce_sum <row>) computes `rowsum(L)` for
those reads; when that is one elementwise generic d2m-elementwise-fusion would fuse
into a reduction (FlashAttention's `recip(l)`), it becomes the row sum's epilogue, by
the fusion's own rewrite (that pass ran before the row sum existed), so the sum stays
in DST for it. The zero fill stays: zeros are a partial of zeros. The update's ops lose
their `d2m.column_vectors` mark (the carried value is no column vector any more).

Before (FlashAttention's `l * alpha + p.rowsum()` in its K loop):

    %l_out = scf.for ... iter_args(%l = %zeros) -> (tensor<1x4x1x!tile>) {
      %u = linalg.generic {indexing_maps = [(d0, d1, d2) -> (d0, d1, d2), (d0, d1, d2) -> (0, 0),
                                            (d0, d1, d2) -> (d0, d1, 0), (d0, d1, d2) -> (d0, d1, 0),
                                            (d0, d1, d2) -> (d0, d1, 0)],
                           iterator_types = ["parallel", "parallel", "reduction"]}
          ins(%p, %ones, %l, %alpha : ...) outs(%e : tensor<1x4x1x!tile>) {
      ^bb0(%x: !tile, %s: !tile, %c: !tile, %a: !tile, %out: !tile):
        %r = d2m.tile_reduce_sum <row> %x, %s, %out : !tile
        %m = d2m.tile_mul %c, %a {d2m.epilogue} : !tile
        %n = d2m.tile_add %m, %r {d2m.epilogue} : !tile
        linalg.yield %n : !tile
      } -> tensor<1x4x1x!tile>
      scf.yield %u : tensor<1x4x1x!tile>
    }
    %inv = linalg.generic {...} ins(%l_out : tensor<1x4x1x!tile>) ... { d2m.tile_recip }

After:

    %l_out = scf.for ... iter_args(%l = %zeros) -> (tensor<1x4x1x!tile>) {
      %u = linalg.generic {indexing_maps = [(d0, d1, d2) -> (d0, d1, d2), (d0, d1, d2) -> (d0, d1, 0),
                                            (d0, d1, d2) -> (d0, d1, 0), (d0, d1, d2) -> (d0, d1, 0)],
                           iterator_types = ["parallel", "parallel", "reduction"]}
          ins(%p, %l, %alpha : ...) outs(%e : tensor<1x4x1x!tile>) {
      ^bb0(%x: !tile, %c: !tile, %a: !tile, %out: !tile):
        %r = d2m.tile_accumulate %x, %out : !tile
        %b = d2m.tile_bcast <col> %a {d2m.epilogue} : !tile
        %m = d2m.tile_mul %c, %b {d2m.epilogue} : !tile
        %n = d2m.tile_add %m, %r {d2m.epilogue} : !tile
        linalg.yield %n : !tile
      } -> tensor<1x4x1x!tile>
      scf.yield %u : tensor<1x4x1x!tile>
    }
    %e2 = tensor.empty() : tensor<1x4x1x!tile>
    %inv = linalg.generic {indexing_maps = [(d0, d1, d2) -> (d0, d1, d2), (d0, d1, d2) -> (0, 0),
                                            (d0, d1, d2) -> (d0, d1, 0)],
                           iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%l_out, %ones : ...) outs(%e2 : tensor<1x4x1x!tile>) {
    ^bb0(%c: !tile, %s: !tile, %out: !tile):
      %r = d2m.tile_reduce_sum <row> %c, %s, %out : !tile
      %i = d2m.tile_recip %r {d2m.epilogue} : !tile
      linalg.yield %i : !tile
    } -> tensor<1x4x1x!tile>

d2m-accumulate-into-dst then computes `L * bcast(a)` into DST first (a
`mul_tiles_bcast_cols`) and adds the tiles of `x` onto it. Values that do not qualify
are left alone. Fails (PassError) on a qualifying update already bufferized (the pass
runs on tensors, before d2m-bufferize).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import scf, tensor
from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr, ModuleOp, TensorType, UnitAttr
from xdsl.dialects.linalg.ops import GenericOp, YieldOp
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue, Use
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint, Rewriter

from ttlang.dialects import d2m
from ttlang.transforms.analysis.dst_liveness import EPILOGUE_ATTR, FORMS, Form, body_ops, fill_value
from ttlang.transforms.compute_region import defined_before
from ttlang.transforms.d2m_elementwise_fusion import FuseEpilogue
from ttlang.transforms.diagnostics import PassError


@dataclass(frozen=True)
class _Update:
    """A generic computing `l * a + rowsum(x)` (or `l + rowsum(x)`) of a carried `l`."""

    generic: GenericOp
    reduce: d2m.TileReduceSumOp
    carried: BlockArgument  # %l's body argument
    scale: d2m.TileMulOp | None  # `l * a`, None for `l + rowsum(x)`
    leaves: list[BlockArgument]  # the inputs `a` is computed from, to broadcast

    @property
    def carried_operand(self) -> SSAValue:
        return self.generic.operands[self.carried.index]

    @property
    def ones(self) -> SSAValue:
        """The block of 1.0 the reduce scales by."""
        return self.generic.operands[self.reduce.scaler.index]  # type: ignore[attr-defined]


def _fill_value(value: SSAValue) -> float | None:
    """The constant a generic without inputs fills `value` with, else None."""
    owner = value.owner
    if not isinstance(owner, GenericOp) or len(owner.res) != 1:
        return None
    return fill_value(owner)


def _reads_through(generic: GenericOp, arg: SSAValue, output_map: AffineMapAttr) -> bool:
    """Whether `arg` is an input body argument of `generic` read through `output_map`
    and used once."""
    return (
        isinstance(arg, BlockArgument)
        and arg.owner is generic.body.block
        and arg.index < len(generic.inputs)
        and generic.indexing_maps.data[arg.index] == output_map
        and len(list(arg.uses)) == 1
    )


def _row_sum_output_map(generic: GenericOp) -> bool:
    """Loops parallel but for the last (a reduction) and an output map `(d0, ..., 0)`."""
    kinds = [it.data.value for it in generic.iterator_types]
    rank = len(kinds)
    if rank < 2 or kinds != ["parallel"] * (rank - 1) + ["reduction"]:
        return False
    results = generic.indexing_maps.data[-1].data.results
    return len(results) == rank and all(
        expr == AffineDimExpr(dim) for dim, expr in enumerate(results[:-1])
    ) and results[-1] == AffineConstantExpr(0)


def _update(generic: GenericOp) -> _Update | None:
    """`generic` as an update (module docstring), when it qualifies."""
    update = _update_body(generic)
    if update is not None and not generic.res:
        raise PassError(generic, "is bufferized; d2m-deferred-row-sum runs on tensors, before d2m-bufferize.")
    if update is None or not isinstance(generic.outputs[0].owner, tensor.EmptyOp):
        return None
    return update if _fill_value(update.ones) == 1.0 else None


def _update_body(generic: GenericOp) -> _Update | None:
    """`generic` as an update when its maps and body qualify."""
    if len(generic.outputs) != 1 or not _row_sum_output_map(generic):
        return None
    block = generic.body.block
    out, output_map = block.args[-1], generic.indexing_maps.data[-1]
    ops = body_ops(generic)
    reduce = ops[0] if ops else None
    if (
        not isinstance(reduce, d2m.TileReduceSumOp)
        or reduce.dim.data != d2m.TileDim.ROW
        or EPILOGUE_ATTR in reduce.attributes
        or reduce.acc is not out
        or len(list(out.uses)) != 1
        or not isinstance(reduce.scaler, BlockArgument)
        or reduce.scaler.index >= len(generic.inputs)
    ):
        return None
    add = ops[-1]
    yielded = block.last_op
    assert isinstance(yielded, YieldOp)
    if not isinstance(add, d2m.TileAddOp) or yielded.operands[0] is not add.result:
        return None
    if reduce.result not in add.operands or len(list(reduce.result.uses)) != 1:
        return None
    other = add.rhs if add.lhs is reduce.result else add.lhs
    if other is reduce.result or not all(EPILOGUE_ATTR in op.attributes for op in ops[1:]):
        return None
    if _reads_through(generic, other, output_map) and len(ops) == 2:
        assert isinstance(other, BlockArgument)
        return _Update(generic, reduce, other, None, [])
    scale = other.owner
    if not isinstance(scale, d2m.TileMulOp) or len(list(scale.result.uses)) != 1:
        return None
    for carried, factor in ((scale.lhs, scale.rhs), (scale.rhs, scale.lhs)):
        if carried is factor or not _reads_through(generic, carried, output_map):
            continue
        found = _factor(generic, factor, output_map)
        if found is not None and set(ops) == {reduce, add, scale, *found[0]}:
            assert isinstance(carried, BlockArgument)
            return _Update(generic, reduce, carried, scale, found[1])
    return None


_ELEMENTWISE = (Form.IN_PLACE, Form.FPU_OR_SFPU_BINARY, Form.SFPU, Form.NEW_TILE)


def _factor(
    generic: GenericOp, value: SSAValue, output_map: AffineMapAttr
) -> tuple[list[Operation], list[BlockArgument]] | None:
    """The epilogue ops computing the factor `value` and the inputs they read (each read
    through the output map, once) that still need a column broadcast, when the factor
    is such an input, its `bcast<col>`, or elementwise ops of those; else None."""
    if _reads_through(generic, value, output_map):
        assert isinstance(value, BlockArgument)
        return [], [value]
    op = value.owner
    if not isinstance(op, Operation) or EPILOGUE_ATTR not in op.attributes or len(list(value.uses)) != 1:
        return None
    if isinstance(op, d2m.TileBcastOp):
        broadcast = op.kind.data == d2m.TileDim.COL and _reads_through(generic, op.input, output_map)
        return ([op], []) if broadcast else None
    if FORMS.get(type(op)) not in _ELEMENTWISE:
        return None
    ops, leaves = [op], []
    for operand in op.operands:
        found = _factor(generic, operand, output_map)
        if found is None:
            return None
        ops.extend(found[0])
        leaves.extend(found[1])
    return ops, leaves


class _Partials:
    """The carried values that become partials (the largest set meeting the module
    docstring's conditions) and the updates computing them."""

    def __init__(self, module: ModuleOp):
        self.updates: dict[SSAValue, _Update] = {}  # result -> its update
        self.loops: dict[SSAValue, tuple[scf.ForOp, int]] = {}  # iter arg or result -> (loop, i)
        values: dict[SSAValue, None] = {}  # ordered: the rewrite follows the IR
        for op in module.walk():
            if isinstance(op, GenericOp):
                update = _update(op)
                if update is not None:
                    self.updates[op.res[0]] = update
                    values[op.res[0]] = None
                elif op.res and _fill_value(op.res[0]) == 0.0:
                    values[op.res[0]] = None
            elif isinstance(op, scf.ForOp):
                for i, (arg, result) in enumerate(zip(op.body.block.args[1:], op.res)):
                    if isinstance(result.type, TensorType):
                        self.loops[arg] = self.loops[result] = (op, i)
                        values.update({arg: None, result: None})
        changed = True
        while changed:
            changed = False
            for value in list(values):
                if not (self._produced_ok(value, values) and self._uses_ok(value, values)):
                    del values[value]
                    changed = True
        self.values = values

    def _produced_ok(self, value: SSAValue, values: dict[SSAValue, None]) -> bool:
        if value in self.updates:
            return self.updates[value].carried_operand in values
        if value in self.loops:
            loop, i = self.loops[value]
            yielded = loop.body.block.last_op
            assert isinstance(yielded, scf.YieldOp)
            return loop.iter_args[i] in values and yielded.operands[i] in values
        return True  # a zero fill

    def chain_use(self, use: Use, values: dict[SSAValue, None]) -> bool | None:
        """Whether `use` of a partial keeps it one: the carried operand of an update of a
        partial, the init or yielded value of a partial loop value; None when it is
        none of these (a read of the sum)."""
        user = use.operation
        update = self.updates.get(user.results[0]) if user.results else None
        if update is not None and update.generic is user:
            return use.index == update.carried.index and user.results[0] in values
        if isinstance(user, scf.ForOp) and use.index >= 3:  # lb, ub, step, then the inits
            return user.body.block.args[use.index - 2] in values
        loop = user.parent_op()
        if isinstance(user, scf.YieldOp) and isinstance(loop, scf.ForOp):
            return loop.res[use.index] in values
        return None

    def _uses_ok(self, value: SSAValue, values: dict[SSAValue, None]) -> bool:
        for use in value.uses:
            kept = self.chain_use(use, values)
            if kept is False or (kept is None and not self._read_after_loop(value)):
                return False
        return True

    def _read_after_loop(self, value: SSAValue) -> bool:
        """Whether `value` is a loop's result whose row sum can be taken after the loop
        (a 1.0 block of one of its updates is defined there)."""
        if value not in self.loops or isinstance(value, BlockArgument):
            return False
        loop, _ = self.loops[value]
        update = self.an_update(value, set())
        return update is not None and defined_before(update.ones, loop)

    def an_update(self, value: SSAValue, seen: set[SSAValue]) -> _Update | None:
        """An update computing (part of) `value`."""
        if value in seen:
            return None
        seen.add(value)
        if value in self.updates:
            return self.updates[value]
        if value not in self.loops:
            return None
        loop, i = self.loops[value]
        yielded = loop.body.block.last_op
        assert isinstance(yielded, scf.YieldOp)
        return self.an_update(yielded.operands[i], seen) or self.an_update(loop.iter_args[i], seen)


def _defer(update: _Update) -> None:
    """The update's reduce -> `d2m.tile_accumulate`, its factor broadcast along rows."""
    generic, reduce = update.generic, update.reduce
    scaler = reduce.scaler
    Rewriter.replace_op(reduce, d2m.TileAccumulateOp(reduce.input, reduce.acc))
    for op in generic.body.block.ops:  # the carried value is tile-wide now, not a column
        op.attributes.pop(d2m.COLUMN_VECTORS_ATTR, None)
    for leaf in update.leaves:  # elementwise ops commute with the column broadcast
        (use,) = leaf.uses
        bcast = d2m.TileBcastOp(leaf, d2m.TileDim.COL)
        bcast.attributes[EPILOGUE_ATTR] = UnitAttr()
        Rewriter.insert_op(bcast, InsertPoint.before(use.operation))
        use.operation.operands[use.index] = bcast.result
    assert isinstance(scaler, BlockArgument)
    if scaler.uses:
        return
    keep = [i for i in range(len(generic.operands)) if i != scaler.index]
    generic.body.block.erase_arg(scaler)
    inputs = [v for i, v in enumerate(generic.inputs) if i in keep]
    maps = [m for i, m in enumerate(generic.indexing_maps.data) if i in keep]
    replacement = GenericOp(
        inputs, list(generic.outputs), generic.detach_region(generic.body), ArrayAttr(maps),
        generic.iterator_types, [r.type for r in generic.res],
    )  # fmt: skip
    replacement.attributes.update(generic.attributes)
    Rewriter.replace_op(generic, replacement)


def _row_sum_after(loop: scf.ForOp, result: SSAValue, update: _Update, readers: list[Use]) -> None:
    """`rowsum(result)` computed after `loop`, read by `readers` (uses of `result`)."""
    result_type = result.type
    assert isinstance(result_type, TensorType)
    tile = result_type.get_element_type()
    rank = len(result_type.get_shape())
    body = Block(arg_types=[tile, tile, tile])
    reduce = d2m.TileReduceSumOp(body.args[0], body.args[1], body.args[2], d2m.TileDim.ROW)
    body.add_ops([reduce, YieldOp(reduce.result)])
    maps = update.generic.indexing_maps.data
    empty = tensor.EmptyOp([], result_type)
    row_sum = GenericOp(
        [result, update.ones], [empty.tensor], Region(body),
        ArrayAttr([AffineMapAttr(AffineMap.identity(rank)), maps[update.reduce.scaler.index], maps[-1]]),  # type: ignore[attr-defined]
        update.generic.iterator_types, [result_type],
    )  # fmt: skip
    Rewriter.insert_op([empty, row_sum], InsertPoint.after(loop))
    for use in readers:
        use.operation.operands[use.index] = row_sum.res[0]
    if len(readers) == 1 and isinstance(reader := readers[0].operation, GenericOp):
        # the sum's one elementwise reader as its epilogue, as d2m-elementwise-fusion
        # (which ran before this generic existed) fuses one
        FuseEpilogue().match_and_rewrite(reader, PatternRewriter(reader))


@dataclass(frozen=True)
class D2MDeferredRowSum(ModulePass):
    """Loop-carried row sums kept as tile-wide partials, row-summed after the loop."""

    name = "d2m-deferred-row-sum"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        partials = _Partials(op)
        for value in partials.values:
            readers = [u for u in value.uses if partials.chain_use(u, partials.values) is None]
            if readers:  # a loop's result (_read_after_loop)
                loop, _ = partials.loops[value]
                update = partials.an_update(value, set())
                assert update is not None
                _row_sum_after(loop, value, update, readers)
        for result, update in partials.updates.items():
            if result in partials.values:
                _defer(update)
