"""d2m-cb-start-as-add: a matmul whose accumulator starts from a CB tile copied into
DST adds that tile after the matmul instead, on the FPU with DST reuse.

d2m-accumulate-into-dst turns `x + a @ b` into a matmul accumulating onto `x`; an `x`
read from a CB is copied into DST first (a `d2m.tile_copy` prologue: copy_tile, 16
modeled cycles a tile), the form d2m-packer-l1-accumulate recognizes a K-streaming sum
by. Where that pass did not take it, the matmul is better started from DST's zeros
and `x` added from its CB onto the result (`binary_dest_reuse_tiles<ELWADD>`, an FPU
add with its DST operand reused: 8 modeled cycles a tile; docs/cost_model.md's
`copy_tile` and `eltwise_add_tile`). Both forms issue one init besides the matmul's.
Causal FlashAttention's diagonal step, whose scores get the mask block added (`s =
q @ k^T + mask`), copied 32 mask tiles into DST each time. The add keeps the copy's
`d2m.tril_diagonal` (d2m-accumulate-into-dst's, from the `tril()`): d2m-lower-to-loops
then adds only the tiles the diagonal crosses, not the all-0 mask tiles below it.

Qualifies (bufferized, after d2m-hand-off-on-pack): a generic whose output block was
just reserved (the matmul starts from zeros) and whose body is one `d2m.tile_copy`
(`d2m.prologue`) of an input tile, ops applied while unpacking the matmul's operands
(a transposed B), and a `d2m.tile_matmul` onto the copy, yielded; not
`d2m.l1_accumulate`. Others are left alone. Fails (PassError) on generics still on
tensors.

Before (the diagonal step's scores):

    ^bb0(%q: !tile, %k: !tile, %mask: !tile, %out: !tile):
      %kt = d2m.tile_transpose %k
      %c = d2m.tile_copy %mask {d2m.prologue}
      %s = d2m.tile_matmul %q, %kt, %c
      linalg.yield %s

After:

    ^bb0(%q: !tile, %k: !tile, %mask: !tile, %out: !tile):
      %kt = d2m.tile_transpose %k
      %m = d2m.tile_matmul %q, %kt, %out
      %s = d2m.tile_add %mask, %m {d2m.epilogue}
      linalg.yield %s
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnitAttr
from xdsl.dialects.linalg.ops import GenericOp, YieldOp
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from ttlang.dialects import d2m
from ttlang.transforms.analysis.dst_liveness import (
    EPILOGUE_ATTR,
    L1_ACCUMULATE_ATTR,
    PROLOGUE_ATTR,
    applied_while_unpacking,
    body_ops,
    is_cb_tile,
    output_is_undefined,
    yielded_value,
)
from ttlang.transforms.compute_region import bufferized_compute_generics


def _copied_start(generic: GenericOp) -> tuple[d2m.TileCopyOp, d2m.TileMatmulOp] | None:
    """The start's copy and the matmul of a qualifying generic (module docstring)."""
    if L1_ACCUMULATE_ATTR in generic.attributes or not output_is_undefined(generic):
        return None
    ops = body_ops(generic)
    copies = [op for op in ops if PROLOGUE_ATTR in op.attributes]
    matmul = ops[-1] if ops else None
    if (
        len(copies) != 1
        or not isinstance(copy := copies[0], d2m.TileCopyOp)
        or not is_cb_tile(copy.input)
        or not isinstance(matmul, d2m.TileMatmulOp)
        or matmul.acc is not copy.result
        or yielded_value(generic) is not matmul.result
        or not all(applied_while_unpacking(op) for op in ops if op not in (copy, matmul))
    ):
        return None
    return copy, matmul


@dataclass(frozen=True)
class D2MCBStartAsAdd(ModulePass):
    """Matmuls started from a copied CB tile add that tile after the matmul instead."""

    name = "d2m-cb-start-as-add"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for generic in bufferized_compute_generics(op):
            found = _copied_start(generic)
            if found is None:
                continue
            copy, matmul = found
            matmul.operands = [*matmul.operands[:2], generic.body.block.args[-1]]
            add = d2m.TileAddOp(copy.input, matmul.result)
            add.attributes[EPILOGUE_ATTR] = UnitAttr()
            if d2m.TRIL_DIAGONAL_ATTR in copy.attributes:
                add.attributes[d2m.TRIL_DIAGONAL_ATTR] = copy.attributes[d2m.TRIL_DIAGONAL_ATTR]
            Rewriter.insert_op(add, InsertPoint.after(matmul))
            yielded = generic.body.block.last_op
            assert isinstance(yielded, YieldOp)
            yielded.operands = [add.result if v is matmul.result else v for v in yielded.operands]
            Rewriter.erase_op(copy)
