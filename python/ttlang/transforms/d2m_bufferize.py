"""d2m-bufferize: the compute thread's tensors become L1 memrefs.

After this pass no tensor is left in a compute region. `d2m.wait`/`d2m.reserve`
return their CB's L1 block (as compute sees it, `d2m.unpacked_block`: a bfp8_b CB's
block as bf16 tiles), a `d2m.block_view` of one views that L1 block (rows of the
memref, same offset), and every `linalg.generic` writes a block:

- a generic whose only use is `d2m.store` into a block reserved before it writes that
  block directly (the store disappears: no copy);
- any other generic result is a temporary: it gets an intermediate buffer,
  `memref.alloc() : memref<..., #ttcore.memory_space<l1>>`, that
  d2m-memref-provenance then binds to a compute-local CB;
- a `d2m.store` of a value that is already a block copies it with an identity generic
  (the only copies this pass makes: the stored block lives in another CB).

Before:

    %l = d2m.wait %lhs_cb : !d2m.cb<...> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %o = d2m.reserve %out_cb : !d2m.cb<...> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %e = tensor.empty() : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x = linalg.generic {...} ins(%l : tensor<...>) outs(%e : tensor<...>) {exp} -> tensor<...>
    %y = linalg.generic {...} ins(%x : tensor<...>) outs(%e : tensor<...>) {recip} -> tensor<...>
    d2m.store %o, %y : tensor<...>, tensor<...>

After:

    %l = d2m.wait %lhs_cb : !d2m.cb<...> -> memref<1x1x!ttcore.tile<32x32, bf16>, #l1>
    %o = d2m.reserve %out_cb : !d2m.cb<...> -> memref<1x1x!ttcore.tile<32x32, bf16>, #l1>
    %x = memref.alloc() : memref<1x1x!ttcore.tile<32x32, bf16>, #l1>
    linalg.generic {...} ins(%l : memref<...>) outs(%x : memref<...>) {exp}
    linalg.generic {...} ins(%x : memref<...>) outs(%o : memref<...>) {recip}

A block carried by a loop (`scf.for` iter_args, e.g. `acc = acc + a @ b`) is held in a
compute-local CB of two blocks, the current value at its front and the next one at
its back (ping-pong without copies): the init is stored into it before the loop; each
iteration waits for the current value, reserves the next block, stores the yielded
value there, pushes it and pops the old one; after the loop the result is waited for
(and popped after its last use); an init that is `tensor.empty` (a start value no path
reads, from d2m-if-to-loops) is reserved and pushed unwritten. With several carries, every next block is stored
before any CB is pushed and popped: a carry may yield another's current value
(`a, b = b, a`), which that CB's pop would release. This first step rewrites the loop on tensors, so that
the generic producing a carried value then writes straight into the CB like any
stored value:

    %acc = scf.for %k = ... iter_args(%a = %zeros) -> tensor<...> {
      %p = linalg.generic ... ins(%x, %y) ... {tile_matmul}
      %s = linalg.generic ... ins(%a, %p) ... {tile_add}
      scf.yield %s
    }

becomes (before bufferization proper)

    %carry_cb = d2m.local_cb : !d2m.cb<memref<...>>        // two blocks
    %r0 = d2m.reserve %carry_cb ; <%zeros> ; d2m.store %r0, %zeros ; d2m.push %carry_cb
    scf.for %k = ... {
      %a = d2m.wait %carry_cb ; %r = d2m.reserve %carry_cb
      ... %s = ...
      d2m.store %r, %s ; d2m.push %carry_cb ; d2m.pop %carry_cb
    }
    %acc = d2m.wait %carry_cb ... d2m.pop %carry_cb (after the last use)

A loop whose init is the result of the loop streamed just before it (that loop's final
`d2m.wait`, read by nothing else) streams the block on through the same CB: its front
holds the block already, so there is no final wait, copy into a new CB, or pop between
the loops (FlashAttention's causal diagonal steps, `if`s that d2m-if-to-loops made
loops of 0 or 1 trips, hand m, l and acc from loop to loop):

    %a = scf.for ... iter_args(%x = %init) { ... }     // streamed through %cb
    %b = scf.for ... iter_args(%y = %a) { ... }

becomes

    scf.for ... { %x = d2m.wait %cb ; %n = d2m.reserve %cb ; ... push, pop }
    scf.for ... { %y = d2m.wait %cb ; %m = d2m.reserve %cb ; ... push, pop }
    %b = d2m.wait %cb ... d2m.pop %cb (after the last use)

Nested loops carrying blocks are streamed outermost first: the inner loop's result
is then an ordinary value of the outer body, copied into the outer CB's next block
before the inner CB's final block is popped.

A yielded value that is also used inside the iteration is computed into an
intermediate buffer and copied into the next block: the unpacker reads only a CB's
front, and the front still holds the current value. (d2m-hand-off-on-pack later has
the generic computing the value pack it into the next block too, instead of the copy.)

A block a loop yields unchanged (assigned in the loop only in a branch the DSL dropped
at compile time) is loop-invariant, not carried: the loop body and the code after the
loop read its init (no CB, no hand-off). When the init is a CB's block, which the program
may release before the loop result's last use, the result is a copy of it made once
right after the loop:

    %r, %same = scf.for ... iter_args(%a = %zeros, %s = %one) -> (tensor<...>, tensor<...>) {
      ... ins(%a, %s, %x) ...
      scf.yield %next, %s
    }                                   // uses of %same

becomes

    %r = scf.for ... iter_args(%a = %zeros) -> tensor<...> {
      ... ins(%a, %one, %x) ...
      scf.yield %next
    }                                   // uses of %one

Fails (PassError) on a generic whose init is not `tensor.empty` (accumulating into an
existing value), on loops carrying values that are not blocks, and on generics with
several outputs.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import memref, scf, tensor
from xdsl.dialects.builtin import AffineMapAttr, MemRefType, ModuleOp, TensorType
from xdsl.dialects.linalg import attrs as linalg_attrs
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from ttlang.dialects import d2m
from ttlang.dialects.ttcore import MemorySpace, MemorySpaceAttr
from ttlang.transforms.compute_region import (
    ancestor_in_block,
    cb_ops_between,
    compute_entry,
    declare_local_cb,
    last_user,
)
from ttlang.transforms.analysis.triangles import set_triangles, triangles
from ttlang.transforms.diagnostics import PassError

CARRY_CB_BUFFERS = 2
"""A loop-carried block needs the current value and the next one at once."""


# ----------------------------------------------------------------------- helpers


def _defined_before(value: SSAValue, op: Operation) -> bool:
    """Whether `value` is defined by an op that runs before `op` (same or enclosing block)."""
    owner = value.owner
    if not isinstance(owner, Operation) or owner.parent_block() is None:
        return False
    anchor = ancestor_in_block(op, owner.parent_block())
    return anchor is not None and owner.is_before_in_block(anchor)


def l1_block_type(tensor_type: TensorType) -> MemRefType:
    """The L1 block memref holding a value of `tensor_type`."""
    return MemRefType(
        tensor_type.get_element_type(),
        tensor_type.get_shape(),
        memory_space=MemorySpaceAttr(MemorySpace.L1),
    )


def _cb_block_type(cb: SSAValue) -> MemRefType:
    cb_type = cb.type
    assert isinstance(cb_type, d2m.CBType)
    return cb_type.block


def copy_generic(source: SSAValue, destination: SSAValue) -> linalg.GenericOp:
    """An identity `linalg.generic` copying the block `source` into `destination` (on
    tensors, `destination` a `tensor.empty`, it returns the copy)."""
    source_type = source.type
    assert isinstance(source_type, MemRefType | TensorType)
    rank = source_type.get_num_dims()
    tile = source_type.get_element_type()
    body = Block(arg_types=[tile, tile])
    body.add_op(linalg.YieldOp(body.args[0]))
    identity = AffineMapAttr(AffineMap.identity(rank))
    parallel = linalg_attrs.IteratorTypeAttr.parallel()
    return linalg.GenericOp(
        inputs=[source],
        outputs=[destination],
        body=Region(body),
        indexing_maps=[identity, identity],
        iterator_types=[parallel] * rank,
        result_types=[destination.type] if isinstance(destination.type, TensorType) else [],
    )


# ----------------------------------------------------------------------- patterns


class DropUnchangedCarriedBlocks(RewritePattern):
    """A block a loop yields unchanged -> its init, read inside and after the loop."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.ForOp, rewriter: PatternRewriter) -> None:
        if compute_entry(op) is None:
            return
        body = op.body.block
        yield_op = body.last_op
        assert isinstance(yield_op, scf.YieldOp)
        carried = body.args[1:]
        unchanged = [
            i
            for i, value in enumerate(yield_op.operands)
            if value is carried[i] and isinstance(value.type, TensorType)
        ]
        if not unchanged:
            return
        kept = [i for i in range(len(carried)) if i not in unchanged]
        inits = op.iter_args
        for i in unchanged:
            rewriter.replace_all_uses_with(carried[i], inits[i])
        for i in reversed(unchanged):
            body.erase_arg(carried[i])
        rewriter.replace(yield_op, scf.YieldOp(*(yield_op.operands[i] for i in kept)))
        loop = scf.ForOp(op.lb, op.ub, op.step, [inits[i] for i in kept], op.detach_region(op.body))
        new_ops: list[Operation] = [loop]
        results = list(loop.results)
        for i in unchanged:
            value = inits[i]
            block = d2m.viewed_block(value).owner
            if isinstance(block, d2m.WaitOp | d2m.ReserveOp) and op.results[i].uses:
                # A CB's block: the program may release it before the loop result's
                # last use, which the carried copy outlived; copy it once instead.
                empty = tensor.EmptyOp([], value.type)
                copy = copy_generic(value, empty.tensor)
                new_ops += [empty, copy]
                value = copy.res[0]
            results.insert(i, value)
        rewriter.replace(op, new_ops, results)


