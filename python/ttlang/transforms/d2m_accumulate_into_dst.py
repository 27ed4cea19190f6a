"""d2m-accumulate-into-dst: a reduction whose result is only combined with a value the
reduction does not read (`x + a @ b`, `x + rowsum(y)`, `maximum(x, rowmax(y))`)
accumulates onto `x` in DST instead: `x` is computed first, into the accumulator's
slot, and the matmul or reduce adds (or takes the maximum) onto it. The separate
combining op (an SFPU add or maximum of two DST tiles, ~100 modeled cycles a tile) is
gone, and so is the -inf fill a max reduction starts from.

A bufferized reduction generic qualifies when:
- its accumulating op `r` (matmul, reduce_sum, reduce_max, accumulate) reads the body's output
  argument as its accumulator and nothing else reads that argument;
- the output block was just reserved (`output_is_undefined`), so the reduction starts
  from its identity (0 for sums, -inf for maxima) and `r` alone is `0 + a @ b`;
- `r`'s only use is `x + r` / `r + x` (matmul, reduce_sum, accumulate) or `maximum(x, r)` /
  `maximum(r, x)` (reduce_max), an epilogue op, with `x` of `r`'s tile type read from a
  CB or computed by epilogue ops from CB tiles (so `x` does not depend on the
  reduction) whose results nothing else reads (the accumulation overwrites `x`).

The ops computing `x` move before `r` and are marked `d2m.prologue` (run once, before
the reduction loop; d2m-lower-to-loops), an `x` read from a CB gets a prologue
`d2m.tile_copy` into DST, `r` accumulates onto `x`, and the combining op is erased.
A `tril()` mask add (`d2m.tril_diagonal`) leaves its diagonal on that copy, for
d2m-cb-start-as-add's add (only the diagonal's tiles need the mask).

Before (`acc * alpha + p @ v`):

    ^bb0(%p: !tile, %v: !tile, %acc: !tile, %alpha: !tile, %out: !tile):
      %m = d2m.tile_matmul %p, %v, %out : !tile, !tile
      %b = d2m.tile_bcast <col> %alpha {d2m.epilogue} : !tile
      %x = d2m.tile_mul %acc, %b {d2m.epilogue} : !tile
      %s = d2m.tile_add %x, %m {d2m.epilogue} : !tile
      linalg.yield %s : !tile

After:

    ^bb0(%p: !tile, %v: !tile, %acc: !tile, %alpha: !tile, %out: !tile):
      %b = d2m.tile_bcast <col> %alpha {d2m.prologue} : !tile
      %x = d2m.tile_mul %acc, %b {d2m.prologue} : !tile
      %m = d2m.tile_matmul %p, %v, %x : !tile, !tile
      linalg.yield %m : !tile

Generics that do not qualify are left alone. Fails (PassError) on generics still on
tensors (run d2m-bufferize first).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnitAttr
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from ttlang.dialects import d2m
from ttlang.dialects.ttcore import TileType
from ttlang.transforms.analysis.dst_liveness import (
    EPILOGUE_ATTR,
    PROLOGUE_ATTR,
    accumulator,
    is_cb_tile,
    is_epilogue,
    output_is_undefined,
    parallel_dims,
)
from ttlang.transforms.diagnostics import PassError

_COMBINES: dict[type[Operation], type[Operation]] = {
    d2m.TileMatmulOp: d2m.TileAddOp,
    d2m.TileReduceSumOp: d2m.TileAddOp,
    d2m.TileReduceMaxOp: d2m.TileMaximumOp,
    d2m.TileAccumulateOp: d2m.TileAddOp,
}
"""An accumulating op -> the op that combines its result with another value the way it
combines with its accumulator."""


def _computing_ops(value: SSAValue, combine: Operation) -> list[Operation] | None:
    """The body ops computing `value`, in body order, when all are epilogue ops reading
    only CB tiles and each other, and their results are used only by each other and
    `combine` (so nothing else sees `value` overwritten by the accumulation); None
    otherwise."""
    ops: dict[Operation, None] = {}

    def visit(v: SSAValue) -> bool:
        if isinstance(v, BlockArgument):
            return is_cb_tile(v)
        owner = v.owner
        assert isinstance(owner, Operation)
        if owner in ops:
            return True
        if not is_epilogue(owner) or not all(visit(operand) for operand in owner.operands):
            return False
        ops[owner] = None
        return True

    if not visit(value):
        return None
    users = {use.operation for op in ops for result in op.results for use in result.uses}
    if not users <= {*ops, combine}:
        return None
    block = combine.parent_block()
    assert block is not None
    order = {op: index for index, op in enumerate(block.ops)}
    return sorted(ops, key=order.__getitem__)


def _combined_value(reduction: Operation) -> tuple[Operation, SSAValue] | None:
    """The epilogue op combining `reduction`'s result with another value, and that
    value, when that op is the result's only use."""
    uses = list(reduction.results[0].uses)
    if len(uses) != 1:
        return None
    combine = uses[0].operation
    if not isinstance(combine, _COMBINES[type(reduction)]) or not is_epilogue(combine):
        return None
    lhs, rhs = combine.operands
    other = rhs if lhs is reduction.results[0] else lhs
    if other is reduction.results[0] or other.type != reduction.results[0].type:
        return None
    return combine, other


@dataclass
class AccumulateIntoDst(RewritePattern):
    """`x (+|max) reduce(...)` -> the reduction accumulating onto `x` in DST."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GenericOp, rewriter: PatternRewriter) -> None:
        if not op.body.block.args or not all(
            isinstance(arg.type, TileType) for arg in op.body.block.args
        ):
            return
        if op.res:
            raise PassError(op, "still returns tensors; run d2m-bufferize first.")
        if len(parallel_dims(op)) == len(op.iterator_types) or not output_is_undefined(op):
            return
        acc = accumulator(op)
        if acc is None or len(list(acc.uses)) != 1:
            return
        reduction = next(iter(acc.uses)).operation
        if type(reduction) not in _COMBINES or reduction.operands[-1] is not acc:
            return
        combined = _combined_value(reduction)
        if combined is None:
            return
        combine, start = combined
        prologue = [] if isinstance(start, BlockArgument) else _computing_ops(start, combine)
        if prologue is None:
            return
        block = op.body.block
        for prologue_op in prologue:
            prologue_op.detach()
            block.insert_op_before(prologue_op, reduction)
            prologue_op.attributes.pop(EPILOGUE_ATTR)
            prologue_op.attributes[PROLOGUE_ATTR] = UnitAttr()
        if isinstance(start, BlockArgument):  # a CB tile: copied into DST first
            copy = d2m.TileCopyOp(start)
            copy.attributes[PROLOGUE_ATTR] = UnitAttr()
            if d2m.TRIL_DIAGONAL_ATTR in combine.attributes:  # a tril() mask, for d2m-cb-start-as-add
                copy.attributes[d2m.TRIL_DIAGONAL_ATTR] = combine.attributes[d2m.TRIL_DIAGONAL_ATTR]
            block.insert_op_before(copy, reduction)
            start = copy.result
        reduction.operands = [*reduction.operands[:-1], start]
        combine.results[0].replace_all_uses_with(reduction.results[0])
        rewriter.erase(combine)
        rewriter.notify_op_modified(op)


@dataclass(frozen=True)
class D2MAccumulateIntoDst(ModulePass):
    """Reductions accumulate onto the value their result is added to (or maxed with)."""

    name = "d2m-accumulate-into-dst"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(AccumulateIntoDst(), apply_recursively=False).rewrite_module(op)
