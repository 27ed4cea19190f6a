"""Block operators: each DSL operator on blocks becomes one `linalg.generic` over tensors
of tiles whose body is made of `d2m.tile_*` ops.

Shapes are logical (leading counts, then rows and columns in elements); NumPy
broadcasting applies, and a size-1 axis (the result of a reduction) stretches through
the operand's indexing map (a constant 0) plus a `d2m.tile_bcast` in the body:

    s - s.rowmax()       s: (64, 64), s.rowmax(): (64, 1)
    linalg.generic {indexing_maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, 0),
                                     (d0, d1) -> (d0, d1)],
                    iterator_types = ["parallel", "parallel"]}
        ins(%s, %m : tensor<2x2x!tile>, tensor<2x1x!tile>) outs(%empty : tensor<2x2x!tile>) {
    ^bb0(%a: !tile, %b: !tile, %out: !tile):
      %bb = d2m.tile_bcast col %b : !tile
      %r = d2m.tile_sub %a, %bb : !tile
      linalg.yield %r : !tile
    }

Accumulating generics (matmul, reductions) take `tensor.empty` as their init: the
accumulator starts at the reduction's identity (DST is zeroed when acquired).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects import tensor
from xdsl.dialects.linalg.attrs import IteratorType, IteratorTypeAttr
from xdsl.dialects.linalg.ops import GenericOp, YieldOp
from xdsl.dialects.builtin import AffineMapAttr, IntegerAttr, TensorType, UnitAttr
from xdsl.ir import Block as IRBlock
from xdsl.ir import Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from ttlang.dialects import d2m
from ttlang.dialects.ttcore import TileType
from ttlang.dsl.diagnostics import DSLError
from ttlang.dsl.values import TILE, Block, tile_shape

Emit = Callable[[Operation], Operation]
"""Inserts an op at the current insertion point and returns it."""

Scalar = float
Operand = Block | Scalar


def format_shape(shape: Sequence[int]) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ")"


# ------------------------------------------------------------------ operator tables


@dataclass(frozen=True)
class BinaryOperator:
    """An elementwise binary operator, with the tile ops for block∘scalar and
    scalar∘block when the hardware has one (else the scalar is filled into a tile)."""

    spelling: str
    tile_op: type[Operation]
    block_scalar_op: type[Operation] | None = None
    scalar_block_op: type[Operation] | None = None


BINARY_OPERATORS: dict[str, BinaryOperator] = {
    op.spelling: op
    for op in (
        BinaryOperator("+", d2m.TileAddOp, d2m.TileAddScalarOp, d2m.TileAddScalarOp),
        BinaryOperator("-", d2m.TileSubOp, d2m.TileSubScalarOp, d2m.TileRsubScalarOp),
        BinaryOperator("*", d2m.TileMulOp, d2m.TileMulScalarOp, d2m.TileMulScalarOp),
        BinaryOperator("/", d2m.TileDivOp, d2m.TileDivScalarOp),
        BinaryOperator("maximum", d2m.TileMaximumOp),
    )
}

UNARY_OPERATORS: dict[str, type[Operation]] = {
    "exp": d2m.TileExpOp,
    "sqrt": d2m.TileSqrtOp,
    "rsqrt": d2m.TileRsqrtOp,
    "recip": d2m.TileRecipOp,
    "neg": d2m.TileNegOp,
    "abs": d2m.TileAbsOp,
}

# method name -> (tile reduction op, tile axis it reduces)
REDUCTIONS: dict[str, tuple[type[Operation], d2m.TileDim]] = {
    "rowsum": (d2m.TileReduceSumOp, d2m.TileDim.ROW),
    "rowmax": (d2m.TileReduceMaxOp, d2m.TileDim.ROW),
    "colsum": (d2m.TileReduceSumOp, d2m.TileDim.COL),
    "colmax": (d2m.TileReduceMaxOp, d2m.TileDim.COL),
}


# ------------------------------------------------------------------- shape rules


def broadcast_shape(spelling: str, shapes: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    """NumPy broadcasting of logical shapes; a shape mismatch is a user error."""
    rank = max(len(s) for s in shapes)
    padded = [(1,) * (rank - len(s)) + s for s in shapes]
    result = []
    for extents in zip(*padded):
        sizes = {e for e in extents if e != 1}
        if len(sizes) > 1:
            raise DSLError(
                f"shape mismatch: {spelling} needs operands of the same shape, or shapes "
                f"that broadcast, but got {' and '.join(format_shape(s) for s in shapes)}",
                "shapes are (rows, cols) in elements; only an axis of size 1 (a row or "
                "column reduction result) stretches to match the other operand",
            )
        result.append(sizes.pop() if sizes else 1)
    return tuple(result)


def common_tile_type(spelling: str, blocks: Sequence[Block]) -> TileType:
    types = {b.tile_type for b in blocks}
    if len(types) > 1:
        raise DSLError(
            f"{spelling} mixes tile formats {', '.join(sorted(str(t) for t in types))}",
            "all operands of one operator must have the same data type",
        )
    return blocks[0].tile_type


def check_tile_aligned(what: str, shape: tuple[int, ...]) -> None:
    """Matmul operands and fills need whole-tile rows and columns."""
    if any(extent % TILE for extent in shape[-2:]):
        raise DSLError(
            f"{what} needs whole-tile blocks (rows and columns multiples of {TILE}), "
            f"but got {format_shape(shape)}",
            "a size-1 axis only comes from a row or column reduction; broadcast it "
            "against a full block first",
        )


def _bcast_kind(operand: tuple[int, ...], result: tuple[int, ...]) -> d2m.TileDim | None:
    """Which part of each tile to replicate when `operand` stretches to `result`."""
    stretch_rows = operand[-2] == 1 and result[-2] != 1
    stretch_cols = operand[-1] == 1 and result[-1] != 1
    if stretch_rows and stretch_cols:
        return d2m.TileDim.SCALAR
    if stretch_rows:
        return d2m.TileDim.ROW
    if stretch_cols:
        return d2m.TileDim.COL
    return None


def _broadcast_map(operand: tuple[int, ...], result: tuple[int, ...]) -> AffineMap:
    """Maps the iteration space of `result` to the tiles of `operand` (right-aligned);
    axes where `operand` has extent 1 and `result` does not read tile 0."""
    first = len(result) - len(operand)
    exprs = [
        AffineExpr.dimension(first + i)
        if extent == result[first + i]
        else AffineExpr.constant(0)
        for i, extent in enumerate(operand)
    ]
    return AffineMap(len(result), 0, tuple(exprs))


# ---------------------------------------------------------------- generic builder


BodyBuilder = Callable[[Emit, Sequence[SSAValue], SSAValue], SSAValue]
"""Builds a generic's body from the input tiles and the output (accumulator) tile;
returns the tile to yield."""


def build_generic(
    emit: Emit,
    inputs: Sequence[tuple[SSAValue, AffineMap]],
    result_shape: tuple[int, ...],
    result_map: AffineMap,
    iterator_types: Sequence[IteratorType],
    tile_type: TileType,
    body: BodyBuilder,
) -> Block:
    """Emits `tensor.empty` for the result and one `linalg.generic` computing it."""
    result_type = TensorType(tile_type, tile_shape(result_shape))
    init = emit(tensor.EmptyOp([], result_type))
    input_types = [value.type for value, _ in inputs]
    for value_type in input_types:
        assert isinstance(value_type, TensorType)
    body_block = IRBlock(
        arg_types=[value_type.get_element_type() for value_type in input_types] + [tile_type]
    )

    def emit_in_body(op: Operation) -> Operation:
        body_block.add_op(op)
        return op

    *input_tiles, output_tile = body_block.args
    body_block.add_op(YieldOp(body(emit_in_body, input_tiles, output_tile)))
    generic = emit(
        GenericOp(
            inputs=[value for value, _ in inputs],
            outputs=[init.results[0]],
            body=Region(body_block),
            indexing_maps=[AffineMapAttr(m) for _, m in inputs] + [AffineMapAttr(result_map)],
            iterator_types=[IteratorTypeAttr(kind) for kind in iterator_types],
            result_types=[result_type],
        )
    )
    return Block(generic.results[0], result_shape)


def _fill_tile(emit: Emit, value: Scalar, tile_type: TileType) -> SSAValue:
    return emit(d2m.TileFillOp(float(value), tile_type)).results[0]


def elementwise(
    emit: Emit,
    spelling: str,
    operands: Sequence[Operand],
    combine: Callable[[Emit, Sequence[SSAValue | Scalar]], SSAValue],
) -> Block:
    """One parallel generic over the broadcast shape of the block `operands`; numbers
    reach `combine` as Python floats, blocks as (broadcast) tiles."""
    blocks = [o for o in operands if isinstance(o, Block)]
    assert blocks, "the frontend folds operators on numbers alone"
    shape = broadcast_shape(spelling, [b.shape for b in blocks])
    tile_type = common_tile_type(spelling, blocks)
    identity = AffineMap.identity(len(shape))
    inputs = [(b.value, _broadcast_map(b.shape, shape)) for b in blocks]

    def body(emit_body: Emit, tiles: Sequence[SSAValue], _out: SSAValue) -> SSAValue:
        tile_iter = iter(zip(blocks, tiles))
        body_operands: list[SSAValue | Scalar] = []
        for operand in operands:
            if not isinstance(operand, Block):
                body_operands.append(float(operand))
                continue
            block, tile = next(tile_iter)
            kind = _bcast_kind(block.shape, shape)
            if kind is not None:
                tile = emit_body(d2m.TileBcastOp(tile, kind)).results[0]
            body_operands.append(tile)
        return combine(emit_body, body_operands)

    return build_generic(
        emit, inputs, shape, identity, [IteratorType.PARALLEL] * len(shape), tile_type, body
    )


# --------------------------------------------------------------------- operators


def binary(emit: Emit, spelling: str, lhs: Operand, rhs: Operand) -> Block:
    """`lhs <op> rhs` for + - * / and maximum; one side may be a number. An add, sub or
    mul of two column vectors ((..., R, 1) blocks) is marked `d2m.column_vectors`
    (d2m-dst-allocate may then read its rhs column-broadcast)."""
    operator = BINARY_OPERATORS[spelling]
    tile_type = next(o for o in (lhs, rhs) if isinstance(o, Block)).tile_type
    column_vectors = all(isinstance(o, Block) and o.shape[-1] == 1 for o in (lhs, rhs))

    def combine(emit_body: Emit, operands: Sequence[SSAValue | Scalar]) -> SSAValue:
        a, b = operands
        if isinstance(b, float) and operator.block_scalar_op is not None:
            return emit_body(operator.block_scalar_op(a, b)).results[0]
        if isinstance(a, float) and operator.scalar_block_op is not None:
            return emit_body(operator.scalar_block_op(b, a)).results[0]
        if isinstance(a, float):
            a = _fill_tile(emit_body, a, tile_type)
        if isinstance(b, float):
            b = _fill_tile(emit_body, b, tile_type)
        tile_op = emit_body(operator.tile_op(a, b))
        if column_vectors and isinstance(tile_op, d2m.FPU_BINARY_OPS):
            tile_op.attributes[d2m.COLUMN_VECTORS_ATTR] = UnitAttr()
        return tile_op.results[0]

    return elementwise(emit, spelling, (lhs, rhs), combine)


def unary(emit: Emit, name: str, block: Block) -> Block:
    """`block.<name>()` for the unary table (exp, sqrt, ...)."""
    tile_op = UNARY_OPERATORS[name]
    return elementwise(
        emit, name, (block,), lambda emit_body, tiles: emit_body(tile_op(tiles[0])).results[0]
    )


def where(emit: Emit, condition: Block, if_true: Operand, if_false: Operand) -> Block:
    """Elementwise select; numbers are filled into tiles."""
    tile_type = condition.tile_type

    def combine(emit_body: Emit, operands: Sequence[SSAValue | Scalar]) -> SSAValue:
        tiles = [
            _fill_tile(emit_body, o, tile_type) if isinstance(o, float) else o for o in operands
        ]
        return emit_body(d2m.TileWhereOp(*tiles)).results[0]

    return elementwise(emit, "where", (condition, if_true, if_false), combine)


def tril(emit: Emit, block: Block, diagonal: int, value: Scalar) -> Block:
    """torch.tril of `block` over its last two dims, `diagonal` in tiles: element (r, c)
    kept where c <= r + 32·diagonal, else `value`. The mask is a `d2m.tril_mask` band of
    R + C - 1 causal mask tiles (R x C the block's tiles): output tile (i, j) reads band
    tile j - i + R - 1, all 0 below the tile diagonal (`x` kept), the element triangle
    on it, all -inf above it; the body is `where(mask, fill(value), x)`, or for value
    -inf `x + mask` (an FPU add onto x where x is in DST, as a matmul's result is):

        %band = d2m.tril_mask {row = 32·(R - 1 + diagonal)} : tensor<1x(R+C-1)x!tile>
        linalg.generic {indexing_maps = [(.., d0, d1) -> (.., d0, d1),
                                         (.., d0, d1) -> (0, d1 - d0 + R - 1), ...]}
            ins(%x, %band) outs(%empty) {
        ^bb0(%a: !tile, %m: !tile, %o: !tile):
          %v = d2m.tile_fill value
          %r = d2m.tile_where %m, %v, %a {d2m.tril_diagonal = diagonal} ; linalg.yield %r }

    The mark says that below the diagonal the op leaves `x` as it is (the mask tile is
    all 0 there): d2m-lower-to-loops runs it on and above the diagonal only.
    """
    *_, rows, cols = tile_shape(block.shape)
    band_type = TensorType(block.tile_type, [1, rows + cols - 1])
    band = emit(d2m.TrilMaskOp(TILE * (rows - 1 + diagonal), band_type)).results[0]
    rank = len(block.shape)
    row, col = AffineExpr.dimension(rank - 2), AffineExpr.dimension(rank - 1)
    band_map = AffineMap(rank, 0, (AffineExpr.constant(0), col - row + (rows - 1)))
    identity = AffineMap.identity(rank)

    def body(emit_body: Emit, tiles: Sequence[SSAValue], _out: SSAValue) -> SSAValue:
        tile, mask = tiles
        if value == -math.inf:  # the mask itself: an FPU add onto x in DST
            masked = emit_body(d2m.TileAddOp(tile, mask))
        else:
            filled = _fill_tile(emit_body, value, block.tile_type)
            masked = emit_body(d2m.TileWhereOp(mask, filled, tile))
        masked.attributes[d2m.TRIL_DIAGONAL_ATTR] = IntegerAttr(diagonal, 64)
        return masked.results[0]

    return build_generic(
        emit,
        [(block.value, identity), (band, band_map)],
        block.shape,
        identity,
        [IteratorType.PARALLEL] * rank,
        block.tile_type,
        body,
    )


def transpose(emit: Emit, block: Block) -> Block:
    """Swaps the last two axes: tile (i, j) of the result is tile (j, i) transposed."""
    *batch, rows, cols = block.shape
    shape = (*batch, cols, rows)
    rank = len(shape)
    dims = [AffineExpr.dimension(i) for i in range(rank)]
    source_map = AffineMap(rank, 0, (*dims[:-2], dims[-1], dims[-2]))
    return build_generic(
        emit,
        [(block.value, source_map)],
        shape,
        AffineMap.identity(rank),
        [IteratorType.PARALLEL] * rank,
        block.tile_type,
        lambda emit_body, tiles, _out: emit_body(d2m.TileTransposeOp(tiles[0])).results[0],
    )


def matmul(emit: Emit, lhs: Block, rhs: Block) -> Block:
    """`lhs @ rhs`: maps (d0, d2), (d2, d1) -> (d0, d1) with d2 a reduction (leading
    batch dims broadcast and stay parallel); body tile_matmul(a, b, acc)."""
    check_tile_aligned("@ (matmul)", lhs.shape)
    check_tile_aligned("@ (matmul)", rhs.shape)
    if lhs.shape[-1] != rhs.shape[-2]:
        raise DSLError(
            f"shape mismatch: @ needs the columns of its left operand to equal the rows "
            f"of its right operand, but got {format_shape(lhs.shape)} @ {format_shape(rhs.shape)}",
            "for (M, K) @ (K, N) the K extents must agree; transpose an operand if needed",
        )
    tile_type = common_tile_type("@", [lhs, rhs])
    batch = broadcast_shape("@", [lhs.shape[:-2], rhs.shape[:-2]])
    shape = (*batch, lhs.shape[-2], rhs.shape[-1])
    rank = len(shape)
    parallel = [AffineExpr.dimension(i) for i in range(rank)]
    reduction = AffineExpr.dimension(rank)

    def operand_map(block: Block, rows: AffineExpr, cols: AffineExpr) -> AffineMap:
        lead = _broadcast_map(block.shape[:-2], batch).results
        return AffineMap(rank + 1, 0, (*lead, rows, cols))

    return build_generic(
        emit,
        [
            (lhs.value, operand_map(lhs, parallel[-2], reduction)),
            (rhs.value, operand_map(rhs, reduction, parallel[-1])),
        ],
        shape,
        AffineMap(rank + 1, 0, tuple(parallel)),
        [IteratorType.PARALLEL] * rank + [IteratorType.REDUCTION],
        tile_type,
        lambda emit_body, tiles, acc: emit_body(d2m.TileMatmulOp(tiles[0], tiles[1], acc)).results[0],
    )


def fill(emit: Emit, value: Scalar, shape: tuple[int, ...], tile_type: TileType) -> Block:
    """A block of `shape` with every element `value`: a generic with no inputs. A size-1
    row or column axis (a vector shaped like a reduction result) fills whole tiles."""
    if len(shape) < 2 or any(not isinstance(d, int) or d < 1 for d in shape):
        raise DSLError(
            f"a block shape is a tuple of positive ints (..., rows, cols), but got {shape!r}"
        )
    if any(extent % TILE and extent != 1 for extent in shape[-2:]):
        raise DSLError(
            f"fill needs rows and columns that are multiples of {TILE}, or 1 for a row or "
            f"column vector like a reduction result, but got {format_shape(shape)}",
            "(R, 1) is a column that broadcasts against (R, C) blocks, e.g. a running row max",
        )
    rank = len(shape)
    return build_generic(
        emit,
        [],
        shape,
        AffineMap.identity(rank),
        [IteratorType.PARALLEL] * rank,
        tile_type,
        lambda emit_body, _tiles, _out: _fill_tile(emit_body, value, tile_type),
    )


def reduce(emit: Emit, method: str, block: Block, scaler: Block, spelling: str | None = None) -> Block:
    """`block.rowsum()` etc.: (..., R, C) -> (..., R, 1) for row reductions,
    (..., 1, C) for column ones, of `block * scaler[0, 0]` (the element [0][0] of the
    scaler's first tile; the rowsum() method passes a tile of ones). Reducing a
    reduction's other axis gives a (1, 1) scalar. `spelling` names the call in errors
    (default `.rowsum()` etc.)."""
    tile_op, dim = REDUCTIONS[method]
    rank = len(block.shape)
    reduced_axis = rank - 1 if dim == d2m.TileDim.ROW else rank - 2
    if block.shape[reduced_axis] % TILE:
        raise DSLError(
            f"{spelling or f'.{method}()'} reduces an axis of {block.shape[reduced_axis]}, but needs whole tiles "
            f"(a multiple of {TILE}); the block is {format_shape(block.shape)}",
            "this axis was already reduced; reduce the other one, or broadcast first",
        )
    shape = tuple(1 if axis == reduced_axis else e for axis, e in enumerate(block.shape))
    dims = [AffineExpr.dimension(i) for i in range(rank)]
    result_exprs = tuple(
        AffineExpr.constant(0) if axis == reduced_axis else d for axis, d in enumerate(dims)
    )
    iterator_types = [
        IteratorType.REDUCTION if axis == reduced_axis else IteratorType.PARALLEL
        for axis in range(rank)
    ]
    return build_generic(
        emit,
        [
            (block.value, AffineMap.identity(rank)),
            (scaler.value, AffineMap(rank, 0, (AffineExpr.constant(0),) * len(scaler.shape))),
        ],
        shape,
        AffineMap(rank, 0, result_exprs),
        iterator_types,
        block.tile_type,
        lambda emit_body, tiles, acc: emit_body(tile_op(tiles[0], tiles[1], acc, dim)).results[0],
    )


def replicate_tiles(emit: Emit, reduced: Block, shape: tuple[int, ...]) -> Block:
    """A reduction result (a size-1 axis) copied tile for tile along that axis up to
    `shape`: tt-lang's reduce_sum/reduce_max keep the block's shape, each tile holding
    the reduction in its column 0 (row reductions) or row 0 (column reductions), as
    reduce_tile leaves it. No in-tile broadcast: `bcast` does that."""
    rank = len(shape)
    return build_generic(
        emit,
        [(reduced.value, _broadcast_map(reduced.shape, shape))],
        shape,
        AffineMap.identity(rank),
        [IteratorType.PARALLEL] * rank,
        reduced.tile_type,
        lambda _emit_body, tiles, _out: tiles[0],
    )


def bcast(emit: Emit, block: Block, dim: d2m.TileDim) -> Block:
    """tt-lang's in-tile broadcast: every tile's column 0 (`COL`) or row 0 (`ROW`)
    copied over the tile. A size-1 axis of the block (our reduction results) becomes
    one tile wide: (R, 1) -> (R, 32)."""
    axis = -1 if dim == d2m.TileDim.COL else -2
    shape = list(block.shape)
    if shape[axis] == 1:
        shape[axis] = TILE
    result = elementwise(
        emit,
        "bcast",
        (block,),
        lambda emit_body, tiles: emit_body(d2m.TileBcastOp(tiles[0], dim)).results[0],
    )
    return Block(result.value, tuple(shape))