class StreamLoopCarriedBlocks(RewritePattern):
    """A loop carrying blocks -> a loop streaming them through two-block local CBs."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.ForOp, rewriter: PatternRewriter) -> None:
        if not op.iter_args or compute_entry(op) is None:
            return
        if not all(isinstance(arg.type, TensorType) for arg in op.iter_args):
            raise PassError(
                op,
                "carries values that are not blocks; d2m-bufferize streams only blocks "
                "through loops.",
            )
        block = op.parent_block()
        assert block is not None
        body = op.body.block
        yield_op = body.last_op
        assert isinstance(yield_op, scf.YieldOp)
        cbs: list[SSAValue] = []
        followings: list[SSAValue] = []
        handed_over: list[tuple[d2m.WaitOp, d2m.PopOp]] = []
        for init, carried in zip(op.iter_args, body.args[1:]):
            chained = _streamed_before(init, carried.type, op)
            if chained is not None:  # its front holds the init already: keep streaming
                handed_over.append(chained)
                cb = chained[0].cb
            else:
                cb = declare_local_cb(op, l1_block_type(carried.type), CARRY_CB_BUFFERS)
                # Reserve before the init is computed, so that it is computed in place.
                init_owner = init.owner
                first = (
                    init_owner
                    if isinstance(init_owner, Operation) and init_owner.parent_block() is block
                    else op
                )
                reserve = rewriter.insert(d2m.ReserveOp(cb, carried.type), InsertPoint.before(first))
                if not isinstance(init_owner, tensor.EmptyOp):  # else a start no path reads
                    rewriter.insert(d2m.StoreOp(reserve.result, init), InsertPoint.before(op))
                rewriter.insert(d2m.PushOp(cb), InsertPoint.before(op))
            cbs.append(cb)
            # Each iteration: the current block in, the next block out.
            current = d2m.WaitOp(cb, carried.type)
            following = d2m.ReserveOp(cb, carried.type)
            rewriter.insert(following, InsertPoint.at_start(body))
            rewriter.insert(current, InsertPoint.at_start(body))
            rewriter.replace_all_uses_with(carried, current.result)
            followings.append(following.result)
        # The yielded values read now name the waited blocks (a loop may yield a carried
        # value to another carry: `a, b = b, a`), and every next block is stored before
        # any CB pops its current one, which another carry's store may still read.
        for following, yielded in zip(followings, yield_op.operands):
            rewriter.insert(d2m.StoreOp(following, yielded), InsertPoint.before(yield_op))
        for cb in cbs:
            for hand_off in (d2m.PushOp(cb), d2m.PopOp(cb)):
                rewriter.insert(hand_off, InsertPoint.before(yield_op))
        for carried in list(body.args[1:]):
            body.erase_arg(carried)
        rewriter.replace(yield_op, scf.YieldOp())
        rewriter.insert(
            scf.ForOp(op.lb, op.ub, op.step, [], op.detach_region(op.body)), InsertPoint.before(op)
        )
        for result, cb in zip(op.results, cbs):
            final = rewriter.insert(d2m.WaitOp(cb, result.type), InsertPoint.before(op))
            final_user = last_user(result, block, final)
            rewriter.replace_all_uses_with(result, final.result)
            rewriter.insert(d2m.PopOp(cb), InsertPoint.after(final_user))
        rewriter.erase(op)
        for wait, pop in handed_over:
            rewriter.erase(pop)
            rewriter.erase(wait)


def _streamed_before(
    init: SSAValue, carried_type: Attribute, loop: scf.ForOp
) -> tuple[d2m.WaitOp, d2m.PopOp] | None:
    """When `init` is the result of a loop streamed just before `loop` (the final
    `d2m.wait` of its carry CB, read by nothing but `loop`, the CB untouched until its
    pop right after `loop`): that wait and pop. `loop` then streams the block on
    through the same CB, whose front holds it, instead of copying it into a new one."""
    wait = init.owner
    if not isinstance(wait, d2m.WaitOp) or not isinstance(wait.cb.owner, d2m.LocalCBOp):
        return None
    cb_type = wait.cb.type
    assert isinstance(cb_type, d2m.CBType) and isinstance(carried_type, TensorType)
    if cb_type.block != l1_block_type(carried_type) or len(list(init.uses)) != 1:
        return None
    if wait.parent_block() is not loop.parent_block() or cb_ops_between(wait, loop, wait.cb):
        return None
    pop = loop.next_op
    while pop is not None and not (isinstance(pop, d2m.PopOp) and pop.cb is wait.cb):
        pop = pop.next_op
    if pop is None or cb_ops_between(loop, pop, wait.cb):
        return None
    return wait, pop


class BufferizeCBBlock(RewritePattern):
    """d2m.wait/reserve returning a tensor -> returning the CB's L1 block (its tiles as
    compute sees them)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: d2m.WaitOp | d2m.ReserveOp, rewriter: PatternRewriter) -> None:
        if isinstance(op.result.type, TensorType) and compute_entry(op) is not None:
            rewriter.replace(op, type(op)(op.cb, d2m.unpacked_block(_cb_block_type(op.cb))))


