"""d2m-elementwise-fusion: merges producer -> consumer `linalg.generic`s of a compute
region (on tensors, before bufferization) so that intermediates stay in DST instead of
being packed to a CB and unpacked again.

What fuses, and why (the engines decide; `ttlang.transforms.analysis.dst_liveness`):

- An elementwise producer (all loops parallel, one result used by one op only, body
  not reading its output) into its consumer, when the consumer reads the producer's
  tile once per output tile (its indexing map for the operand is its output map) and
  every op of the consumer using that operand takes it from DST: add/sub/mul (SFPU, or
  FPU with dest reuse), div/maximum/where, unary and scalar ops. The producer's body
  is inlined before its first user; its inputs become the consumer's, with their
  indexing maps composed. Chains fuse step by step into one generic.
- An elementwise consumer into a reduction or matmul as its epilogue: the reduction's
  result (its only use) is still in DST after the reduction loop, so ops on it run
  there before the pack. The consumer's ops join the reduction's body marked
  `d2m.epilogue` (run once, after the reduction, on the final accumulator); its other
  inputs join with their maps composed with the reduction's output map. An elementwise
  producer of an epilogue input then fuses into the epilogue as above.
- A transpose generic into the matmul reading it as B: the unpacker transposes each B
  tile as it loads it (`mm_init`/`matmul_tiles` with `transpose`), so `q @ k.T` reads
  `k` straight from its CB.
- Not fused: any other producer of a matmul's A/B, a reduction's input or scaler, a
  transpose or a broadcast. Those engines unpack their operands from a CB (srcA/srcB),
  so the producer's result has to be packed to L1 first. A producer with several uses
  is not fused either (it would be recomputed, or packed anyway), nor is a consumer
  that broadcasts the producer's tile across several output tiles, nor a producer
  reading a CB block that is popped before the consumer (the fused generic reads the
  producer's inputs where the consumer is).

Before:

    %e = linalg.generic {iterator_types = ["parallel", "parallel"]} ins(%x) outs(%t0) {
      ^bb0(%a: !tile, %o: !tile):  %r = d2m.tile_exp %a ; linalg.yield %r }
    %s = linalg.generic {iterator_types = ["parallel", "parallel"]} ins(%e, %y) outs(%t1) {
      ^bb0(%a: !tile, %b: !tile, %o: !tile):  %r = d2m.tile_add %a, %b ; linalg.yield %r }

After:

    %s = linalg.generic {iterator_types = ["parallel", "parallel"]} ins(%y, %x) outs(%t1) {
      ^bb0(%b: !tile, %a: !tile, %o: !tile):
        %e = d2m.tile_exp %a
        %r = d2m.tile_add %e, %b
        linalg.yield %r }

Skipped iterations (`d2m.triangles`, d2m-skip-masked-tiles) stay: a fused generic
skips what its consumer skipped (a producer skips at least that much: its only
consumer reads no more), an epilogue's triangles renumbered through the reduction's
output map beside the reduction's own.

A generic that reads one tensor twice through the same map (`s - s`, or after fusing
two producers of the same input) reads it once, so the tile is unpacked, or copied
into DST, once.

Never fails: generics it cannot fuse are left as they are.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import tensor
from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr, ModuleOp, TensorType, UnitAttr
from xdsl.dialects.linalg.ops import GenericOp, YieldOp
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue, Use
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from ttlang.dialects import d2m
from ttlang.dialects.ttcore import TileType
from ttlang.transforms.analysis.dst_liveness import EPILOGUE_ATTR, FORMS, Form
from ttlang.transforms.analysis.triangles import renumbered, set_triangles, triangles


def _is_tile_generic(op: Operation | None) -> bool:
    return (
        isinstance(op, GenericOp)
        and len(op.res) == 1
        and len(op.outputs) == 1
        and isinstance(op.res[0].type, TensorType)
        and all(isinstance(arg.type, TileType) for arg in op.body.block.args)
    )


def _all_parallel(op: GenericOp) -> bool:
    return all(it.data.value == "parallel" for it in op.iterator_types)


def _maps(op: GenericOp) -> list[AffineMap]:
    return [attr.data for attr in op.indexing_maps]


def _reads_from_dst(arg: BlockArgument) -> bool:
    """Whether every op using the body argument `arg` can take it from DST."""
    for use in arg.uses:
        user = use.operation
        if isinstance(user, YieldOp):
            continue
        form = FORMS.get(type(user))
        if form is None or form is Form.FROM_CB:
            return False
        if form is Form.ACCUMULATE_FROM_CBS and use.index < len(user.operands) - 1:
            return False
    return True


def _inputs_stay_readable(producer: GenericOp, consumer: GenericOp) -> bool:
    """Whether no CB block `producer` reads is popped before `consumer`, which will read
    it in the producer's stead."""
    blocks = [d2m.viewed_block(v).owner for v in producer.inputs]
    cbs = {block.cb for block in blocks if isinstance(block, d2m.WaitOp)}
    between = producer.next_op
    while between is not None and between is not consumer:
        if any(isinstance(op, d2m.PopOp) and op.cb in cbs for op in between.walk()):
            return False
        between = between.next_op
    return True


