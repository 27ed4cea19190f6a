"""d2m-skip-masked-tiles: the tiles of a value that hold a known constant above a tile
diagonal (what `tril(x, diagonal, value)` masks, and values computed from it tile for
tile) are not computed where every consumer knows them: iterations over them are
skipped, recorded as a `d2m.triangles` list of `#d2m.triangle<rows = r, cols = c,
diagonal = k>` on the generics (iterations with index[c] - index[r] > k skipped), which
d2m-lower-to-loops turns into guards around those tiles' DST work and packs.

FlexAttention's block masks are the analogy: causal attention's score tiles above the
diagonal are -inf, their softmax terms 0, so neither Q·Kᵀ, the row max and sum, nor
P·V needs them.

It runs on tensors, on the generics the frontend emitted (one per DSL operator),
before d2m-elementwise-fusion (which keeps the lists: a fused generic computes what
its consumer computed). Facts first, in program order: a value with tiles (.., r, c)
holding constant `v` where c - r > k (tile indices of its last two dims):

- a `tril` generic (its `d2m.tile_where %mask, %value, %x` or, for -inf, `d2m.tile_add
  %x, %mask`, marked `d2m.tril_diagonal = k`: the mask tile is all -inf above the
  diagonal): (k, value);
- an elementwise generic (all loops parallel, identity output map) reading such a
  value tile for tile: its body evaluated on those tiles with the constant, the other
  operands unknown but finite (`-inf - m = -inf`, `exp(-inf) = 0`, `0 * x = 0`):
  (k, the result) when it is a number.

Consumers that skip a value's constant tiles:

- a row reduction of it (loop dims (rows, cols) of its last two axes, cols a reduction,
  the input only reduced, scaled by a block filled with a positive number: `rowmax()`'s
  and `rowsum()`'s ones) whose identity is the constant: `rowmax` of -inf, `rowsum` of
  0; its reduction runs only over cols <= rows + k (a triangle on (rows, cols));
- a matmul reading it as A (the reduction dim its columns) when the constant is 0:
  the reduction over each row of A stops at its diagonal;
- an elementwise consumer reading it tile for tile that itself skips those tiles.

A generic whose result's tiles above diagonal k no use reads (every use one of the
above, k the largest any use reads) skips computing them: a triangle on the loop dims
of its output's last two axes (Q·Kᵀ: its only consumer, the tril, skips them). A value
stored, yielded, carried by a loop or read by anything else is computed whole.

Numerics: exact for the tiles kept; rows whose every element is masked (their max is
-inf) are not defined (`-inf - -inf` is NaN, assumed finite here).

Before (causal scores, a softmax and P·V; maps and types abridged):

    %s = linalg.generic ins(%q, %kt) { tile_matmul }                   // (d0, d1, d2)
    %t = linalg.generic ins(%s, %band) {
           %f = d2m.tile_fill -inf
           %w = d2m.tile_where %m, %f, %x {d2m.tril_diagonal = 1 : i64} }
    %mx = linalg.generic ins(%t, %ones) {iterator_types = [par, par, red]} { tile_reduce_max <row> }
    %p = linalg.generic ins(%t, %mx) { tile_bcast <col> ; tile_sub ; tile_exp }
    %o = linalg.generic ins(%p, %v) {iterator_types = [par, par, red]} { tile_matmul }
    d2m.store %out, %o

After (the same ops; the generics marked):

    %s = linalg.generic ... attrs = {d2m.triangles = [#d2m.triangle<rows = 0, cols = 1, diagonal = 1>]}
    %t = linalg.generic ... attrs = {d2m.triangles = [#d2m.triangle<rows = 0, cols = 1, diagonal = 1>]}
    %mx = linalg.generic ... attrs = {d2m.triangles = [#d2m.triangle<rows = 0, cols = 1, diagonal = 1>]}
    %p = linalg.generic ... attrs = {d2m.triangles = [#d2m.triangle<rows = 0, cols = 1, diagonal = 1>]}
    %o = linalg.generic ... attrs = {d2m.triangles = [#d2m.triangle<rows = 0, cols = 2, diagonal = 1>]}

Never fails: generics it cannot prove anything about are left as they are.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType
from xdsl.dialects.linalg.ops import GenericOp, YieldOp
from xdsl.ir import Operation, SSAValue, Use
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.passes import ModulePass

from ttlang.dialects import d2m
from ttlang.transforms.analysis.triangles import add_triangle

Fact = tuple[int, float]
"""(k, v): the value's tiles (.., r, c) with c - r > k hold `v` in every element."""