class BufferizeBlockView(RewritePattern):
    """d2m.block_view of a bufferized block -> a view of that L1 block."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: d2m.BlockViewOp, rewriter: PatternRewriter) -> None:
        source, result = op.source.type, op.result.type
        if isinstance(result, TensorType) and isinstance(source, MemRefType):
            view_type = MemRefType(source.element_type, result.get_shape(), memory_space=source.memory_space)
            rewriter.replace(op, d2m.BlockViewOp(op.source, op.start.value.data, op.stop.value.data, view_type))


class BufferizeGeneric(RewritePattern):
    """A linalg.generic on tensors -> on memrefs, writing the block its result is stored
    into, or an intermediate buffer."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: linalg.GenericOp, rewriter: PatternRewriter) -> None:
        if not op.res or compute_entry(op) is None:
            return
        if len(op.outputs) != 1:
            raise PassError(op, f"has {len(op.outputs)} outputs; d2m-bufferize handles one.")
        if not isinstance(op.outputs[0].owner, tensor.EmptyOp):
            raise PassError(
                op,
                "accumulates into an existing value (its init is not tensor.empty); "
                "d2m-bufferize handles fresh outputs only.",
            )
        if not all(isinstance(operand.type, MemRefType) for operand in op.inputs):
            return  # a producer is not bufferized yet
        store = _sole_store(op)
        if store is not None and isinstance(store.dst.type, TensorType):
            return  # the block it is stored into is not bufferized yet
        if store is not None and _defined_before(store.dst, op):
            rewriter.erase(store)
            rewriter.replace(op, _memref_generic(op, store.dst), [None])
            return
        result_type = op.res[0].type
        assert isinstance(result_type, TensorType)
        buffer = rewriter.insert(
            memref.AllocOp([], [], l1_block_type(result_type)), InsertPoint.before(op)
        )
        rewriter.replace(op, _memref_generic(op, buffer.memref), [buffer.memref])