def _has_reduction(op: GenericOp) -> bool:
    return not _all_parallel(op)


def _is_transpose(op: GenericOp) -> bool:
    """Whether `op`'s body only transposes its one input's tiles."""
    ops = list(op.body.block.ops)
    return (
        len(ops) == 2
        and isinstance(ops[0], d2m.TileTransposeOp)
        and ops[0].input is op.body.block.args[0]
        and ops[1].operands[0] is ops[0].result
    )


def _is_matmul_b(use: Use) -> bool:
    return isinstance(use.operation, d2m.TileMatmulOp) and use.index == 1


def _fusible_producer(consumer: GenericOp, index: int) -> GenericOp | None:
    """The elementwise generic producing input `index` of `consumer`, if it may be
    inlined there (see the module docstring)."""
    producer = consumer.inputs[index].owner
    if not _is_tile_generic(producer) or producer.parent_block() is not consumer.parent_block():
        return None
    assert isinstance(producer, GenericOp)
    if not _all_parallel(producer) or producer.res[0].uses.get_length() != 1:
        return None
    if not _inputs_stay_readable(producer, consumer):
        return None
    if producer.body.block.args[-1].uses:
        return None
    producer_maps = _maps(producer)
    if producer_maps[-1] != AffineMap.identity(producer_maps[-1].num_dims):
        return None
    arg = consumer.body.block.args[index]
    if _is_transpose(producer) and all(_is_matmul_b(use) for use in arg.uses):
        return producer  # the unpacker transposes B tiles as the matmul reads them
    consumer_maps = _maps(consumer)
    if consumer_maps[index] != consumer_maps[-1]:
        return None
    if not _reads_from_dst(arg):
        return None
    if _has_reduction(consumer) and not all(
        isinstance(use.operation, YieldOp) or EPILOGUE_ATTR in use.operation.attributes
        for use in arg.uses
    ):
        return None
    return producer


def _inline_body(
    source: GenericOp,
    target: Block,
    args: dict[SSAValue, SSAValue],
    before: Operation | None,
    epilogue: bool,
) -> SSAValue:
    """Clones `source`'s body ops into `target` (before `before`, else at the end) with
    its arguments mapped by `args`; returns the value it yields."""
    mapping = dict(args)
    for op in source.body.block.ops:
        if isinstance(op, YieldOp):
            return mapping.get(op.operands[0], op.operands[0])
        clone = op.clone(value_mapper=mapping)
        if epilogue:
            clone.attributes[EPILOGUE_ATTR] = UnitAttr()
        if before is None:
            target.add_op(clone)
        else:
            target.insert_op_before(clone, before)
        for old, new in zip(op.results, clone.results):
            mapping[old] = new
    raise AssertionError("a linalg.generic body ends with linalg.yield")