Number = float | None
"""A tile's value where a fact holds: every element the number, or None (unknown, finite)."""


def _is_tile_generic(op: Operation) -> bool:
    return isinstance(op, GenericOp) and len(op.res) == 1 and isinstance(op.res[0].type, TensorType)


def _maps(generic: GenericOp) -> list[AffineMap]:
    return [attr.data for attr in generic.indexing_maps]


def _all_parallel(generic: GenericOp) -> bool:
    return all(it.data.value == "parallel" for it in generic.iterator_types)


def _tile_for_tile(generic: GenericOp, index: int) -> bool:
    """Whether elementwise `generic` reads input `index` at the tile it writes."""
    maps = _maps(generic)
    identity = AffineMap.identity(maps[-1].num_dims)
    return (
        _all_parallel(generic)
        and maps[-1] == identity
        and maps[index] == identity
        and not generic.body.block.args[-1].uses
        and maps[-1].num_dims >= 2
    )


def _known(value: float) -> Number:
    return None if math.isnan(value) else value


def _add(a: Number, b: Number) -> Number:
    if a is not None and b is not None:
        return _known(a + b)
    known = a if a is not None else b
    return known if known is not None and math.isinf(known) else None


def _mul(a: Number, b: Number) -> Number:
    if a is not None and b is not None:
        return _known(a * b)
    return 0.0 if 0.0 in (a, b) else None


def _maximum(a: Number, b: Number) -> Number:
    if a is not None and b is not None:
        return max(a, b)
    return math.inf if math.inf in (a, b) else None


def _div(a: Number, b: Number) -> Number:
    if a is None or b is None:
        return None
    if b == 0.0:
        return None if a == 0.0 else math.copysign(math.inf, a) * math.copysign(1.0, b)
    return _known(a / b)


def _exp(a: float) -> float:
    return 0.0 if a == -math.inf else (math.inf if a > 709.0 else math.exp(a))


def _unary(function: Callable[[float], float]) -> Callable[[Number], Number]:
    def apply(a: Number) -> Number:
        if a is None:
            return None
        try:
            return _known(function(a))
        except (ValueError, ZeroDivisionError):
            return None

    return apply


_BINARY: dict[type[Operation], Callable[[Number, Number], Number]] = {
    d2m.TileAddOp: _add,
    d2m.TileSubOp: lambda a, b: _add(a, None if b is None else -b),
    d2m.TileMulOp: _mul,
    d2m.TileDivOp: _div,
    d2m.TileMaximumOp: _maximum,
}
_SCALAR: dict[type[Operation], Callable[[Number, float], Number]] = {
    d2m.TileAddScalarOp: _add,
    d2m.TileSubScalarOp: lambda a, s: _add(a, -s),
    d2m.TileRsubScalarOp: lambda a, s: _add(s, None if a is None else -a),
    d2m.TileMulScalarOp: _mul,
    d2m.TileDivScalarOp: _div,
}
_UNARY: dict[type[Operation], Callable[[Number], Number]] = {
    d2m.TileExpOp: _unary(_exp),
    d2m.TileNegOp: _unary(lambda a: -a),
    d2m.TileAbsOp: _unary(abs),
    d2m.TileSqrtOp: _unary(math.sqrt),
    d2m.TileRsqrtOp: _unary(lambda a: 1.0 / math.sqrt(a) if a != math.inf else 0.0),
    d2m.TileRecipOp: _unary(lambda a: 1.0 / a if a != 0.0 else math.copysign(math.inf, a)),
    d2m.TileBcastOp: lambda a: a,
}