def _sole_store(op: linalg.GenericOp) -> d2m.StoreOp | None:
    """The `d2m.store` that is the only use of `op`'s result, if there is one."""
    uses = list(op.res[0].uses)
    if (
        len(uses) == 1
        and isinstance(store := uses[0].operation, d2m.StoreOp)
        and store.value is op.res[0]
    ):
        return store
    return None


def _memref_generic(op: linalg.GenericOp, destination: SSAValue) -> linalg.GenericOp:
    """`op` on memrefs, writing `destination` (its body moves over)."""
    new = linalg.GenericOp(
        inputs=list(op.inputs),
        outputs=[destination],
        body=op.detach_region(op.body),
        indexing_maps=op.indexing_maps,
        iterator_types=op.iterator_types,
    )
    new.location = op.location
    set_triangles(new, triangles(op))
    return new


class CopyStoredBlock(RewritePattern):
    """d2m.store of a block -> an identity generic copying it into the destination."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: d2m.StoreOp, rewriter: PatternRewriter) -> None:
        if not isinstance(op.value.type, MemRefType) or not isinstance(op.dst.type, MemRefType):
            return
        copy = copy_generic(op.value, op.dst)
        copy.location = op.location
        rewriter.replace(op, copy)


class EraseUnusedEmptyTensor(RewritePattern):
    """tensor.empty without uses -> nothing."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tensor.EmptyOp, rewriter: PatternRewriter) -> None:
        if not op.tensor.uses:
            rewriter.erase(op)


