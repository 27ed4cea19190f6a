"""d2m-row-sum-on-pack: a partial row sum (d2m-deferred-row-sum) whose tiles come from
a generic computing them in DST is summed by the packer: that generic packs each tile a
second time, onto the partial's block, with L1 accumulation on (tt-metal's
`pack_reconfig_l1_acc`), while it is still in DST. The FPU adds of
`d2m.tile_accumulate` (8 modeled cycles a tile) are gone; the packer runs beside the
math (a 2 KiB bf16 tile is 32 modeled packer cycles). tt-metal's SDPA sums its
softmax denominator this way (`sub_exp_block_bcast_cols_inplace` with `do_reduce`).

After d2m-accumulate-into-dst, the update `L' = L * bcast(a) + x's tiles` is a
reduction generic `G` whose body is the prologue computing the start (`L * bcast(a)`,
or a copy of `L`) from CB tiles, then `d2m.tile_accumulate %x, %start`, yielded. It
qualifies when:

- `%x` is read through the block `P` that a generic `Gp` earlier in the same block
  writes (reserve, `Gp`, push, then the wait `G` reads), with `Gp`'s loops all parallel
  and of `G`'s extents, and `G` reading `x` through `Gp`'s output map (tile for tile);
- `G`'s loops are parallel but for the last, a reduction, which the other inputs' and
  the output's maps do not index;
- `G`'s output block (a reserve) is taken before `Gp`, or can be: a reserve of a
  compute-local CB (`d2m.local_cb`: only this thread frees its pages) in `Gp`'s block,
  with nothing between `Gp` and it using that CB; it then moves up to just before `Gp`
  (blocking there if the CB is full is blocking where it was: nothing in between frees
  it). Causal FlashAttention's diagonal step reserves `l`'s block for the loop after it
  only after `exp(s - m)`;
- the output's tiles are bf16 or f32 (the packer accumulates in L1 only in formats it
  can add in place; d2m-packer-l1-accumulate).

The rewrite: `Gp` gets `G`'s output block as a second output, read through `G`'s output
map and listed in `d2m.summed_outputs`: d2m-lower-to-loops packs `Gp`'s result tiles onto
it too, the first tile of each output tile over (its map's dropped dims at 0), every
later one added (`d2m.pack_l1_acc` on; switched as tt-metal does, for a section's first
pack and on after it, when the section packs onto one tile of the sum). `G` becomes `Gr`, computing the start into the
same block, all-parallel over its tiles, where `G` was, with its packs added onto the
block (`d2m.l1_accumulate`, between `d2m.pack_l1_acc` on and off). The update stays: the
start may need values computed after `Gp` (FlashAttention's `alpha`). Numerics: the
tiles of `x` and the start are added by the packer in the block's format (before: in
DST, in DST's format).

Before (FlashAttention's K step, after d2m-accumulate-into-dst):

    %pb = d2m.reserve %p_cb ...
    linalg.generic {indexing_maps = [id, (d0, d1, d2) -> (d0, d1, 0), id], [par x 3]}
        ins(%s, %m_new) outs(%pb) { bcast <col>; tile_sub; %e = tile_exp; yield %e }
    d2m.push %p_cb
    ...
    %p = d2m.wait %p_cb ...
    %alpha = d2m.wait %alpha_cb ...
    linalg.generic {indexing_maps = [id, (d0, d1, d2) -> (d0, d1, 0) x 3], [par, par, red]}
        ins(%p, %l, %alpha) outs(%l_next) {
      %b = d2m.tile_bcast <col> %at {d2m.prologue}
      %m = d2m.tile_mul %lt, %b {d2m.prologue}
      %r = d2m.tile_accumulate %pt, %m
      linalg.yield %r }

After:

    %pb = d2m.reserve %p_cb ...
    linalg.generic {indexing_maps = [id, (d0, d1, d2) -> (d0, d1, 0), id, (d0, d1, d2) -> (d0, d1, 0)], [par x 3]}
        ins(%s, %m_new) outs(%pb, %l_next) attrs = {d2m.summed_outputs = array<i64: 1>} {
      bcast <col>; tile_sub; %e = tile_exp; yield %e, %e }
    d2m.push %p_cb
    ...
    %p = d2m.wait %p_cb ...
    %alpha = d2m.wait %alpha_cb ...
    d2m.pack_l1_acc %true
    linalg.generic {indexing_maps = [(d0, d1) -> (d0, d1, 0) x 3], [par, par]}
        ins(%l, %alpha) outs(%l_next) attrs = {d2m.l1_accumulate} {
      %b = d2m.tile_bcast <col> %at
      %m = d2m.tile_mul %lt, %b
      linalg.yield %m }
    d2m.pack_l1_acc %false

Generics that do not qualify are left alone (their `d2m.tile_accumulate` runs on the
FPU). Fails (PassError) on generics still on tensors (run d2m-bufferize first).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    DenseArrayBase,
    ModuleOp,
    UnitAttr,
    i64,
)
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.ir import BlockArgument, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from ttlang.dialects import d2m
from ttlang.dialects.ttcore import TileType
from ttlang.transforms.analysis.dst_liveness import (
    L1_ACCUMULATE_ATTR,
    PROLOGUE_ATTR,
    SUMMED_OUTPUTS_ATTR,
    body_ops,
    loop_ranges,
    yielded_value,
)
from ttlang.transforms.compute_region import (
    add_output,
    block_writer,
    bufferized_compute_generics,
    cb_ops_between,
    defined_before,
    packing_onto_l1,
)
from ttlang.transforms.d2m_packer_l1_accumulate import L1_ACCUMULATING_FORMATS


@dataclass(frozen=True)
class _OnPack:
    """An update `update` whose accumulated tiles `producer` computes."""

    update: GenericOp
    accumulate: d2m.TileAccumulateOp
    producer: GenericOp


def _producer(block_value: SSAValue, update: GenericOp) -> GenericOp | None:
    """The one-output generic writing the block `block_value` (a wait in `update`'s
    block) reads."""
    wait = block_value.owner
    if not isinstance(wait, d2m.WaitOp) or wait.parent_block() is not update.parent_block():
        return None
    producer = block_writer(wait)
    return producer if producer is not None and len(producer.outputs) == 1 else None


def _on_pack(update: GenericOp) -> _OnPack | None:
    """`update` as a qualifying update (module docstring)."""
    kinds = [it.data.value for it in update.iterator_types]
    rank = len(kinds)
    if rank < 2 or kinds != ["parallel"] * (rank - 1) + ["reduction"] or len(update.outputs) != 1:
        return None
    ops = body_ops(update)
    accumulate = ops[-1] if ops else None
    if not isinstance(accumulate, d2m.TileAccumulateOp) or yielded_value(update) is not accumulate.result:
        return None
    if not all(PROLOGUE_ATTR in op.attributes for op in ops[:-1]):
        return None
    x = accumulate.lhs
    if not isinstance(x, BlockArgument) or x.index >= len(update.inputs) or len(list(x.uses)) != 1:
        return None
    maps = [m.data for m in update.indexing_maps.data]
    reduced = AffineDimExpr(rank - 1)
    if any(reduced in m.results for i, m in enumerate(maps) if i != x.index):
        return None
    tile = update.outputs[0].type.get_element_type()  # type: ignore[attr-defined]
    if not isinstance(tile, TileType) or tile.element_format not in L1_ACCUMULATING_FORMATS:
        return None
    producer = _producer(update.inputs[x.index], update)
    if producer is None or producer.parent_block() is not update.parent_block():
        return None
    if [it.data.value for it in producer.iterator_types] != ["parallel"] * rank:
        return None
    if loop_ranges(producer) != loop_ranges(update) or producer.indexing_maps.data[-1].data != maps[x.index]:
        return None
    if not defined_before(update.outputs[0], producer) and not _reserve_movable(
        update.outputs[0], producer
    ):
        return None
    return _OnPack(update, accumulate, producer)


def _reserve_movable(block_value: SSAValue, producer: GenericOp) -> bool:
    """Whether `block_value` is a reserve of a compute-local CB after `producer` in its
    block that can move up to just before it (module docstring)."""
    reserve = block_value.owner
    if not isinstance(reserve, d2m.ReserveOp):
        return False
    if reserve.parent_block() is not producer.parent_block():
        return False
    local = isinstance(reserve.cb.owner, d2m.LocalCBOp)
    if not local or not defined_before(reserve.cb, producer):
        return False
    return producer.is_before_in_block(reserve) and not cb_ops_between(producer, reserve, reserve.cb)


def _sum_on_pack(found: _OnPack) -> None:
    """Rewrites a qualifying update (module docstring)."""
    update, accumulate, producer = found.update, found.accumulate, found.producer
    x = accumulate.lhs
    assert isinstance(x, BlockArgument)
    output, output_map = update.outputs[0], update.indexing_maps.data[-1]
    rank = len(update.iterator_types)

    # the producer packs its tiles onto the block, reserved before it
    if not defined_before(output, producer):
        reserve = output.owner
        assert isinstance(reserve, d2m.ReserveOp)
        reserve.detach()
        Rewriter.insert_op(reserve, InsertPoint.before(producer))
    summing = add_output(producer, output, output_map)
    summing.attributes[SUMMED_OUTPUTS_ATTR] = DenseArrayBase.from_list(i64, [len(summing.outputs) - 1])

    # the start, added onto the block by the packer where the update was
    accumulate.result.replace_all_uses_with(accumulate.rhs)
    Rewriter.erase_op(accumulate)
    for op in body_ops(update):
        op.attributes.pop(PROLOGUE_ATTR)
    update.body.block.erase_arg(x)
    inputs = [v for i, v in enumerate(update.inputs) if i != x.index]
    maps = [
        AffineMapAttr(AffineMap(rank - 1, 0, m.data.results))
        for i, m in enumerate(update.indexing_maps.data)
        if i != x.index
    ]
    start = GenericOp(
        inputs, [output], update.detach_region(update.body), ArrayAttr(maps),
        ArrayAttr(update.iterator_types.data[:-1]), [],
    )  # fmt: skip
    start.attributes[L1_ACCUMULATE_ATTR] = UnitAttr()
    Rewriter.replace_op(update, packing_onto_l1([start]))


@dataclass(frozen=True)
class D2MRowSumOnPack(ModulePass):
    """Partial row sums added up by the packer of the generic computing their tiles."""

    name = "d2m-row-sum-on-pack"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for generic in bufferized_compute_generics(op):
            if generic.parent is None:  # a producer replaced by its summing form
                continue
            found = _on_pack(generic)
            if found is not None:
                _sum_on_pack(found)
