"""d2m-reciprocal-divisor: a division by a broadcast block, `x / bcast(y)` where each
tile of `y` divides several output tiles, becomes a multiplication by the broadcast
reciprocal, `x * bcast(recip(y))`, with `recip(y)` computed by a generic of its own,
once per tile of `y`.

A tile division runs on the SFPU (`div_binary_tile`: both operands copied into DST,
~128 modeled cycles a tile, plus the copy and the broadcast of `y`'s tile); a
multiplication by a broadcast CB tile runs on the FPU, the unpacker broadcasting the
tile as it loads it (`mul_tiles_bcast`: 8 cycles per fidelity phase). The reciprocal
costs one SFPU op (~96 cycles) per tile of `y` instead of per output tile.
FlashAttention's final `acc / l` (l one tile per row of tiles of acc) is the case
tt-metal's SDPA writes by hand: `recip_tile` on l, then `mul_block_bcast_cols`.
Numerics: the reciprocal is rounded to `y`'s tile format before the multiply, one more
rounding than the SFPU division (a relative error of at most one unit in the last place
of that format per output).

A generic qualifies when it is on tensors, every loop is parallel (or the division is
an epilogue of a reduction or matmul, below), and its body has
`d = d2m.tile_div %x, %b` with `%b = d2m.tile_bcast %y` where `%y` is the block
argument of an input whose block has fewer tiles than the output (so each tile is
reused), and `%y` and `%b` have no other use. It runs after d2m-elementwise-fusion (the
division and its broadcast are then in the generic that consumes them, whatever
produced `x`) and before d2m-bufferize.

A division in an epilogue (`(a @ b) / bcast(y)`, fused onto the accumulator in DST)
divides a DST tile, which no unpacker broadcast can reach: the reciprocal's generic
takes `recip(bcast(y))`, full tiles holding each row's reciprocal in every column (the
unpacker broadcasts `y`'s tile into DST, `unary_bcast`, then `recip_tile`), and the
epilogue multiplies by that tile as it is read, without a broadcast: an FPU multiply
onto DST (`mul_reuse_dest_tiles`, 8 cycles per fidelity phase) instead of an SFPU
division of two DST tiles per output tile. A division inside a reduction's loop (not
an epilogue) is left alone.

Before (`acc / l`, acc 1x8x4 tiles, l 1x8x1):

    %o = linalg.generic {indexing_maps = [(d0, d1, d2) -> (d0, d1, d2),
                                          (d0, d1, d2) -> (d0, d1, 0), ...], ["parallel" x 3]}
        ins(%acc, %l : tensor<1x8x4x!tile>, tensor<1x8x1x!tile>) outs(%e : tensor<1x8x4x!tile>) {
      ^bb0(%a: !tile, %b: !tile, %out: !tile):
        %bb = d2m.tile_bcast <col> %b : !tile
        %d = d2m.tile_div %a, %bb : !tile
        linalg.yield %d : !tile }

After:

    %e2 = tensor.empty() : tensor<1x8x1x!tile>
    %r = linalg.generic {indexing_maps = [identity, identity], ["parallel" x 3]}
        ins(%l : tensor<1x8x1x!tile>) outs(%e2 : tensor<1x8x1x!tile>) {
      ^bb0(%b: !tile, %out: !tile):
        %q = d2m.tile_recip %b : !tile
        linalg.yield %q : !tile }
    %o = linalg.generic {... same maps ...} ins(%acc, %r : ...) outs(%e : ...) {
      ^bb0(%a: !tile, %b: !tile, %out: !tile):
        %bb = d2m.tile_bcast <col> %b : !tile
        %d = d2m.tile_mul %a, %bb : !tile
        linalg.yield %d : !tile }

Fails (PassError) on a qualifying division in a generic already bufferized (the pass
runs on tensors, before d2m-bufferize).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from xdsl.context import Context
from xdsl.dialects import tensor
from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr, MemRefType, ModuleOp, TensorType
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import GenericOp, YieldOp
from xdsl.ir import Block, BlockArgument, Region
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from ttlang.dialects import d2m
from ttlang.transforms.analysis.dst_liveness import EPILOGUE_ATTR
from ttlang.transforms.diagnostics import PassError


def _reused_divisor(generic: GenericOp, div: d2m.TileDivOp) -> BlockArgument | None:
    """The input block argument `div` divides by through a broadcast, when each of its
    tiles divides several output tiles and nothing else reads it; else None."""
    bcast = div.rhs.owner
    if not isinstance(bcast, d2m.TileBcastOp) or len(list(bcast.result.uses)) != 1:
        return None
    arg = bcast.input
    if not isinstance(arg, BlockArgument) or arg.owner is not generic.body.block:
        return None
    if arg.index >= len(generic.inputs) or len(list(arg.uses)) != 1:
        return None
    divisor_type, output_type = generic.inputs[arg.index].type, generic.outputs[0].type
    if not isinstance(divisor_type, TensorType | MemRefType):
        return None
    assert isinstance(output_type, TensorType | MemRefType)
    if prod(divisor_type.get_shape()) >= prod(output_type.get_shape()):
        return None
    return arg


class DivideByReciprocal(RewritePattern):
    """`x / bcast(y)` with y's tiles reused -> `x * bcast(recip(y))`, recip its own generic."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GenericOp, rewriter: PatternRewriter) -> None:
        all_parallel = all(it.data.value == "parallel" for it in op.iterator_types)
        for div in [o for o in op.body.block.ops if isinstance(o, d2m.TileDivOp)]:
            if not (all_parallel or EPILOGUE_ATTR in div.attributes):
                continue  # a division inside a reduction runs per reduced tile
            arg = _reused_divisor(op, div)
            if arg is None:
                continue
            if not op.res:
                raise PassError(
                    op,
                    "divides by a broadcast block but is bufferized; d2m-reciprocal-divisor "
                    "runs on tensors, before d2m-bufferize.",
                )
            divisor = op.inputs[arg.index]
            divisor_type = divisor.type
            assert isinstance(divisor_type, TensorType)
            rank = len(divisor_type.get_shape())
            empty = tensor.EmptyOp([], divisor_type)
            body = Block(arg_types=[arg.type, arg.type])
            bcast = div.rhs.owner
            assert isinstance(bcast, d2m.TileBcastOp)
            if all_parallel:
                recip = d2m.TileRecipOp(body.args[0])
                body.add_ops([recip, YieldOp(recip.result)])
            else:  # the reciprocal broadcast into full tiles: an FPU multiply onto DST
                full = d2m.TileBcastOp(body.args[0], bcast.kind.data)
                recip = d2m.TileRecipOp(full.result)
                body.add_ops([full, recip, YieldOp(recip.result)])
            identity = AffineMapAttr(AffineMap.identity(rank))
            reciprocal = GenericOp(
                [divisor],
                [empty.tensor],
                Region(body),
                ArrayAttr([identity, identity]),
                ArrayAttr([IteratorTypeAttr.parallel()] * rank),
                [divisor_type],
            )
            rewriter.insert([empty, reciprocal], InsertPoint.before(op))
            op.operands[arg.index] = reciprocal.res[0]
            mul = d2m.TileMulOp(div.lhs, div.rhs if all_parallel else arg)
            mul.attributes.update(div.attributes)
            rewriter.replace(div, mul)
            if not all_parallel:
                rewriter.erase(bcast)
            rewriter.notify_op_modified(op)
            return


@dataclass(frozen=True)
class D2MReciprocalDivisor(ModulePass):
    """Divisions by a reused broadcast block -> multiplications by its reciprocal."""

    name = "d2m-reciprocal-divisor"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(DivideByReciprocal(), apply_recursively=False).rewrite_module(op)