def _new_generic(
    template: GenericOp,
    inputs: list[SSAValue],
    maps: list[AffineMap],
    output: SSAValue,
    iterator_types: ArrayAttr,
    body: Block,
    skipped: list[d2m.TriangleAttr] | None = None,
) -> GenericOp:
    """The fused generic; it skips the iterations `skipped` says (default: those
    `template` skipped, over the same loop dims)."""
    generic = GenericOp(
        inputs,
        [output],
        Region(body),
        ArrayAttr([AffineMapAttr(m) for m in maps]),
        iterator_types,
        [template.res[0].type],
    )
    set_triangles(generic, triangles(template) if skipped is None else skipped)
    return generic


class FuseElementwiseProducer(RewritePattern):
    """An elementwise generic whose only use is a DST operand of a generic -> inlined."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, consumer: GenericOp, rewriter: PatternRewriter) -> None:
        if not _is_tile_generic(consumer):
            return
        for index in range(len(consumer.inputs)):
            producer = _fusible_producer(consumer, index)
            if producer is not None:
                rewriter.replace(consumer, _fuse_producer(producer, consumer, index))
                rewriter.erase(producer)
                return


def _fuse_producer(producer: GenericOp, consumer: GenericOp, index: int) -> GenericOp:
    consumer_maps, producer_maps = _maps(consumer), _maps(producer)
    kept = [i for i in range(len(consumer.inputs)) if i != index]
    producer_inputs = list(producer.inputs)
    consumer_args = consumer.body.block.args
    producer_args = producer.body.block.args
    body = Block(
        arg_types=[
            *(consumer_args[i].type for i in kept),
            *(arg.type for arg in producer_args[: len(producer_inputs)]),
            consumer_args[-1].type,
        ]
    )
    new_args = list(body.args)
    mapping: dict[SSAValue, SSAValue] = {consumer_args[i]: new_args[n] for n, i in enumerate(kept)}
    mapping[consumer_args[-1]] = new_args[-1]
    first_user_index = min(
        list(consumer.body.block.ops).index(use.operation) for use in consumer_args[index].uses
    )
    consumer_ops = list(consumer.body.block.ops)
    for position, op in enumerate(consumer_ops):
        if position == first_user_index:
            producer_mapping = {
                arg: new_args[len(kept) + n]
                for n, arg in enumerate(producer_args[: len(producer_inputs)])
            }
            mapping[consumer_args[index]] = _inline_body(
                producer, body, producer_mapping, None, epilogue=EPILOGUE_ATTR in op.attributes
            )
        clone = op.clone(value_mapper=mapping)
        body.add_op(clone)
        for old, new in zip(op.results, clone.results):
            mapping[old] = new
    maps = [
        *(consumer_maps[i] for i in kept),
        *(m.compose(consumer_maps[index]) for m in producer_maps[: len(producer_inputs)]),
        consumer_maps[-1],
    ]
    inputs = [*(consumer.inputs[i] for i in kept), *producer_inputs]
    return _new_generic(consumer, inputs, maps, consumer.outputs[0], consumer.iterator_types, body)


class FuseEpilogue(RewritePattern):
    """An elementwise generic on a reduction's only result, read from DST -> the
    reduction's epilogue."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, consumer: GenericOp, rewriter: PatternRewriter) -> None:
        if not _is_tile_generic(consumer) or not _all_parallel(consumer):
            return
        if consumer.body.block.args[-1].uses:
            return
        consumer_maps = _maps(consumer)
        for index, operand in enumerate(consumer.inputs):
            reduction = operand.owner
            if not isinstance(reduction, GenericOp) or not _is_tile_generic(reduction):
                continue
            if not _has_reduction(reduction):
                continue
            if reduction.parent_block() is not consumer.parent_block():
                continue
            if reduction.res[0].uses.get_length() != 1 or not isinstance(
                reduction.outputs[0].owner, tensor.EmptyOp
            ):
                continue
            if not _inputs_stay_readable(reduction, consumer):
                continue
            if consumer_maps[index] != consumer_maps[-1] or consumer_maps[-1] != AffineMap.identity(
                consumer_maps[-1].num_dims
            ):
                continue
            if not _reads_from_dst(consumer.body.block.args[index]):
                continue
            rewriter.replace(consumer, _fuse_epilogue(reduction, consumer, index))
            rewriter.erase(reduction)
            return


