"""ttkernel-hoist-cb-pushes: moves each `cb_push_back` of a compute kernel up to just
after the last operation that writes the pages it publishes, so a reader of the CB
does not wait for the packs of other CBs issued in between.

Input: compute kernels as ttkernel-sink-cb-waits leaves them. d2m-bufferize pushes a
loop-carried block at the end of the loop body, after every generic of the iteration
(FlashAttention's running max and sum, then the accumulator). The packer runs the
pushes in program order after the packs before them (docs/cost_model.md), so the max
and sum pushed after the accumulator's packs are published only once those are done:
after the loop, the sum's row sum (and a wait on the max) waits for the packer to
finish the accumulator, although its own tiles were packed long before.

A push moves up its block past every operation that does not work on its CB's back:
operations on other CBs or on none (DST sections packing other CBs, index arithmetic),
inits and data-format reconfigurations, and the consumer side of the same CB (waits,
pops, the unpacking calls reading its front: a CB is a FIFO, the front pages they see
are the older ones whether the newer are published or not, and a wait that was met
stays met). It stops below the first operation packing into the CB, reserving or
pushing on it or taking its write pointer (a loop or DST section holding one too), and
below the definitions of its operands; it never moves into a loop or out of one.
Right after a section's packs it goes below the section's `tile_regs_release` (as
tt-metal's kernels push: pack, release, push).
Publishing pages already written holds up no thread: they are complete, and a
consumer only sees them sooner.

Before (the running sum `%l`'s last pack, then the accumulator's section):

    scf.for ... { ttkernel.pack_tile(%i, %l, %i) }
    ttkernel.tile_regs_release()
    ttkernel.tile_regs_acquire()
    ...                                                // matmul into DST
    scf.for ... { ttkernel.pack_tile(%i, %acc, %i) }
    ttkernel.tile_regs_release()
    ttkernel.cb_push_back(%l, %c4)
    ttkernel.cb_pop_front(%l, %c4)                     // %l's previous block
    ttkernel.cb_push_back(%acc, %c8)

After:

    scf.for ... { ttkernel.pack_tile(%i, %l, %i) }
    ttkernel.tile_regs_release()
    ttkernel.cb_push_back(%l, %c4)
    ttkernel.tile_regs_acquire()
    ...
    scf.for ... { ttkernel.pack_tile(%i, %acc, %i) }
    ttkernel.tile_regs_release()
    ttkernel.cb_push_back(%acc, %c8)
    ttkernel.cb_pop_front(%l, %c4)

Data-movement kernels are left as they are. Fails (PassError) on a CB operand of a
compute kernel's operation that is not a compile-time argument, as
ttkernel-sink-cb-waits does.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass

from ttlang.dialects import ttkernel
from ttlang.transforms.ttkernel_place_inits import cb_operands
from ttlang.transforms.ttkernel_sink_cb_waits import cb_index, move_in_blocks


BACK_OPS = (
    ttkernel.PackTileOp,
    ttkernel.CBReserveBackOp,
    ttkernel.CBPushBackOp,
    ttkernel.GetWritePtrOp,
)
"""The operations of a compute kernel on a CB's back: its writes and its producer-side
counts (every other operation naming a CB reads its front or only its format)."""


def _blocks_push(op: Operation, push: ttkernel.CBPushBackOp, index: int) -> bool:
    """Whether `push` may not move above `op`: `op` (or an operation in its regions)
    works on CB `index`'s back, or `op` defines one of the push's operands."""
    if any(result in push.operands for result in op.results):
        return True
    return any(
        isinstance(inner, BACK_OPS) and any(cb_index(cb, inner) == index for cb in cb_operands(inner))
        for inner in op.walk()
    )


def _hoist(push: Operation, block: Block) -> None:
    """`push` up to just after the last operation before it working on its CB's back
    (below that section's release)."""
    assert isinstance(push, ttkernel.CBPushBackOp)
    index = cb_index(push.cb, push)
    above = push.prev_op
    while above is not None and not _blocks_push(above, push, index):
        above = above.prev_op
    if above is not None and isinstance(above.next_op, ttkernel.TileRegsReleaseOp):
        above = above.next_op  # after the section's end, as tt-metal kernels push
    if above is not push.prev_op:
        push.detach()
        if above is None:
            block.insert_op_before(push, block.first_op)
        else:
            block.insert_op_after(push, above)


class TTKernelHoistCBPushes(ModulePass):
    """Moves the `cb_push_back`s of compute kernels up to the last write of their CB."""

    name = "ttkernel-hoist-cb-pushes"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        move_in_blocks(op, ttkernel.CBPushBackOp, _hoist)
