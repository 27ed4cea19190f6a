"""d2m-tril-masks: the mask tiles `tril()`s read (`d2m.tril_mask` bands: rows of causal
mask tiles, in the compute thread) come from one band per tile type in a kernel-local
CB that a data-movement thread fills once, at its start, with `d2m.fill_causal_mask`;
the compute thread waits for the block at its start and pops it at its end.

tt-metal has no compute call that writes a triangle into a tile; its SDPA reader
writes its mask tiles through L1 pointers in a data-movement kernel (generate_mask),
as `fill_causal_mask` does here. A band's mask depends only on the block's shape and
the diagonal, both compile-time: it is filled once per kernel run. Tile t of a band
with row offset `row` has its first key 32·t - row columns right of its first query,
so the bands of one kernel are windows of one: the band of the largest row offset,
long enough for every band's last tile; each reader's map is shifted to its window
(FlashAttention's two diagonal steps, 4x4 and 4x8 tiles, share an 11-tile band). A
fill costs about one tile fill per distinct tile (docs/dsl.md, `fill_causal_mask`);
the thread filling it is the last data-movement thread that reads nothing (the
writer), so the fill overlaps the reader's first reads, else the first.

Before (after d2m-hw-thread-selection: the threads are final):

    d2m.generic {...} ins(%x : ...) outs(%out : ...) {
    ^bb0(%x_cb: !cb, %out_cb: !cb):                                  // compute
      %a = d2m.tril_mask {row = 32 : i64} : tensor<1x3x!tile>
      %b = d2m.tril_mask {row = 64 : i64} : tensor<1x3x!tile>
      ... linalg.generic {indexing_maps = [.., (d0, d1) -> (0, d1 - d0 + 1), ..]} ins(%s, %a ...) ...
      ... linalg.generic {indexing_maps = [.., (d0, d1) -> (0, d1 - d0 + 1), ..]} ins(%t, %b ...) ...
    }, {
    ^bb0(%x_cb_1: !cb, %out_cb_1: !cb):                              // the reader
      ...
    }, {
    ^bb0(%x_cb_2: !cb, %out_cb_2: !cb):                              // the writer
      ...
    }

After (one 1-block kernel-local CB; `%a` is tiles 1..3 of the band):

    d2m.generic {...} ins(%x : ...) outs(%out : ...) {
    ^bb0(%x_cb: !cb, %out_cb: !cb, %tril_mask_cb: !d2m.cb<memref<1x4x!tile, #l1>, 1>):
      %band = d2m.wait %tril_mask_cb : ... -> tensor<1x4x!tile>
      ... linalg.generic {indexing_maps = [.., (d0, d1) -> (0, d1 - d0 + 2), ..]} ins(%s, %band ...) ...
      ... linalg.generic {indexing_maps = [.., (d0, d1) -> (0, d1 - d0 + 1), ..]} ins(%t, %band ...) ...
      d2m.pop %tril_mask_cb
    }, {
    ^bb0(%x_cb_1: !cb, %out_cb_1: !cb, %tril_mask_cb_1: !d2m.cb<...>):
      ...
    }, {
    ^bb0(%x_cb_2: !cb, %out_cb_2: !cb, %tril_mask_cb_2: !d2m.cb<...>):
      %blk = d2m.reserve %tril_mask_cb_2 : ... -> memref<1x4x!tile, #l1>
      d2m.fill_causal_mask %blk, %c64, %c0 : memref<1x4x!tile, #l1>
      d2m.push %tril_mask_cb_2
      ...
    }

Fails (PassError) on a `d2m.tril_mask` outside a generic's compute thread, on a
generic with no data-movement thread to fill it, and (a compiler bug) on a band read
by anything but a `linalg.generic` input.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    TensorType,
)
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.ir.affine import AffineMap
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
    movers = [r for r, k in zip(generic.thread_regions, kinds) if k == d2m.ThreadType.DATAMOVEMENT]
    reading = [r for r in movers if any(isinstance(o, _READS) for o in r.walk())]
    mover = next((r for r in reversed(movers) if r not in reading), movers[0]).block
    thread = compute[0].block
    last_fill, last_wait = None, None
    by_tile: dict[Attribute, list[d2m.TrilMaskOp]] = {}
    for mask in masks:
        by_tile.setdefault(mask.result.type.get_element_type(), []).append(mask)  # type: ignore[attr-defined]
    for tile, group in by_tile.items():
        # tile t of a band has its first key 32·t - row columns right of its first query
        row = max(mask.row.value.data for mask in group)
        last_key = max(32 * (_tiles(mask) - 1) - mask.row.value.data for mask in group)
        band_type = TensorType(tile, [1, (last_key + row) // 32 + 1])
        block = MemRefType(tile, band_type.get_shape(), memory_space=MemorySpaceAttr(MemorySpace.L1))
        args = _add_local_cb(generic, d2m.CBType(block, 1))
        mover_cb = args[generic.thread_regions.index(mover.parent_region())]
        compute_cb = args[generic.thread_regions.index(thread.parent_region())]
        reserve = d2m.ReserveOp(mover_cb, block)
        first_row, col = _index(row), _index(0)
        fill = [reserve, first_row, col, d2m.FillCausalMaskOp(reserve.result, first_row.result, col.result)]
        fill.append(d2m.PushOp(mover_cb))
        _insert_at_start(mover, last_fill, fill)
        last_fill = fill[-1]
        wait = d2m.WaitOp(compute_cb, band_type)
        _insert_at_start(thread, last_wait, [wait])
        last_wait = wait
        Rewriter.insert_op(d2m.PopOp(compute_cb), InsertPoint.at_end(thread))
        for mask in group:  # its tile t is the band's tile t + shift
            shift = (row - mask.row.value.data) // 32
            for use in list(mask.result.uses):
                _shift_reads(use.operation, use.index, shift)
            mask.result.replace_all_uses_with(wait.result)
            Rewriter.erase_op(mask)


def _tiles(mask: d2m.TrilMaskOp) -> int:
    return mask.result.type.get_shape()[-1]  # type: ignore[attr-defined]


def _shift_reads(user: Operation, index: int, shift: int) -> None:
    """`user` (a linalg.generic) reads its input `index` `shift` tiles further along."""
    if not isinstance(user, GenericOp) or index >= len(user.inputs):
        raise PassError(user, "reads a tril() mask band but is no linalg.generic input; compiler bug.")
    maps = list(user.indexing_maps.data)
    old = maps[index].data
    maps[index] = AffineMapAttr(
        AffineMap(old.num_dims, old.num_symbols, (*old.results[:-1], old.results[-1] + shift))
    )
    user.indexing_maps = ArrayAttr(maps)


_READS = (d2m.DMAReadOp, d2m.DMAMulticastOp)


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