@dataclass(frozen=True)
class D2MBufferize(ModulePass):
    """Tensors in compute regions -> L1 CB blocks; temporaries -> compute-local CBs."""

    name = "d2m-bufferize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # Unchanged blocks stop being carried before any loop is streamed, so that the
        # final pop of a streamed loop's result follows their uses too.
        PatternRewriteWalker(DropUnchangedCarriedBlocks()).rewrite_module(op)
        # Outer loops first: an inner loop's result is then a value the outer body
        # hands off (its last user an op, not the outer scf.yield).
        PatternRewriteWalker(StreamLoopCarriedBlocks()).rewrite_module(op)
        PatternRewriteWalker(
            GreedyRewritePatternApplier(
                [
                    BufferizeCBBlock(),
                    BufferizeBlockView(),
                    BufferizeGeneric(),
                    CopyStoredBlock(),
                    EraseUnusedEmptyTensor(),
                ]
            )
        ).rewrite_module(op)
        for leftover in op.walk():
            if (
                isinstance(leftover, d2m.StoreOp | linalg.GenericOp)
                and compute_entry(leftover) is not None
            ):
                if any(isinstance(v.type, TensorType) for v in leftover.operands):
                    raise PassError(
                        leftover, "uses a block that is neither a CB block nor an operator result."
                    )
