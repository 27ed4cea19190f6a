"""ttkernel-drop-zero-fills: erases the `fill_tile(dst, 0.0)` calls of compute kernels
that write zeros over the zeros a DST section starts with.

`tile_regs_acquire` hands the math thread a DST section whose tiles are zero (the
packer clears a section when it releases it; docs/kernel_api.md, "DST semantics the
compiler relies on"), so a fill with +0.0 before anything else in the section writes
DST changes nothing. `zeros(shape)` blocks are such fills: FlashAttention's running sum
and accumulator, refilled per Q chunk, cost an SFPU fill (96 modeled cycles,
docs/cost_model.md) per tile for nothing.

Input: compute kernels as convert-d2m-to-ttkernel leaves them, every compute call
directly after its init (the next pass, ttkernel-place-inits, hoists and merges them).
In each DST section (`tile_regs_acquire` to `tile_regs_commit` in one block), in
program order: a `fill_tile` of +0.0 (an `arith.constant` operand; -0.0 is another bit
pattern) before any other compute call of the section is erased with its
`fill_tile_init`; so are the fills of a loop or branch whose compute calls are all
such fills. The first other compute call (in the section's block, or in a loop or
branch there) ends it: every later fill of the section stays, since a loop body runs
again after its other calls. A section with a MAX `reduce_tile` keeps all its fills: a
MAX reduce into a tile not yet written in the section starts from its input, not from
the cleared zeros (docs/kernel_api.md), so its zero fill is what makes it
`maximum(rowmax(x), 0.0)`.

Before (a 2x2-tile block of zeros):

    ttkernel.tile_regs_acquire()
    scf.for %i = %c0 to %c4 step %c1 : i32 {
      ttkernel.fill_tile_init()
      ttkernel.fill_tile(%i, %zero)
    }
    ttkernel.tile_regs_commit()

After (the section packs DST's zeros):

    ttkernel.tile_regs_acquire()
    scf.for %i = %c0 to %c4 step %c1 : i32 {
    }
    ttkernel.tile_regs_commit()

(canonicalize removes the empty loop). Fails (PassError) on a zero fill that does not
directly follow its `fill_tile_init` (input not from convert-d2m-to-ttkernel).
"""

from __future__ import annotations

import math

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, ModuleOp
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from ttlang.dialects import ttkernel
from ttlang.transforms.diagnostics import PassError
from ttlang.transforms.ttkernel_place_inits import INIT_OF, compute_kernels


def _is_zero_fill(op: Operation) -> bool:
    if not isinstance(op, ttkernel.FillTileOp):
        return False
    const = op.value.owner
    if not isinstance(const, arith.ConstantOp) or not isinstance(const.value, FloatAttr):
        return False
    value = const.value.value.data
    return value == 0.0 and math.copysign(1.0, value) > 0


def _compute_calls(op: Operation) -> list[Operation]:
    return [inner for inner in op.walk() if type(inner) in INIT_OF]


def _has_max_reduce(acquire: Operation) -> bool:
    """Whether the DST section `acquire` opens runs a MAX reduce (to its commit)."""
    op = acquire.next_op
    while op is not None and not isinstance(op, ttkernel.TileRegsCommitOp):
        for inner in op.walk():
            if isinstance(inner, ttkernel.ReduceTileOp) and inner.pool_type.data is ttkernel.PoolType.MAX:
                return True
        op = op.next_op
    return False


def _erase_fill(fill: Operation) -> None:
    init = fill.prev_op
    if not isinstance(init, ttkernel.FillTileInitOp):
        raise PassError(
            fill,
            "does not directly follow its ttkernel.fill_tile_init; ttkernel-drop-zero-fills "
            "takes convert-d2m-to-ttkernel's output, where every compute call follows its init.",
        )
    Rewriter.erase_op(fill)
    Rewriter.erase_op(init)


def drop_zero_fills(block: Block) -> None:
    """Erases the zero fills at the start of every DST section in `block` and in the
    blocks nested in it."""
    fresh: bool | None = None  # in a section of this block: nothing but zeros so far
    for op in list(block.ops):
        if isinstance(op, ttkernel.TileRegsAcquireOp):
            fresh = not _has_max_reduce(op)
        elif isinstance(op, ttkernel.TileRegsCommitOp):
            fresh = None
        elif fresh is None:
            for region in op.regions:
                for inner in region.blocks:
                    drop_zero_fills(inner)
        else:
            calls = _compute_calls(op)
            if fresh and calls and all(_is_zero_fill(call) for call in calls):
                for call in calls:
                    _erase_fill(call)
            elif calls:
                fresh = False


class TTKernelDropZeroFills(ModulePass):
    """Erases zero fills of compute kernels that DST's cleared sections make redundant."""

    name = "ttkernel-drop-zero-fills"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in compute_kernels(op):
            drop_zero_fills(kernel.body.block)
