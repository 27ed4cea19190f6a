"""Helpers for rewriting a `d2m.generic`'s compute region: finding it, placing ops in
program order, and declaring compute-local CBs (shared by the passes that create
temporaries: bufferization, d2m-memref-provenance, spilling)."""

from __future__ import annotations

from xdsl.dialects.builtin import MemRefType
from xdsl.dialects.linalg.ops import GenericOp
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