def _fuse_epilogue(reduction: GenericOp, consumer: GenericOp, index: int) -> GenericOp:
    reduction_maps, consumer_maps = _maps(reduction), _maps(consumer)
    output_map = reduction_maps[-1]
    kept = [i for i in range(len(consumer.inputs)) if i != index]
    reduction_args = reduction.body.block.args
    consumer_args = consumer.body.block.args
    num_inputs = len(reduction.inputs)
    body = Block(
        arg_types=[
            *(arg.type for arg in reduction_args[:num_inputs]),
            *(consumer_args[i].type for i in kept),
            reduction_args[-1].type,
        ]
    )
    new_args = list(body.args)
    reduction_mapping = {arg: new_args[n] for n, arg in enumerate(reduction_args[:num_inputs])}
    reduction_mapping[reduction_args[-1]] = new_args[-1]
    result = _inline_body(reduction, body, reduction_mapping, None, epilogue=False)
    consumer_mapping = {consumer_args[i]: new_args[num_inputs + n] for n, i in enumerate(kept)}
    consumer_mapping[consumer_args[index]] = result
    yielded = _inline_body(consumer, body, consumer_mapping, None, epilogue=True)
    body.add_op(YieldOp(yielded))
    maps = [
        *reduction_maps[:num_inputs],
        *(consumer_maps[i].compose(output_map) for i in kept),
        output_map,
    ]
    inputs = [*reduction.inputs, *(consumer.inputs[i] for i in kept)]
    # the consumer's skipped output tiles are the reduction's, through its output map
    # (a constant there: the consumer's tiles are computed, as the reduction's are)
    dims = [e.position if isinstance(e, AffineDimExpr) else None for e in output_map.results]
    consumer_skips = [
        t for t in triangles(consumer) if dims[t.rows.data] is not None and dims[t.cols.data] is not None
    ]
    skipped = [*triangles(reduction), *renumbered(consumer_skips, dims)]
    return _new_generic(
        consumer, inputs, maps, consumer.outputs[0], reduction.iterator_types, body, skipped
    )


class MergeRepeatedInputs(RewritePattern):
    """A generic reading one tensor twice through the same map -> reading it once."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GenericOp, rewriter: PatternRewriter) -> None:
        if not _is_tile_generic(op):
            return
        maps = _maps(op)
        seen: dict[tuple[SSAValue, AffineMap], int] = {}
        first: dict[int, int] = {}  # input -> the first input reading the same tiles
        for index, operand in enumerate(op.inputs):
            first[index] = seen.setdefault((operand, maps[index]), index)
        if all(first[i] == i for i in first):
            return
        kept = [i for i in first if first[i] == i]
        args = op.body.block.args
        body = Block(arg_types=[*(args[i].type for i in kept), args[-1].type])
        position = {i: n for n, i in enumerate(kept)}
        mapping: dict[SSAValue, SSAValue] = {args[i]: body.args[position[first[i]]] for i in first}
        mapping[args[-1]] = body.args[-1]
        for body_op in op.body.block.ops:
            clone = body_op.clone(value_mapper=mapping)
            body.add_op(clone)
            for old, new in zip(body_op.results, clone.results):
                mapping[old] = new
        inputs = [op.inputs[i] for i in kept]
        rewriter.replace(
            op,
            _new_generic(
                op, inputs, [*(maps[i] for i in kept), maps[-1]], op.outputs[0],
                op.iterator_types, body,
            ),
        )  # fmt: skip


@dataclass(frozen=True)
class D2MElementwiseFusion(ModulePass):
    """Fuses elementwise chains, and elementwise epilogues into reductions and matmuls."""

    name = "d2m-elementwise-fusion"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier(
                [FuseEpilogue(), FuseElementwiseProducer(), MergeRepeatedInputs()]
            ),
        ).rewrite_module(op)
