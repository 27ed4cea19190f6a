"""d2m-scalar-tile-operand: `x * c`, `x + c` and `x - c` (c a compile-time scalar, x a
block read from a CB) become FPU operations with a constant tile: `x * bcast(C)` where C
is a one-tile block filled with c once, at the top of the thread (or function), outside
every loop.

A tile-and-scalar op runs on the SFPU (`mul_unary_tile` and kin: ~96 modeled cycles a
tile, after a `copy_tile` of x into DST, 16); an FPU binary op with a broadcast operand
reads x and the constant straight from their CBs (`mul_tiles_bcast<SCALAR>`: 8 cycles
per fidelity phase, `add/sub`: 8). The fill of C is paid once per thread. tt-metal's
SDPA keeps its softmax scale off the SFPU the same way (it folds the scale into the
FPU-fed `exp`); FlashAttention's `q * scale` is this case.
Numerics: c is rounded to x's tile format before the operation (the SFPU op keeps it
f32), one more rounding of the same size as the result's; a multiplication runs at the
kernel's math fidelity, as every FPU multiplication does.

A body op qualifies when its tile operand is the block argument of one of the generic's
inputs (so the unpacker can read it from its CB), the generic is on tensors, and it
pays: the generic is inside a loop or writes more than one tile (else the fill and pack
of C cost more than they save). `c - x` (tile_rsub_scalar) and `x / c` are left alone:
the FPU broadcasts its second operand only, and `x * (1/c)` is not `x / c`.

Before (in a loop, x a 1x2-tile block):

    %r = linalg.generic {indexing_maps = [#id, #id], ["parallel" x 2]}
        ins(%x : tensor<1x2x!tile>) outs(%e : tensor<1x2x!tile>) {
      ^bb0(%a: !tile, %o: !tile):
        %m = d2m.tile_mul_scalar %a, 0.125 : !tile
        linalg.yield %m : !tile }

After (C made once, at the start of the enclosing function or d2m.generic thread):

    %ce = tensor.empty() : tensor<1x1x!tile>
    %c = linalg.generic {indexing_maps = [#id], ["parallel" x 2]} outs(%ce : tensor<1x1x!tile>) {
      ^bb0(%o: !tile):
        %f = d2m.tile_fill 0.125 : !tile
        linalg.yield %f : !tile }
    ...
    %r = linalg.generic {indexing_maps = [#id, (d0, d1) -> (0, 0), #id], ["parallel" x 2]}
        ins(%x, %c : tensor<1x2x!tile>, tensor<1x1x!tile>) outs(%e : tensor<1x2x!tile>) {
      ^bb0(%a: !tile, %k: !tile, %o: !tile):
        %b = d2m.tile_bcast <scalar> %k : !tile
        %m = d2m.tile_mul %a, %b : !tile
        linalg.yield %m : !tile }

Constants of the same value and tile type in one thread share C. Fails (PassError) on a
qualifying op in a generic already bufferized (the pass runs on tensors, after
d2m-elementwise-fusion, so the op is in the generic that reads its block, and before
d2m-bufferize).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from xdsl.context import Context
from xdsl.dialects import func, scf, tensor
from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr, ModuleOp, TensorType
from xdsl.dialects.linalg.ops import GenericOp, IteratorTypeAttr, YieldOp
from xdsl.ir import Attribute, Block, Operation, Region
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from ttlang.dialects import d2m
from ttlang.transforms.analysis.dst_liveness import is_cb_tile
from ttlang.transforms.diagnostics import PassError

_ON_FPU: dict[type[Operation], type[Operation]] = {
    d2m.TileMulScalarOp: d2m.TileMulOp,
    d2m.TileAddScalarOp: d2m.TileAddOp,
    d2m.TileSubScalarOp: d2m.TileSubOp,
}


def _thread_block(op: Operation) -> Block:
    """Where `op`'s constants go: the start of its d2m.generic thread, else (a function
    on its own, as in lit tests) of its function."""
    found = d2m.thread_region(op)
    if found is not None:
        return found[1].block
    function = op.parent_op()
    while not isinstance(function, func.FuncOp):
        assert function is not None, "compiler bug: a linalg.generic outside any function"
        function = function.parent_op()
    return function.body.block


def _in_loop(op: Operation, thread: Block) -> bool:
    block = op.parent_block()
    while block is not None and block is not thread:
        owner = block.parent_op()
        if isinstance(owner, scf.ForOp | scf.WhileOp):
            return True
        block = owner.parent_block() if owner is not None else None
    return False


class _Constants:
    """One-tile constant blocks, one per thread, value and tile type."""

    def __init__(self) -> None:
        self._made: dict[tuple[int, float, Attribute], GenericOp] = {}
        self._last: dict[int, GenericOp] = {}  # per thread, so constants keep their order

    def get(self, thread: Block, value: float, tile: Attribute) -> GenericOp:
        key = (id(thread), value, tile)
        if key not in self._made:
            block_type = TensorType(tile, [1, 1])
            empty = tensor.EmptyOp([], block_type)
            body = Block(arg_types=[tile])
            fill = d2m.TileFillOp(value, tile)
            body.add_ops([fill, YieldOp(fill.result)])
            constant = GenericOp(
                [],
                [empty.tensor],
                Region(body),
                ArrayAttr([AffineMapAttr(AffineMap.identity(2))]),
                ArrayAttr([IteratorTypeAttr.parallel()] * 2),
                [block_type],
            )
            last = self._last.get(id(thread))
            where = InsertPoint.after(last) if last else InsertPoint.at_start(thread)
            Rewriter.insert_op([empty, constant], where)
            self._made[key] = self._last[id(thread)] = constant
        return self._made[key]


def _rewrite(generic: GenericOp, constants: _Constants) -> None:
    """Each qualifying scalar op of `generic` -> an FPU op on a new constant input."""
    scalar_ops = [o for o in generic.body.block.ops if type(o) in _ON_FPU and is_cb_tile(o.operands[0])]
    if not scalar_ops:
        return
    if not generic.res:
        raise PassError(
            generic,
            "applies a scalar to a block read from a CB but is bufferized; "
            "d2m-scalar-tile-operand runs on tensors, before d2m-bufferize.",
        )
    thread = _thread_block(generic)
    output = generic.res[0].type
    assert isinstance(output, TensorType)
    if prod(output.get_shape()) == 1 and not _in_loop(generic, thread):
        return
    rank = generic.indexing_maps.data[0].data.num_dims
    tile_zero = AffineMapAttr(AffineMap(rank, 0, (AffineExpr.constant(0), AffineExpr.constant(0))))
    inputs, maps = list(generic.inputs), list(generic.indexing_maps.data[: len(generic.inputs)])
    body = generic.body.block
    for op in scalar_ops:
        value = op.scalar.value.data  # type: ignore[attr-defined]
        constant = constants.get(thread, value, op.operands[0].type).res[0]
        if constant in inputs:
            tile = body.args[inputs.index(constant)]
        else:
            tile = body.insert_arg(op.operands[0].type, len(inputs))
            inputs.append(constant)
            maps.append(tile_zero)
        bcast = d2m.TileBcastOp(tile, d2m.TileDim.SCALAR)
        binary = _ON_FPU[type(op)](op.operands[0], bcast.result)
        for new_op in (bcast, binary):  # e.g. d2m.epilogue: where fusion placed the op
            new_op.attributes.update(op.attributes)
        Rewriter.insert_op([bcast, binary], InsertPoint.before(op))
        op.results[0].replace_all_uses_with(binary.results[0])
        Rewriter.erase_op(op)
    rewritten = GenericOp(
        inputs,
        list(generic.outputs),
        generic.detach_region(generic.body),
        ArrayAttr([*maps, *generic.indexing_maps.data[len(generic.inputs) :]]),
        generic.iterator_types,
        [r.type for r in generic.res],
    )
    rewritten.attributes.update(generic.attributes)
    Rewriter.replace_op(generic, rewritten)


@dataclass(frozen=True)
class D2MScalarTileOperand(ModulePass):
    """Tile-and-scalar ops on CB-read blocks -> FPU ops with a one-tile constant."""

    name = "d2m-scalar-tile-operand"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        constants = _Constants()
        for generic in [o for o in op.walk() if isinstance(o, GenericOp)]:
            _rewrite(generic, constants)
