"""d2m-hand-off-on-pack: a copy of a block that a generic has just computed, into a
block reserved before that generic, becomes a second pack of the generic: it packs its
result tiles into both blocks while they are still in DST. The copy's DST section is
gone (a `copy_init`, a `copy_tile` per tile, its packs and the section's sync).

d2m-bufferize makes these copies when a value is both stored into a reserved block and
read again: a loop-carried block whose next value the iteration also reads
(FlashAttention's `m_new = maximum(m, s.rowmax())`, read by `s - m_new` and
`alpha = exp(m - m_new)`) is computed into a temporary, because the unpacker reads a CB
only at its front, which still holds the current value; at the end of the iteration the
hand-off copies the temporary into the carried CB's next block (its back, reserved at
the top of the iteration). The same holds for a value stored as the init of a following
loop. Packing into the back does not touch the front, so the current value stays
readable until its CB is popped; pushes and pops keep their places.

A copy qualifies when, after d2m-memref-provenance (CB blocks), it is an identity
generic (one input, one output, its body yields the input tile) that

- reads the block `%t` of a wait whose block a generic `G` of the same block wrote
  (reserve, `G`, push, wait: `G`'s first output);
- writes a reserved block `%next`, reserved before `G`, that nothing else uses;
- and `G` does not accumulate its packs in L1 (`d2m.l1_accumulate`: the copy would copy
  the sum, the second pack would pack only `G`'s part).

The rewrite: `G` gets `%next` as one more output, read through the map of its first
output (the copy is tile for tile), its body yields its value once more; the copy is
erased, and the pop of `%t`'s CB that followed it moves up to the last remaining use of
`%t`. d2m-lower-to-loops packs a generic's result into every output block.

Before (FlashAttention's K step, after d2m-row-sum-on-pack):

    %m = d2m.wait %m_cb : ... -> !col                  // current row max
    %m_next = d2m.reserve %m_cb : ... -> !col          // the carried CB's back
    ...
    %w = d2m.reserve %t_cb : ... -> !col
    linalg.generic {indexing_maps = [..., (d0, d1, d2) -> (d0, d1, 0)], [par, par, red]}
        ins(%s, %scaler, %m) outs(%w) {
      %c = d2m.tile_copy %mt {d2m.prologue}
      %r = d2m.tile_reduce_max <row> %st, %sc, %c
      linalg.yield %r }
    d2m.push %t_cb
    %m_new = d2m.wait %t_cb : ... -> !col
    ... ins(%s, %m_new) ...                            // p = exp(s - m_new)
    ... ins(%m, %m_new) ...                            // alpha = exp(m - m_new)
    ...
    linalg.generic {[id, id], [par x 3]} ins(%m_new) outs(%m_next) {
      ^bb0(%a, %b): linalg.yield %a }
    d2m.pop %t_cb
    d2m.push %m_cb
    d2m.pop %m_cb

After:

    %m = d2m.wait %m_cb : ... -> !col
    %m_next = d2m.reserve %m_cb : ... -> !col
    ...
    %w = d2m.reserve %t_cb : ... -> !col
    linalg.generic {indexing_maps = [..., (d0, d1, d2) -> (d0, d1, 0), (d0, d1, d2) -> (d0, d1, 0)], [par, par, red]}
        ins(%s, %scaler, %m) outs(%w, %m_next) {
      %c = d2m.tile_copy %mt {d2m.prologue}
      %r = d2m.tile_reduce_max <row> %st, %sc, %c
      linalg.yield %r, %r }
    d2m.push %t_cb
    %m_new = d2m.wait %t_cb : ... -> !col
    ... ins(%s, %m_new) ...
    ... ins(%m, %m_new) ...
    d2m.pop %t_cb
    ...
    d2m.push %m_cb
    d2m.pop %m_cb

Other copies are left alone (a copy of a CB's block the reader filled, of a loop's
final block, into a block reserved after the generic). Fails (PassError) on generics
still on tensors (run d2m-bufferize first).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.ir import Operation
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from ttlang.dialects import d2m
from ttlang.transforms.analysis.dst_liveness import L1_ACCUMULATE_ATTR, body_ops, yielded_value
from ttlang.transforms.compute_region import (
    add_output,
    block_writer,
    bufferized_compute_generics,
    defined_before,
    last_user,
)


def _is_identity_copy(op: GenericOp) -> bool:
    """Whether `op` copies its one input block into its one output block, tile for tile."""
    if len(op.inputs) != 1 or len(op.outputs) != 1 or body_ops(op):
        return False
    rank = len(op.iterator_types)
    return (
        yielded_value(op) is op.body.block.args[0]
        and all(m.data == AffineMap.identity(rank) for m in op.indexing_maps.data)
        and all(it.data.value == "parallel" for it in op.iterator_types)
    )


def _hand_off_writer(copy: GenericOp) -> GenericOp | None:
    """The generic whose packs can write `copy`'s output too (module docstring)."""
    if not _is_identity_copy(copy):
        return None
    wait, reserve = copy.inputs[0].owner, copy.outputs[0].owner
    if not isinstance(wait, d2m.WaitOp) or wait.parent_block() is not copy.parent_block():
        return None
    if not isinstance(reserve, d2m.ReserveOp) or len(list(reserve.result.uses)) != 1:
        return None
    writer = block_writer(wait)
    if writer is None or L1_ACCUMULATE_ATTR in writer.attributes:
        return None
    return writer if defined_before(reserve.result, writer) else None


def _pop_after(copy: GenericOp, wait: d2m.WaitOp) -> d2m.PopOp | None:
    """The first pop of `wait`'s CB after `copy` in its block."""
    op: Operation | None = copy.next_op
    while op is not None:
        if isinstance(op, d2m.PopOp) and op.cb is wait.cb:
            return op
        op = op.next_op
    return None


def _pack_hand_off(copy: GenericOp, writer: GenericOp) -> None:
    """Rewrites a qualifying copy (module docstring)."""
    wait = copy.inputs[0].owner
    assert isinstance(wait, d2m.WaitOp)
    add_output(writer, copy.outputs[0], writer.indexing_maps.data[len(writer.inputs)])
    pop = _pop_after(copy, wait)
    Rewriter.erase_op(copy)
    block = wait.parent_block()
    if pop is not None and block is not None:
        pop.detach()
        Rewriter.insert_op(pop, InsertPoint.after(last_user(wait.result, block, wait)))


@dataclass(frozen=True)
class D2MHandOffOnPack(ModulePass):
    """Copies of a just-computed block into a block reserved before it -> a second pack."""

    name = "d2m-hand-off-on-pack"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # A writer comes before its copy (same block), so a replaced one is never visited.
        for copy in bufferized_compute_generics(op):
            writer = _hand_off_writer(copy)
            if writer is not None:
                _pack_hand_off(copy, writer)
