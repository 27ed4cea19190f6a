"""d2m-tile-subblock: tiles a bufferized generic whose DST footprint exceeds DST capacity
into subblocks of output tiles that fit, one DST section each.

A DST section computes its output tiles one op at a time, so every value the body
keeps in DST is held for each tile of the section at once: the footprint of `n` tiles
is `n * F`, where `F` is the most DST slots the body needs at once for one tile (the
DST liveness analysis, `ttlang.transforms.analysis.dst_liveness`: every live value,
not just the output; the accumulator of a matmul or reduction included). Capacity
comes from the function's `ttcore.compute_config` (16/8 tiles for 16-bit DST with
full/half sync, 8/4 with fp32 accumulation).

When the whole output block fits (`tiles * F <= capacity`) the generic is left alone:
one section computes it. Otherwise the pass sets `d2m.subblock`, the output tiles per
section along each parallel dimension: the shape, with extents dividing the block's,
holding the most tiles within `capacity // F` (ties go to the shape that is widest in
the innermost dimensions, so a subblock covers whole rows first). Subblocks, and tiles
within one, are visited in row-major order (d2m-lower-to-loops). When one tile alone
exceeds capacity (`F > capacity`) the subblock is a single tile and d2m-dst-allocate
spills.

Before (bf16, half sync: 8 tiles; the body keeps 2 values per tile):

    linalg.generic {iterator_types = ["parallel", "parallel"], ...}
        ins(%a, %b : memref<4x4x!tile, #l1>, ...) outs(%o : memref<4x4x!tile, #l1>) {...}

After (4 tiles per section, a 1x4 row):

    linalg.generic {iterator_types = ["parallel", "parallel"], ...}
        ins(%a, %b : ...) outs(%o : ...) {...} {d2m.subblock = array<i64: 1, 4>}

Fails (PassError) on bodies the DST liveness analysis cannot place (an op needing from
a CB an operand computed in DST, an op with no engine placement).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from math import prod

from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, ModuleOp, i64
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from ttlang.dialects.ttcore import TileType
from ttlang.transforms.analysis.compute_config import dst_capacity_of
from ttlang.transforms.analysis.dst_liveness import (
    SUBBLOCK_ATTR,
    DstLivenessError,
    loop_ranges,
    parallel_dims,
    schedule_dst,
)
from ttlang.transforms.diagnostics import PassError


def _divisors(extent: int) -> list[int]:
    return [d for d in range(1, extent + 1) if extent % d == 0]


def choose_subblock(extents: list[int], max_tiles: int) -> list[int]:
    """The shape dividing `extents` with the most tiles, at most `max_tiles` (at least
    one tile); ties go to the widest innermost extents."""
    shapes = [s for s in product(*(_divisors(e) for e in extents)) if prod(s) <= max_tiles]
    if not shapes:
        return [1] * len(extents)
    return list(max(shapes, key=lambda s: (prod(s), tuple(reversed(s)))))


class SubblockGeneric(RewritePattern):
    """A generic whose block overflows DST -> `d2m.subblock` with the best fitting shape."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GenericOp, rewriter: PatternRewriter) -> None:
        if SUBBLOCK_ATTR in op.attributes or not op.body.block.args:
            return
        if not all(isinstance(arg.type, TileType) for arg in op.body.block.args):
            return
        if op.res:
            raise PassError(op, "still returns tensors; run d2m-bufferize first.")
        try:
            footprint = schedule_dst(op).peak
        except DstLivenessError as error:
            raise PassError(error.op, error.message) from None
        capacity = dst_capacity_of(op)
        ranges = loop_ranges(op)
        extents = [ranges[d] for d in parallel_dims(op)]
        if prod(extents) * footprint <= capacity:
            return
        shape = choose_subblock(extents, capacity // max(footprint, 1))
        op.attributes[SUBBLOCK_ATTR] = DenseArrayBase.from_list(i64, shape)
        rewriter.notify_op_modified(op)


@dataclass(frozen=True)
class D2MTileSubblock(ModulePass):
    """Splits generics whose DST footprint exceeds capacity into fitting subblocks."""

    name = "d2m-tile-subblock"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(SubblockGeneric(), apply_recursively=False).rewrite_module(op)
