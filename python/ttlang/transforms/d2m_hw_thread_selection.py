"""d2m-hw-thread-selection: merges a generic's data-movement threads down to the two
data-movement RISC-Vs a core has (`d2m.GenericOp.MAX_DATAMOVEMENT_THREADS`: BRISC and
NCRISC).

d2m-generate-datamovement adds a new data-movement thread for an implicit operand's
reader or writer when the kernel has no empty (`pass`) one left, so a tt-lang kernel
with two busy hand-written readers and an implicit output arrives here with three.
(tt-mlir does the same in two passes: `d2m-generic-generate-datamovement`, then
`d2m-generic-hw-thread-selection`, which merges data-movement regions onto the
hardware's threads.)

While a generic has too many data-movement threads, its last one (the generated
threads come last) is merged into a thread the core keeps:

- an empty thread is dropped;
- a writer (it waits on CBs and writes them to DRAM; no reserve, DRAM read, multicast
  or semaphore) is appended after the last kept data-movement thread's body;
- a reader (it reserves CBs and fills them; no wait and no DRAM write) is prepended
  before the first kept data-movement thread's body;
- anything else cannot be merged: a PassError at the generic.

Regions share their block arguments' layout (operand CBs, kernel-local CBs,
semaphores), so a merged body's arguments map one to one onto its target's; a
kernel-local CB keeps its block count, since generated threads never use one.

The rule that keeps a merge from deadlocking: the merged writer runs only after the
thread's own work, so nothing drains its CBs until then; the compute thread would stop
on a full output CB while the thread it shares waits for compute (its reader's next
block never gets consumed). So every CB the merged writer waits on (the merged reader
reserves) grows to hold all the blocks it moves on a core: the compute thread never
waits for the merged writer, and the merged reader never waits for compute. The
per-core block count is the sum, over the thread's waits (reserves) on the CB, of the
trip counts of the loops around them (loop bounds must be constants). The generic
records the grown CBs' operand indices in its `cbs_holding_all_blocks` attribute, so
that the L1 budget check of program assembly, when they do not fit, says why they are
that large.

Before (an implicit `out` whose writer got a third thread; 4 output blocks per core):

    d2m.generic {..., threads = [#d2m.thread<compute>, #d2m.thread<datamovement>,
                 #d2m.thread<datamovement>, #d2m.thread<datamovement>]}
        ins(%lhs, %rhs : ...) outs(%out : ...) {
    ^bb0(%lhs_cb: !cb, %rhs_cb: !cb, %out_cb: !cb):   ... compute ...
    }, {
    ^bb0(%lhs_cb: !cb, %rhs_cb: !cb, %out_cb: !cb):   ... reads lhs ...
    }, {
    ^bb0(%lhs_cb: !cb, %rhs_cb: !cb, %out_cb: !cb):   ... reads rhs ...
    }, {
    ^bb0(%lhs_cb: !cb, %rhs_cb: !cb, %out_cb: !cb):
      scf.for %d0 = %c0 to %c4 step %c1 {
        %blk = d2m.wait %out_cb ...
        %tx = d2m.dma_write %blk, %out[...]
        d2m.dma_wait %tx
        d2m.pop %out_cb
      }
    }

After (`out`'s CB holds its 4 blocks; the writer follows rhs's reads):

    d2m.generic {..., threads = [#d2m.thread<compute>, #d2m.thread<datamovement>,
                 #d2m.thread<datamovement>], cbs_holding_all_blocks = [2]}
        ins(%lhs, %rhs : ...) outs(%out : ...) {
    ^bb0(%lhs_cb: !cb, %rhs_cb: !cb, %out_cb: !d2m.cb<memref<...>, 4>):   ... compute ...
    }, {
    ^bb0(...):   ... reads lhs ...
    }, {
    ^bb0(...):
      ... reads rhs ...
      scf.for %d0 = %c0 to %c4 step %c1 { ... the writer ... }
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import ArrayAttr, IntAttr, ModuleOp
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from ttlang.dialects import d2m
from ttlang.dialects.ttcore import constant_int
from ttlang.transforms.diagnostics import PassError

_SEMAPHORE_OPS = (d2m.SemaphoreSetOp, d2m.SemaphoreIncOp, d2m.SemaphoreWaitOp)
_READER_ONLY = (d2m.ReserveOp, d2m.DMAReadOp, d2m.DMAMulticastOp, *_SEMAPHORE_OPS)
_WRITER_ONLY = (d2m.WaitOp, d2m.DMAWriteOp)


def _is_writer(block: Block) -> bool:
    ops = list(block.walk())
    return any(isinstance(op, d2m.DMAWriteOp) for op in ops) and not any(
        isinstance(op, _READER_ONLY) for op in ops
    )


def _is_reader(block: Block) -> bool:
    ops = list(block.walk())
    return any(isinstance(op, d2m.DMAReadOp) for op in ops) and not any(
        isinstance(op, _WRITER_ONLY) for op in ops
    )


def _trip_count(op: Operation, generic: d2m.GenericOp) -> int:
    """How many times `op` runs per core: the product of its loops' constant trip
    counts (an `scf.if` counts as taken)."""
    count = 1
    parent = op.parent_op()
    while parent is not None and parent is not generic:
        if isinstance(parent, scf.ForOp):
            bounds = [constant_int(v) for v in (parent.lb, parent.ub, parent.step)]
            if None in bounds:
                raise PassError(
                    generic,
                    "has more data-movement threads than a core runs, and the one to merge "
                    "loops over a bound that is not a constant, so its CBs cannot be sized "
                    "to hold all their blocks; make a data-movement thread's body `pass`",
                )
            lower, upper, step = bounds
            count *= max(0, -(-(upper - lower) // step))
        parent = parent.parent_op()
    return count


def _grow_cbs(
    generic: d2m.GenericOp, block: Block, acquire: type[d2m.WaitOp] | type[d2m.ReserveOp]
) -> None:
    """Grows every CB `block` acquires with `acquire` to hold all the blocks it moves
    per core, in every thread's block arguments."""
    blocks_moved: dict[int, int] = {}
    for op in block.walk():
        if isinstance(op, acquire):
            cb = op.cb
            assert cb in block.args, "a CB operand is a thread's block argument"
            index = block.args.index(cb)
            blocks_moved[index] = blocks_moved.get(index, 0) + _trip_count(op, generic)
    grown = []
    for index, count in blocks_moved.items():
        cb_type = block.args[index].type
        assert isinstance(cb_type, d2m.CBType)
        if count <= cb_type.buffers.data:
            continue
        grown.append(index)
        for region in generic.thread_regions:
            Rewriter.replace_value_with_new_type(region.block.args[index], d2m.CBType(cb_type.block, count))
    if grown:
        attr = generic.attributes.get(d2m.GenericOp.CBS_HOLDING_ALL_BLOCKS)
        earlier = [i.data for i in attr.data] if isinstance(attr, ArrayAttr) else []
        generic.attributes[d2m.GenericOp.CBS_HOLDING_ALL_BLOCKS] = ArrayAttr(
            IntAttr(i) for i in sorted({*earlier, *grown})
        )


