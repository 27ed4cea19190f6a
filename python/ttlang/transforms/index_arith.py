"""Index arithmetic for passes that lower affine maps: an affine expression of index
values as `arith` ops."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from xdsl.dialects import arith
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineBinaryOpExpr, AffineBinaryOpKind, AffineConstantExpr, AffineDimExpr, AffineExpr


def affine_value(
    expr: AffineExpr,
    dims: Sequence[SSAValue] | Mapping[int, SSAValue],
    emit: Callable[[Operation], SSAValue],
    constant: Callable[[int], SSAValue],
) -> SSAValue:
    """`expr` of the index values `dims` (dim i is `dims[i]`), through `emit` (inserts an
    op, returns its result) and `constant` (an index constant); floordiv, ceildiv and
    mod signed, as Python's."""
    if isinstance(expr, AffineDimExpr):
        return dims[expr.position]
    if isinstance(expr, AffineConstantExpr):
        return constant(expr.value)
    assert isinstance(expr, AffineBinaryOpExpr), expr
    lhs, rhs = affine_value(expr.lhs, dims, emit, constant), affine_value(expr.rhs, dims, emit, constant)
    kind = expr.kind
    if kind == AffineBinaryOpKind.Add:
        return emit(arith.AddiOp(lhs, rhs))
    if kind == AffineBinaryOpKind.Mul:
        return emit(arith.MuliOp(lhs, rhs))
    if kind == AffineBinaryOpKind.Mod:
        return emit(arith.RemSIOp(lhs, rhs))
    if kind == AffineBinaryOpKind.CeilDiv:
        lhs = emit(arith.AddiOp(lhs, emit(arith.SubiOp(rhs, constant(1)))))
    return emit(arith.FloorDivSIOp(lhs, rhs))
