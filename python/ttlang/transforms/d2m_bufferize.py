"""d2m-bufferize: the compute thread's tensors become L1 memrefs (CB blocks).

After this pass no tensor is left in a compute region: `d2m.wait`/`d2m.reserve` return
their CB's L1 block, and every `linalg.generic` reads and writes such blocks.

- A generic whose only use is `d2m.store` into a block reserved before it writes that
  block directly (the store disappears).
- Any other generic result is a temporary: it gets a compute-local CB of one block
  (`d2m.local_cb`) that the compute thread produces (reserve, generic, push) and then
  consumes (wait ... pop after the last use).
- A `d2m.store` of a value that is already a block copies it with an identity generic.

Before:

    %l = d2m.wait %lhs_cb : !d2m.cb<...> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %o = d2m.reserve %out_cb : !d2m.cb<...> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %e = tensor.empty() : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %x = linalg.generic {...} ins(%l : tensor<...>) outs(%e : tensor<...>) {exp} -> tensor<...>
    %y = linalg.generic {...} ins(%x : tensor<...>) outs(%e : tensor<...>) {recip} -> tensor<...>
    d2m.store %o, %y : tensor<...>, tensor<...>

After:

    %tmp_cb = d2m.local_cb : !d2m.cb<memref<1x1x!ttcore.tile<32x32, bf16>, #l1>, 1>
    %l = d2m.wait %lhs_cb : !d2m.cb<...> -> memref<1x1x!ttcore.tile<32x32, bf16>, #l1>
    %o = d2m.reserve %out_cb : !d2m.cb<...> -> memref<1x1x!ttcore.tile<32x32, bf16>, #l1>
    %t = d2m.reserve %tmp_cb : ... -> memref<...>
    linalg.generic {...} ins(%l : memref<...>) outs(%t : memref<...>) {exp}
    d2m.push %tmp_cb
    %x = d2m.wait %tmp_cb : ... -> memref<...>
    linalg.generic {...} ins(%x : memref<...>) outs(%o : memref<...>) {recip}
    d2m.pop %tmp_cb

A block carried by a loop (`scf.for` iter_args, e.g. `acc = acc + a @ b`) streams
through a compute-local CB of two blocks: the init is stored into it before the loop;
each iteration waits for the current value, reserves the next block, stores the
yielded value there, pushes it and pops the old one; after the loop the result is
waited for (and popped after its last use). This first step rewrites the loop on
tensors, so that the generics producing the carried values then write straight into
the CB like any stored value:

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

Fails (PassError) on a generic whose init is not `tensor.empty` (accumulating into an
existing value), on loops carrying both blocks and other values, and on generics with
several outputs.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import scf, tensor
from xdsl.dialects.builtin import AffineMapAttr, MemRefType, ModuleOp, TensorType
from xdsl.dialects.linalg import attrs as linalg_attrs
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from ttlang.dialects import d2m
from ttlang.dialects.ttcore import MemorySpace, MemorySpaceAttr
from ttlang.transforms.diagnostics import PassError

LOCAL_CB_BUFFERS = 1
"""A temporary is produced and consumed by the same thread, so one block suffices."""

CARRY_CB_BUFFERS = 2
"""A loop-carried block needs the current value and the next one at once."""


def compute_regions(module: ModuleOp) -> list[Region]:
    """The compute-thread regions of every `d2m.generic` in `module`."""
    regions: list[Region] = []
    for op in module.walk():
        if isinstance(op, d2m.GenericOp):
            for kind, region in zip(op.thread_kinds, op.thread_regions):
                if kind == d2m.ThreadType.COMPUTE:
                    regions.append(region)
    return regions


def _ancestor_in_block(op: Operation, block: Block) -> Operation | None:
    """`op` or its ancestor that lies directly in `block`."""
    current: Operation | None = op
    while current is not None and current.parent_block() is not block:
        current = current.parent_op()
    return current


def _defined_before(value: SSAValue, op: Operation) -> bool:
    """Whether `value` is defined by an op that runs before `op` (same or enclosing block)."""
    owner = value.owner
    if not isinstance(owner, Operation) or owner.parent_block() is None:
        return False
    anchor = _ancestor_in_block(op, owner.parent_block())
    return anchor is not None and owner.is_before_in_block(anchor)


@dataclass
class _ComputeBufferizer:
    """Bufferizes one compute region; local CBs are declared at its entry."""

    entry: Block
    local_cbs: int = 0

    def run(self, block: Block) -> None:
        for op in list(block.ops):
            if op.parent is None:  # a store erased together with the generic it stored
                continue
            if isinstance(op, d2m.WaitOp | d2m.ReserveOp) and isinstance(op.result.type, TensorType):
                self._bufferize_cb_block(op)
            elif isinstance(op, linalg.GenericOp) and op.res:
                self._bufferize_generic(op)
            elif isinstance(op, d2m.StoreOp):
                self._bufferize_store(op)
            elif isinstance(op, scf.ForOp):
                self.run(op.body.block)
            elif isinstance(op, scf.IfOp):
                for region in op.regions:
                    for inner in region.blocks:
                        self.run(inner)
        for op in list(block.ops):
            if isinstance(op, tensor.EmptyOp) and not op.tensor.uses:
                Rewriter.erase_op(op)

    def stream_loop_carried_blocks(self, block: Block) -> None:
        """Rewrites every loop of `block` (and nested ones) that carries tensors so that
        they stream through CBs (see the module docstring)."""
        for op in list(block.ops):
            for region in op.regions:
                for inner in region.blocks:
                    self.stream_loop_carried_blocks(inner)
            if isinstance(op, scf.ForOp) and op.iter_args:
                self._stream_through_cbs(op)

    def _stream_through_cbs(self, loop: scf.ForOp) -> None:
        if not all(isinstance(arg.type, TensorType) for arg in loop.iter_args):
            raise PassError(
                loop, "carries values that are not blocks; d2m-bufferize streams only blocks "
                "through loops."
            )
        block = loop.parent_block()
        assert block is not None
        body = loop.body.block
        yield_op = body.last_op
        assert isinstance(yield_op, scf.YieldOp)
        cbs: list[SSAValue] = []
        for init, carried, yielded in zip(loop.iter_args, body.args[1:], yield_op.operands):
            local_cb = self._local_cb(carried.type, CARRY_CB_BUFFERS)
            cb, cb_type = local_cb.result, local_cb.result.type
            cbs.append(cb)
            # Reserve before the init is computed, so that it is computed in place.
            init_owner = init.owner
            first = init_owner if isinstance(init_owner, Operation) and init_owner.parent_block() is block else loop
            reserve = d2m.ReserveOp(cb, carried.type)
            block.insert_op_before(reserve, first)
            block.insert_ops_before([d2m.StoreOp(reserve.result, init), d2m.PushOp(cb)], loop)
            # Each iteration: the current block in, the next block out.
            current = d2m.WaitOp(cb, carried.type)
            following = d2m.ReserveOp(cb, carried.type)
            body.insert_ops_before([current, following], body.first_op)
            carried.replace_all_uses_with(current.result)
            body.insert_ops_before(
                [d2m.StoreOp(following.result, yielded), d2m.PushOp(cb), d2m.PopOp(cb)], yield_op
            )
        for carried in list(body.args[1:]):
            body.erase_arg(carried)
        Rewriter.replace_op(yield_op, scf.YieldOp())
        new_loop = scf.ForOp(loop.lb, loop.ub, loop.step, [], loop.detach_region(loop.body))
        block.insert_op_before(new_loop, loop)
        for result, cb in zip(loop.results, cbs):
            final = d2m.WaitOp(cb, result.type)
            block.insert_op_before(final, loop)
            last_use = max(
                (_ancestor_in_block(use.operation, block) for use in result.uses),
                key=lambda user: block.get_operation_index(user),
                default=final,
            )
            result.replace_all_uses_with(final.result)
            block.insert_op_after(d2m.PopOp(cb), last_use)
        Rewriter.erase_op(loop)

    def _bufferize_cb_block(self, op: d2m.WaitOp | d2m.ReserveOp) -> None:
        cb_type = op.cb.type
        assert isinstance(cb_type, d2m.CBType)
        new = type(op)(op.cb, cb_type.block)
        op.parent_block().insert_op_before(new, op)
        op.result.replace_all_uses_with(new.result)
        Rewriter.erase_op(op)

    def _bufferize_generic(self, op: linalg.GenericOp) -> None:
        if len(op.outputs) != 1:
            raise PassError(op, f"has {len(op.outputs)} outputs; d2m-bufferize handles one.")
        if not isinstance(op.outputs[0].owner, tensor.EmptyOp):
            raise PassError(
                op, "accumulates into an existing value (its init is not tensor.empty); "
                "d2m-bufferize handles fresh outputs only."
            )
        for operand in op.inputs:
            if not isinstance(operand.type, MemRefType):
                raise PassError(op, f"reads {operand.type}, which is not a CB block or a temporary.")
        block = op.parent_block()
        assert block is not None
        result = op.res[0]
        store = self._store_into_reserved_block(op)
        if store is not None:
            destination = store.dst
            Rewriter.erase_op(store)
            self._replace_generic(op, destination)
            return
        local_cb = self._local_cb(result.type, LOCAL_CB_BUFFERS)
        cb_type = local_cb.result.type
        assert isinstance(cb_type, d2m.CBType)
        reserve = d2m.ReserveOp(local_cb.result, cb_type.block)
        block.insert_op_before(reserve, op)
        new = self._replace_generic(op, reserve.result, keep_result=True)
        push = d2m.PushOp(local_cb.result)
        wait = d2m.WaitOp(local_cb.result, cb_type.block)
        block.insert_op_after(push, new)
        block.insert_op_after(wait, push)
        last_use = max(
            (_ancestor_in_block(use.operation, block) for use in result.uses),
            key=lambda user: block.get_operation_index(user),
            default=wait,
        )
        result.replace_all_uses_with(wait.result)
        block.insert_op_after(d2m.PopOp(local_cb.result), last_use)
        Rewriter.erase_op(op)

    def _store_into_reserved_block(self, op: linalg.GenericOp) -> d2m.StoreOp | None:
        """The `d2m.store` that is the only use of `op`'s result, when its destination is
        a block already reserved before `op`."""
        uses = list(op.res[0].uses)
        if len(uses) != 1:
            return None
        store = uses[0].operation
        if not isinstance(store, d2m.StoreOp) or store.value is not op.res[0]:
            return None
        if not isinstance(store.dst.type, MemRefType) or not _defined_before(store.dst, op):
            return None
        return store

    def _replace_generic(
        self, op: linalg.GenericOp, destination: SSAValue, keep_result: bool = False
    ) -> linalg.GenericOp:
        """A memref form of `op` writing `destination`, inserted before `op` (which is
        erased unless its result still has uses to redirect)."""
        new = linalg.GenericOp(
            inputs=list(op.inputs),
            outputs=[destination],
            body=op.detach_region(op.body),
            indexing_maps=op.indexing_maps,
            iterator_types=op.iterator_types,
        )
        new.location = op.location
        op.parent_block().insert_op_before(new, op)
        if not keep_result:
            Rewriter.erase_op(op)
        return new

    def _bufferize_store(self, op: d2m.StoreOp) -> None:
        if not isinstance(op.value.type, MemRefType) or not isinstance(op.dst.type, MemRefType):
            raise PassError(op, "stores a value that is neither a CB block nor an operator result.")
        copy = copy_generic(op.value, op.dst)
        copy.location = op.location
        op.parent_block().insert_op_before(copy, op)
        Rewriter.erase_op(op)

    def _local_cb(self, block_type: Attribute, buffers: int) -> d2m.LocalCBOp:
        """A new compute-local CB of `buffers` blocks shaped like the tensor type
        `block_type`, declared at the region entry."""
        assert isinstance(block_type, TensorType)
        cb_type = d2m.CBType(
            MemRefType(
                block_type.get_element_type(),
                block_type.get_shape(),
                memory_space=MemorySpaceAttr(MemorySpace.L1),
            ),
            buffers,
        )
        local_cb = d2m.LocalCBOp(cb_type)
        self._declare(local_cb)
        return local_cb

    def _declare(self, local_cb: d2m.LocalCBOp) -> None:
        """Places `local_cb` at the region entry, after the local CBs declared so far."""
        if self.local_cbs == 0:
            self.entry.insert_op_before(local_cb, self.entry.first_op)
        else:
            anchor = list(self.entry.ops)[self.local_cbs - 1]
            self.entry.insert_op_after(local_cb, anchor)
        self.local_cbs += 1


def copy_generic(source: SSAValue, destination: SSAValue) -> linalg.GenericOp:
    """An identity `linalg.generic` copying the block `source` into `destination`."""
    source_type = source.type
    assert isinstance(source_type, MemRefType)
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
    )


@dataclass(frozen=True)
class D2MBufferize(ModulePass):
    """Tensors in compute regions -> L1 CB blocks; temporaries -> compute-local CBs."""

    name = "d2m-bufferize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for region in compute_regions(op):
            bufferizer = _ComputeBufferizer(region.block)
            bufferizer.stream_loop_carried_blocks(region.block)
            bufferizer.run(region.block)