def _move_body(source: Block, target: Block, prepend: bool) -> None:
    for source_arg, target_arg in zip(source.args, target.args, strict=True):
        source_arg.replace_all_uses_with(target_arg)
    anchor = target.first_op
    for op in list(source.ops):
        op.detach()
        if prepend and anchor is not None:
            target.insert_op_before(op, anchor)
        else:
            target.add_op(op)


def select_hw_threads(generic: d2m.GenericOp) -> None:
    limit = d2m.GenericOp.MAX_DATAMOVEMENT_THREADS
    while True:
        kinds = generic.thread_kinds
        movers = [i for i, kind in enumerate(kinds) if kind == d2m.ThreadType.DATAMOVEMENT]
        if len(movers) <= limit:
            return
        last = movers[-1]
        block = generic.thread_regions[last].block
        if block.first_op is not None:
            if _is_writer(block):
                _grow_cbs(generic, block, d2m.WaitOp)
                target, prepend = generic.thread_regions[movers[limit - 1]].block, False
            elif _is_reader(block):
                _grow_cbs(generic, block, d2m.ReserveOp)
                target, prepend = generic.thread_regions[movers[0]].block, True
            else:
                raise PassError(
                    generic,
                    f"has {len(movers)} data-movement threads, but a core runs at most "
                    f"{limit}, and thread {last} both reads and writes (or waits on "
                    "semaphores while writing), so it cannot be merged into another; move "
                    "fewer operands by hand (implicit operands get generated movement) or "
                    "merge the threads yourself",
                )
            _move_body(block, target, prepend)
        generic.detach_region(last)
        generic.threads = ArrayAttr(d2m.ThreadAttr(k) for i, k in enumerate(kinds) if i != last)


@dataclass(frozen=True)
class D2MHWThreadSelection(ModulePass):
    """Merges every generic's data-movement threads onto the core's data-movement
    RISC-Vs."""

    name = "d2m-hw-thread-selection"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for generic in [o for o in op.walk() if isinstance(o, d2m.GenericOp)]:
            select_hw_threads(generic)
