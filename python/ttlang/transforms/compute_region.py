"""Helpers for rewriting a `d2m.generic`'s compute region: finding it, placing ops in
program order, and declaring compute-local CBs (shared by the passes that create
temporaries: bufferization, d2m-memref-provenance, spilling)."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr, IntegerAttr, MemRefType, i1
from xdsl.dialects.linalg.ops import GenericOp, YieldOp
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from ttlang.dialects import d2m
from ttlang.transforms.diagnostics import PassError


def compute_entry(op: Operation) -> Block | None:
    """The entry block of the compute region of a `d2m.generic` enclosing `op`, or None
    when `op` is not in a compute thread."""
    found = d2m.thread_region(op)
    if found is None or d2m.thread_of(op) != d2m.ThreadType.COMPUTE:
        return None
    return found[1].block


def bufferized_compute_generics(module: Operation) -> list[GenericOp]:
    """The `linalg.generic`s of `module`'s compute regions, in order; a PassError when
    one still returns tensors (for the passes that run after d2m-bufferize)."""
    generics = [g for g in module.walk() if isinstance(g, GenericOp) and compute_entry(g) is not None]
    for generic in generics:
        if generic.res:
            raise PassError(generic, "still returns tensors; run d2m-bufferize first.")
    return generics


def ancestor_in_block(op: Operation, block: Block) -> Operation | None:
    """`op` or its ancestor that lies directly in `block`."""
    current: Operation | None = op
    while current is not None and current.parent_block() is not block:
        current = current.parent_op()
    return current


def defined_before(value: SSAValue, op: Operation) -> bool:
    """Whether `value` is defined in a block enclosing `op`, before it (so `op` may use
    it)."""
    block = value.block if isinstance(value, BlockArgument) else value.owner.parent_block()  # type: ignore[union-attr]
    current = ancestor_in_block(op, block) if block is not None else None
    if current is None:
        return False
    return isinstance(value, BlockArgument) or value.owner.is_before_in_block(current)  # type: ignore[union-attr]


def last_user(value: SSAValue, block: Block, default: Operation) -> Operation:
    """The op of `block` that is or holds the last use of `value` (`default` if unused)."""
    users = [ancestor_in_block(use.operation, block) for use in value.uses]
    return max(
        (user for user in users if user is not None),
        key=block.get_operation_index,
        default=default,
    )


def cb_ops_between(first: Operation, last: Operation, cb: SSAValue) -> list[Operation]:
    """The ops strictly between `first` and `last` (one block) that use `cb`, nested
    ops included."""
    found: list[Operation] = []
    op = first.next_op
    while op is not None and op is not last:
        found.extend(o for o in op.walk() if cb in o.operands)
        op = op.next_op
    return found


def block_writer(wait: d2m.WaitOp) -> GenericOp | None:
    """The generic that wrote the block `wait` reads: the last generic before `wait` in
    its block whose first output is a reserve of `wait`'s CB, when nothing but that CB's
    push lies between them (reserve, the generic, push, wait); None otherwise."""
    op = wait.prev_op
    while op is not None:
        if isinstance(op, GenericOp) and op.outputs:
            reserve = op.outputs[0].owner
            if isinstance(reserve, d2m.ReserveOp) and reserve.cb is wait.cb:
                between = cb_ops_between(op, wait, wait.cb)
                pushes = [o for o in between if isinstance(o, d2m.PushOp)]
                return op if len(between) == 1 and len(pushes) == 1 else None
        op = op.prev_op
    return None


def add_output(generic: GenericOp, block: SSAValue, indexing_map: AffineMapAttr) -> GenericOp:
    """`generic` replaced by a copy with one more output, `block` read through
    `indexing_map`, to which its body yields its (first) value again: its result tiles
    are packed there too. Returns the copy (its attributes are `generic`'s)."""
    body = generic.body.block
    body.insert_arg(block.type.get_element_type(), len(body.args))  # type: ignore[attr-defined]
    yielded = body.last_op
    assert isinstance(yielded, YieldOp)
    Rewriter.replace_op(yielded, YieldOp(*yielded.operands, yielded.operands[0]))
    wider = GenericOp(
        list(generic.inputs), [*generic.outputs, block],
        generic.detach_region(generic.body),
        ArrayAttr([*generic.indexing_maps.data, indexing_map]), generic.iterator_types, [],
    )  # fmt: skip
    wider.attributes.update(generic.attributes)
    wider.location = generic.location
    Rewriter.replace_op(generic, wider)
    return wider


def packing_onto_l1(ops: list[Operation]) -> list[Operation]:
    """`ops` between `d2m.pack_l1_acc` on and off: their packs add onto the blocks they
    pack into (the L1-accumulating generics of d2m-row-sum-on-pack, d2m-split-prologue)."""
    on, off = (arith.ConstantOp(IntegerAttr(flag, i1)) for flag in (1, 0))
    return [on, d2m.PackL1AccOp(on.result), *ops, off, d2m.PackL1AccOp(off.result)]


def declare_local_cb(anchor: Operation, block_type: MemRefType, buffers: int) -> SSAValue:
    """A new compute-local CB of `buffers` blocks of `block_type`, declared at the entry
    of `anchor`'s compute region after the local CBs declared so far (their order is
    their CB id order)."""
    entry = compute_entry(anchor)
    assert entry is not None
    local_cb = d2m.LocalCBOp(d2m.CBType(block_type, buffers))
    declared = [op for op in entry.ops if isinstance(op, d2m.LocalCBOp)]
    where = InsertPoint.after(declared[-1]) if declared else InsertPoint.at_start(entry)
    Rewriter.insert_op(local_cb, where)
    return local_cb.result
