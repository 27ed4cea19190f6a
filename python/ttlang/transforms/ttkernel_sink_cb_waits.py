"""ttkernel-sink-cb-waits: moves each `cb_wait_front` of a compute kernel down to the
first operation that needs the pages it waits for, so the work in between runs while
the producer is still filling them.

Input: compute kernels as ttkernel-place-inits leaves them. convert-d2m-to-ttkernel
puts a generic's waits for its input CBs before the generic's first DST section, and
a loop's waits for its loop-carried CBs at the top of the body. When the producer is
the same thread's packer (the generic before), its last tiles are still being packed
there (the packer runs behind the math, docs/cost_model.md), and the wait holds the
unpacker and math until then, although the next calls need other CBs: an input of the
same generic already in L1, the inits, or the whole first generic of the next loop
iteration (a loop-carried CB is read at the end of the body).

A wait moves down its block past every operation that does not read or write `cb`'s
pages: operations on other CBs or on none (DST sections, math on other CBs' tiles,
index arithmetic), the inits and data-format reconfigurations (they configure the
engines for the CB's format, which is fixed, and touch no page: tt-metal kernels issue
them before their waits), and `cb_reserve_back` on `cb` itself (it waits for free
pages at the other end). It stops before the first other operation naming `cb`, or
holding one in its regions (a loop reading it, a `cb_pop_front`, a `pack_tile` into
it), and at the block's end; it never moves into a loop or out of one. A wait only
blocks and changes no state another thread sees, so waiting later cannot hold up any
other thread; what the thread did between the old and the new place does not read the
pages.

Before (the row max of a score block `%s`, just packed by the generic before, onto the
running max `%m`):

    ttkernel.cb_wait_front(%s, %c32)
    ttkernel.cb_reserve_back(%out, %c4)
    ttkernel.tile_regs_acquire()
    ttkernel.copy_tile_init(%m)
    scf.for %i = %c0 to %c4 step %c1 : i32 {
      ttkernel.copy_tile(%m, %i, %i)
    }
    ttkernel.reduce_init<max, row>(%s, %scaler, %out)
    scf.for %i = %c0 to %c32 step %c1 : i32 {
      ttkernel.reduce_tile<max, row>(%s, %scaler, %i, %c0, %c0)
    }

After (the copy of `%m` and the inits run while `%s`'s last tiles are packed):

    ttkernel.cb_reserve_back(%out, %c4)
    ttkernel.tile_regs_acquire()
    ttkernel.copy_tile_init(%m)
    scf.for %i = %c0 to %c4 step %c1 : i32 {
      ttkernel.copy_tile(%m, %i, %i)
    }
    ttkernel.reduce_init<max, row>(%s, %scaler, %out)
    ttkernel.cb_wait_front(%s, %c32)
    scf.for %i = %c0 to %c32 step %c1 : i32 {
      ttkernel.reduce_tile<max, row>(%s, %scaler, %i, %c0, %c0)
    }

Data-movement kernels are left as they are. Fails (PassError) on a CB operand of a
compute kernel's operation that is not a compile-time argument (convert-d2m-to-ttkernel
passes every CB as one): which CB it names, and so which waits it may pass, is unknown.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from ttlang.dialects import ttkernel
from ttlang.transforms.diagnostics import PassError
from ttlang.transforms.ttkernel_place_inits import INIT_OPS, cb_operands, compute_kernels

CONFIGURATION_OPS = (
    *INIT_OPS,
    ttkernel.ReduceUninitOp,
    ttkernel.ReconfigDataFormatOp,
    ttkernel.ReconfigDataFormatSrcaOp,
    ttkernel.ReconfigDataFormatSrcbOp,
    ttkernel.PackReconfigDataFormatOp,
)
"""Operations that configure the engines for a CB's data format and touch no page."""


def cb_index(cb: SSAValue, user: Operation, depending: str = "which waits may move past it") -> int:
    """The compile-time argument `cb` is (two SSA values of one index are one CB); the
    error says what `depending` on it the pass cannot tell."""
    owner = cb.owner
    if not isinstance(owner, ttkernel.GetCompileTimeArgValOp):
        raise PassError(
            user,
            f"names a CB that is not a compile-time argument; which CB it is, and so {depending}, is unknown.",
        )
    return owner.index.value.data


def touches_pages(op: Operation, index: int) -> bool:
    """Whether `op`, or an operation in its regions, reads or writes CB `index`'s pages
    or its counts (configuration ops and a reserve on the back do not)."""
    for inner in op.walk():
        if isinstance(inner, CONFIGURATION_OPS):
            continue
        if isinstance(inner, ttkernel.CBReserveBackOp) and inner is op:
            continue
        if any(cb_index(cb, inner) == index for cb in cb_operands(inner)):
            return True
    return False


def checkcb_operands(kernel: func.FuncOp, depending: str = "which waits may move past it") -> None:
    """Raises PassError on a CB operand that is not a compile-time argument (`cb_index`'s
    `depending`)."""
    for op in kernel.walk():
        for cb in cb_operands(op):
            cb_index(cb, op, depending)


def move_in_blocks(
    module: ModuleOp, op_type: type[Operation], move: Callable[[Operation, Block], None]
) -> None:
    """`move(op, block)` for every `op_type` operation of the module's compute kernels,
    innermost blocks first (each within its block), after checking their CB operands."""

    def walk(block: Block) -> None:
        for op in list(block.ops):
            for region in op.regions:
                for inner in region.blocks:
                    walk(inner)
        for op in [op for op in block.ops if isinstance(op, op_type)]:
            move(op, block)

    for kernel in compute_kernels(module):
        checkcb_operands(kernel)
        walk(kernel.body.block)


def _sink(wait: Operation, block: Block) -> None:
    """`wait` down to the first operation after it that touches its CB's pages."""
    assert isinstance(wait, ttkernel.CBWaitFrontOp)
    index = cb_index(wait.cb, wait)
    stop = wait.next_op
    assert stop is not None, "a block ends with its terminator"
    while stop is not block.last_op and not touches_pages(stop, index):
        stop = stop.next_op
        assert stop is not None
    if stop is not wait.next_op:
        wait.detach()
        block.insert_op_before(wait, stop)


class TTKernelSinkCBWaits(ModulePass):
    """Moves the `cb_wait_front`s of compute kernels down to the first use of their CB."""

    name = "ttkernel-sink-cb-waits"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        move_in_blocks(op, ttkernel.CBWaitFrontOp, _sink)