def _tril_diagonal(op: Operation) -> int | None:
    attr = op.attributes.get(d2m.TRIL_DIAGONAL_ATTR)
    return attr.value.data if isinstance(attr, IntegerAttr) else None


def _evaluate(generic: GenericOp, facts: dict[SSAValue, Fact], k: int) -> Number:
    """What `generic` (elementwise) yields on its tiles above diagonal k."""
    block = generic.body.block
    env: dict[SSAValue, Number] = {}
    for index, arg in enumerate(block.args[: len(generic.inputs)]):
        fact = facts.get(generic.inputs[index])
        known = fact is not None and fact[0] == k and _tile_for_tile(generic, index)
        env[arg] = fact[1] if known else None
    for op in block.ops:
        if _tril_diagonal(op) == k:  # above the diagonal its mask tile is all -inf
            env[op.operands[0 if isinstance(op, d2m.TileWhereOp) else 1]] = -math.inf
    for op in block.ops:
        if isinstance(op, YieldOp):
            return env.get(op.operands[0])
        operands = [env.get(v) for v in op.operands]
        if isinstance(op, d2m.TileFillOp):
            result: Number = op.value.value.data
        elif isinstance(op, d2m.TileWhereOp) and operands[0] is not None:
            result = operands[1] if operands[0] != 0.0 else operands[2]
        elif isinstance(op, d2m.TileWhereOp):
            result = operands[1] if operands[1] == operands[2] else None
        elif type(op) in _BINARY:
            result = _BINARY[type(op)](*operands)
        elif type(op) in _SCALAR:
            result = _SCALAR[type(op)](operands[0], op.scalar.value.data)  # type: ignore[attr-defined]
        elif type(op) in _UNARY:
            result = _UNARY[type(op)](operands[0])
        else:
            result = None
        for value in op.results:
            env[value] = result
    return None


def _fact(generic: GenericOp, facts: dict[SSAValue, Fact]) -> Fact | None:
    """The fact of `generic`'s result, if it is elementwise and one holds."""
    if not _all_parallel(generic) or generic.body.block.args[-1].uses:
        return None
    maps = _maps(generic)
    if maps[-1] != AffineMap.identity(maps[-1].num_dims) or maps[-1].num_dims < 2:
        return None
    candidates = {_tril_diagonal(op) for op in generic.body.block.ops} - {None}
    for index, value in enumerate(generic.inputs):
        if value in facts and _tile_for_tile(generic, index):
            candidates.add(facts[value][0])
    for k in sorted(candidates):  # type: ignore[type-var]
        result = _evaluate(generic, facts, k)
        if result is not None:
            return (k, result)
    return None


_IDENTITIES: dict[type[Operation], float] = {
    d2m.TileReduceMaxOp: -math.inf,
    d2m.TileReduceSumOp: 0.0,
    d2m.TileMatmulOp: 0.0,
}


def _restriction(generic: GenericOp, index: int, fact: Fact | None) -> d2m.TriangleAttr | None:
    """The triangle restricting `generic`'s reduction over input `index`, when the
    input's constant tiles are the reduction's identity (module docstring)."""
    if fact is None:
        return None
    k, constant = fact
    dims = _row_col_dims(generic, index, "reduction")
    if dims is None:
        return None
    rows, cols = dims
    block = generic.body.block
    arg, output = block.args[index], block.args[-1]
    for use in arg.uses:
        user = use.operation
        if _IDENTITIES.get(type(user)) != constant or use.index != 0 or user.operands[-1] is not output:
            return None
        if isinstance(user, d2m.TileReduceMaxOp | d2m.TileReduceSumOp) and (
            user.dim.data != d2m.TileDim.ROW or not _scales_identity(generic, user.operands[1])
        ):
            return None
    return d2m.TriangleAttr(rows, cols, k) if arg.uses else None


