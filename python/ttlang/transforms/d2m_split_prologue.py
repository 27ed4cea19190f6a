"""d2m-split-prologue: a subblocked generic whose prologue and accumulating op are
different FPU configurations, so that every DST section initializes both (the
prologue's op, then the matmul), becomes two generics: the prologue's, packed into the
output block, then the accumulation, whose packs the packer adds onto it in L1
(tt-metal's `pack_reconfig_l1_acc`).

Input: bufferized generics after d2m-tile-subblock. d2m-accumulate-into-dst made
FlashAttention's `acc * alpha + p @ v` a matmul accumulating onto a prologue that
computes `acc * bcast(alpha)` in DST; at D = 128 its 4x4-tile output is two sections of
8 tiles, and each issues `bcast_init` (the rescale) and `matmul_init` (P·V): four init
sites a K step (~70 modeled cycles each, the device description's `init`), of which
ttkernel-place-inits can drop none (they alternate in the subblock loop).

Qualifies: a generic with `d2m.subblock` giving two or more sections; iterators
parallel, then the reduction dims last; one output, of bf16 or f32 tiles (the formats
the packer adds in L1, d2m-packer-l1-accumulate) and not read by the body; the body
prologue ops (`d2m.prologue`), then one `d2m.tile_matmul` accumulating onto the last
of them, yielded; the prologue reading only inputs whose maps use no reduction dim.
Not `d2m.l1_accumulate` already, no `d2m.summed_outputs`.

The rewrite: the prologue becomes an all-parallel generic over the parallel dims
(the same `d2m.subblock`) reading the inputs it read, writing the output block; the
matmul generic keeps the other inputs, accumulates onto its output tile (from DST's
zeros, as d2m-lower-to-loops starts a `d2m.l1_accumulate` generic) and sits between
`d2m.pack_l1_acc` on and off. Each generic is one init site (hoisted out of its
subblock loop by ttkernel-place-inits; the prologue's is dropped when the same
configuration is in force before it), at the price of one more pack per output tile.
Other generics are left alone. Fails (PassError) on generics still on tensors.

Before (FlashAttention's P·V at D = 128, 2x4-tile subblocks):

    linalg.generic {[par, par, red]} ins(%p, %v, %acc, %alpha) outs(%next)
        attrs = {d2m.subblock = array<i64: 2, 4>} {
      %b = d2m.tile_bcast <col> %at {d2m.prologue}
      %x = d2m.tile_mul %acct, %b {d2m.prologue}
      %m = d2m.tile_matmul %pt, %vt, %x
      linalg.yield %m }

After:

    linalg.generic {[par, par]} ins(%acc, %alpha) outs(%next)
        attrs = {d2m.subblock = array<i64: 2, 4>} {
      %b = d2m.tile_bcast <col> %at
      %x = d2m.tile_mul %acct, %b
      linalg.yield %x }
    d2m.pack_l1_acc %true
    linalg.generic {[par, par, red]} ins(%p, %v) outs(%next)
        attrs = {d2m.subblock = array<i64: 2, 4>, d2m.l1_accumulate} {
      %m = d2m.tile_matmul %pt, %vt, %o
      linalg.yield %m }
    d2m.pack_l1_acc %false
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from xdsl.context import Context
from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr, ModuleOp, UnitAttr
from xdsl.dialects.linalg.ops import GenericOp, YieldOp
from xdsl.ir import Block, BlockArgument, Operation, Region
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from ttlang.dialects import d2m
from ttlang.dialects.ttcore import TileType
from ttlang.transforms.analysis.dst_liveness import (
    L1_ACCUMULATE_ATTR,
    PROLOGUE_ATTR,
    SUBBLOCK_ATTR,
    SUMMED_OUTPUTS_ATTR,
    body_ops,
    loop_ranges,
    parallel_dims,
    subblock_tiles,
    yielded_value,
)
from ttlang.transforms.compute_region import bufferized_compute_generics, packing_onto_l1
from ttlang.transforms.d2m_packer_l1_accumulate import L1_ACCUMULATING_FORMATS


def _sections(generic: GenericOp) -> int:
    ranges = loop_ranges(generic)
    tiles = prod(ranges[d] for d in parallel_dims(generic))
    return tiles // subblock_tiles(generic)


def _prologue_inputs(generic: GenericOp) -> list[BlockArgument] | None:
    """The body arguments of the inputs `generic`'s prologue reads, when it qualifies
    (module docstring)."""
    marked = {L1_ACCUMULATE_ATTR, SUMMED_OUTPUTS_ATTR} & generic.attributes.keys()
    if len(generic.outputs) != 1 or marked or SUBBLOCK_ATTR not in generic.attributes:
        return None
    parallel = len(parallel_dims(generic))
    if parallel_dims(generic) != list(range(parallel)) or parallel == len(generic.iterator_types):
        return None
    tile = generic.outputs[0].type.get_element_type()  # type: ignore[attr-defined]
    if not isinstance(tile, TileType) or tile.element_format not in L1_ACCUMULATING_FORMATS:
        return None
    if _sections(generic) < 2 or generic.body.block.args[-1].uses:
        return None
    ops = body_ops(generic)
    matmul = ops[-1] if ops else None
    prologue = ops[:-1]
    if (
        not isinstance(matmul, d2m.TileMatmulOp)
        or yielded_value(generic) is not matmul.result
        or not prologue
        or not all(PROLOGUE_ATTR in op.attributes for op in prologue)
        or matmul.acc is not prologue[-1].results[0]
    ):
        return None
    reads = {v for op in prologue for v in op.operands if isinstance(v, BlockArgument)}
    maps = generic.indexing_maps.data
    for arg in reads:
        dims = [e.position for e in maps[arg.index].data.results if isinstance(e, AffineDimExpr)]
        if any(d >= parallel for d in dims):
            return None
    return sorted(reads, key=lambda arg: arg.index)


def _split(generic: GenericOp, reads: list[BlockArgument]) -> None:
    """Rewrites a qualifying generic (module docstring)."""
    body = generic.body.block
    prologue = body_ops(generic)[:-1]
    matmul = body_ops(generic)[-1]
    output_arg = body.args[-1]
    parallel = len(parallel_dims(generic))
    maps = generic.indexing_maps.data

    # the prologue's generic: its inputs, the output, over the parallel dims
    start_body = Block(arg_types=[*(arg.type for arg in reads), output_arg.type])
    mapping = dict(zip(reads, start_body.args))
    for op in prologue:
        clone = op.clone(value_mapper=mapping)
        clone.attributes.pop(PROLOGUE_ATTR)
        start_body.add_op(clone)
        mapping.update(zip(op.results, clone.results))
    start_body.add_op(YieldOp(mapping[prologue[-1].results[0]]))
    start_maps = [
        AffineMapAttr(AffineMap(parallel, 0, maps[i].data.results))
        for i in [*(arg.index for arg in reads), len(generic.inputs)]
    ]
    start = GenericOp(
        [generic.inputs[arg.index] for arg in reads], list(generic.outputs),
        Region(start_body), ArrayAttr(start_maps),
        ArrayAttr(generic.iterator_types.data[:parallel]), [],
    )  # fmt: skip
    start.attributes[SUBBLOCK_ATTR] = generic.attributes[SUBBLOCK_ATTR]
    start.location = generic.location

    # the matmul onto its output tile, added onto the block by the packer
    matmul.operands = [*matmul.operands[:2], output_arg]
    for op in reversed(prologue):
        Rewriter.erase_op(op)
    kept = [i for i in range(len(generic.inputs)) if i not in {arg.index for arg in reads}]
    for arg in reversed(reads):
        body.erase_arg(arg)
    accumulate = GenericOp(
        [generic.inputs[i] for i in kept], list(generic.outputs),
        generic.detach_region(generic.body), ArrayAttr([maps[i] for i in kept] + [maps[-1]]),
        generic.iterator_types, [],
    )  # fmt: skip
    accumulate.attributes.update(generic.attributes)
    accumulate.attributes[L1_ACCUMULATE_ATTR] = UnitAttr()
    accumulate.location = generic.location
    Rewriter.replace_op(generic, [start, *packing_onto_l1([accumulate])])


@dataclass(frozen=True)
class D2MSplitPrologue(ModulePass):
    """Subblocked prologue + matmul generics split: the prologue packed, the matmul
    added onto it in L1."""

    name = "d2m-split-prologue"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for generic in bufferized_compute_generics(op):
            reads = _prologue_inputs(generic)
            if reads is not None:
                _split(generic, reads)
