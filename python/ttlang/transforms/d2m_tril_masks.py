"""d2m-tril-masks: the mask tiles a `tril` reads (`d2m.tril_mask`, a constant band of
causal mask tiles in the compute thread) come from a kernel-local CB that the first
data-movement thread fills once, at its start, with `d2m.fill_causal_mask`; the compute
thread waits for the block at its start and pops it at its end.

tt-metal has no compute call that writes a triangle into a tile; its SDPA reader
writes its mask tiles through L1 pointers in a data-movement kernel (generate_mask),
as `fill_causal_mask` does here. The band is filled once per kernel run: the mask of a
`tril` depends only on the block's shape and the diagonal, both compile-time.

Before (after d2m-hw-thread-selection: the threads are final):

    d2m.generic {...} ins(%x : ...) outs(%out : ...) {
    ^bb0(%x_cb: !cb, %out_cb: !cb):                                  // compute
      %band = d2m.tril_mask {row = 32 : i64} : tensor<1x3x!tile>
      ... linalg.generic ins(%s, %band ...) ...
    }, {
    ^bb0(%x_cb_1: !cb, %out_cb_1: !cb):                              // data movement
      ... the reader ...
    }

After (one kernel-local CB per distinct band, 1 block):

    d2m.generic {...} ins(%x : ...) outs(%out : ...) {
    ^bb0(%x_cb: !cb, %out_cb: !cb, %tril_mask_cb: !d2m.cb<memref<1x3x!tile, #l1>, 1>):
      %band = d2m.wait %tril_mask_cb : ... -> tensor<1x3x!tile>
      ... linalg.generic ins(%s, %band ...) ...
      d2m.pop %tril_mask_cb
    }, {
    ^bb0(%x_cb_1: !cb, %out_cb_1: !cb, %tril_mask_cb_1: !d2m.cb<...>):
      %blk = d2m.reserve %tril_mask_cb_1 : ... -> memref<1x3x!tile, #l1>
      d2m.fill_causal_mask %blk, %c32, %c0 : memref<1x3x!tile, #l1>
      d2m.push %tril_mask_cb_1
      ... the reader ...
    }

Bands of one row offset and tile type share a CB. Fails (PassError) on a
`d2m.tril_mask` outside a generic's compute thread, and on a generic with no
data-movement thread to fill it.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, ModuleOp, TensorType
from xdsl.ir import Block, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from ttlang.dialects import d2m
from ttlang.dialects.ttcore import MemorySpace, MemorySpaceAttr
from ttlang.transforms.diagnostics import PassError

CB_NAME = "tril_mask_cb"


def _index(value: int) -> arith.ConstantOp:
    return arith.ConstantOp(IntegerAttr(value, IndexType()))


def _add_local_cb(generic: d2m.GenericOp, cb_type: d2m.CBType) -> list[SSAValue]:
    """A new kernel-local CB argument in every region (after the others, before the
    semaphores); its argument per region, in region order."""
    args = []
    for region in generic.thread_regions:
        position = len(generic.operands) + len(generic.local_cb_types(region))
        arg = region.block.insert_arg(cb_type, position)
        arg.name_hint = CB_NAME
        args.append(arg)
    return args


def _fill_bands(generic: d2m.GenericOp) -> None:
    kinds = generic.thread_kinds
    compute = [r for r, k in zip(generic.thread_regions, kinds) if k == d2m.ThreadType.COMPUTE]
    masks = [op for op in generic.walk() if isinstance(op, d2m.TrilMaskOp)]
    if not masks:
        return
    outside = [op for op in masks if not compute or not compute[0].is_ancestor(op)]
    if outside:
        raise PassError(outside[0], "is outside the compute thread; tril() belongs in one.")
    if d2m.ThreadType.DATAMOVEMENT not in kinds:
        raise PassError(
            masks[0],
            "needs a data-movement thread to fill the mask tiles of tril() once, but the "
            "kernel has none; add a @datamovement() thread (its body may be `pass`).",
        )
    mover = generic.thread_regions[kinds.index(d2m.ThreadType.DATAMOVEMENT)].block
    thread = compute[0].block
    last_fill, last_wait = None, None
    bands: dict[tuple[int, TensorType], SSAValue] = {}
    for mask in masks:
        band_type = mask.result.type
        assert isinstance(band_type, TensorType)
        key = (mask.row.value.data, band_type)
        if key not in bands:
            block = MemRefType(
                band_type.get_element_type(),
                band_type.get_shape(),
                memory_space=MemorySpaceAttr(MemorySpace.L1),
            )
            cb_type = d2m.CBType(block, 1)
            args = _add_local_cb(generic, cb_type)
            mover_cb = args[generic.thread_regions.index(mover.parent_region())]
            compute_cb = args[generic.thread_regions.index(thread.parent_region())]
            reserve = d2m.ReserveOp(mover_cb, block)
            row, col = _index(key[0]), _index(0)
            fill = [reserve, row, col, d2m.FillCausalMaskOp(reserve.result, row.result, col.result)]
            fill.append(d2m.PushOp(mover_cb))
            _insert_at_start(mover, last_fill, fill)
            last_fill = fill[-1]
            wait = d2m.WaitOp(compute_cb, band_type)
            _insert_at_start(thread, last_wait, [wait])
            last_wait = wait
            Rewriter.insert_op(d2m.PopOp(compute_cb), InsertPoint.at_end(thread))
            bands[key] = wait.result
        mask.result.replace_all_uses_with(bands[key])
        Rewriter.erase_op(mask)


def _insert_at_start(block: Block, after, ops) -> None:
    where = InsertPoint.after(after) if after is not None else InsertPoint.at_start(block)
    Rewriter.insert_op(ops, where)


@dataclass(frozen=True)
class D2MTrilMasks(ModulePass):
    """`d2m.tril_mask` -> a kernel-local CB filled once by a data-movement thread."""

    name = "d2m-tril-masks"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for generic in [o for o in op.walk() if isinstance(o, d2m.GenericOp)]:
            _fill_bands(generic)