def _scales_identity(generic: GenericOp, scaler: SSAValue) -> bool:
    """Whether a reduction's scaler (it reduces `x * scaler[0, 0]`) keeps the identity
    tiles identities: a block filled with a positive finite number (`rowmax()`'s and
    `rowsum()`'s ones; -inf times a negative scaler would be +inf)."""
    block = generic.body.block
    if scaler not in block.args or block.args.index(scaler) >= len(generic.inputs):
        return False
    fill = generic.inputs[block.args.index(scaler)].owner
    if not isinstance(fill, GenericOp) or fill.inputs:
        return False
    ops = list(fill.body.block.ops)
    if len(ops) != 2 or not isinstance(ops[0], d2m.TileFillOp) or ops[1].operands[0] is not ops[0].result:
        return False
    value = ops[0].value.value.data
    return 0.0 < value < math.inf


@dataclass
class _Analysis:
    facts: dict[SSAValue, Fact]
    skips: dict[SSAValue, int | None]

    def skip(self, value: SSAValue) -> int | None:
        """k such that no use reads `value`'s tiles above diagonal k (None: some use
        may read them)."""
        if value in self.skips:
            return self.skips[value]
        self.skips[value] = None  # a cycle reads them
        diagonals = [self.use_reads_up_to(use, value) for use in value.uses]
        skip = None if not diagonals or None in diagonals else max(diagonals)  # type: ignore[type-var]
        self.skips[value] = skip
        return skip

    def use_reads_up_to(self, use: Use, value: SSAValue) -> int | None:
        user = use.operation
        if not _is_tile_generic(user) or use.index >= len(user.inputs):  # type: ignore[attr-defined]
            return None
        assert isinstance(user, GenericOp)
        if _tile_for_tile(user, use.index):
            return self.skip(user.res[0])
        restriction = _restriction(user, use.index, self.facts.get(value))
        return restriction.diagonal.data if restriction is not None else None


def _output_triangle(generic: GenericOp, k: int) -> d2m.TriangleAttr | None:
    dims = _row_col_dims(generic, -1, "parallel")
    return d2m.TriangleAttr(*dims, k) if dims is not None else None


def _row_col_dims(generic: GenericOp, index: int, cols_iterator: str) -> tuple[int, int] | None:
    """The loop dims (rows, cols) of operand `index`'s last two axes, when both are plain
    dims, rows parallel and cols a `cols_iterator` dim."""
    results = _maps(generic)[index].results
    iterators = [it.data.value for it in generic.iterator_types]
    if len(results) < 2 or not all(isinstance(e, AffineDimExpr) for e in results[-2:]):
        return None
    rows, cols = (e.position for e in results[-2:])  # type: ignore[union-attr]
    if iterators[rows] != "parallel" or iterators[cols] != cols_iterator:
        return None
    return rows, cols


@dataclass(frozen=True)
class D2MSkipMaskedTiles(ModulePass):
    """Generics skip the tiles of masked values that every consumer skips."""

    name = "d2m-skip-masked-tiles"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        generics = [o for o in op.walk() if _is_tile_generic(o)]
        analysis = _Analysis({}, {})
        for generic in generics:
            fact = _fact(generic, analysis.facts)
            if fact is not None:
                analysis.facts[generic.res[0]] = fact
        for generic in generics:
            for index, value in enumerate(generic.inputs):
                restriction = _restriction(generic, index, analysis.facts.get(value))
                if restriction is not None:
                    add_triangle(generic, restriction)
            k = analysis.skip(generic.res[0])
            triangle = _output_triangle(generic, k) if k is not None else None
            if triangle is not None:
                add_triangle(generic, triangle)
