"""d2m-packer-l1-accumulate: a block accumulated by a matmul across the iterations of a
loop, and read only after it (`acc = acc + a @ b` streaming K blocks), is summed by
the packer in L1 (tt-metal's `pack_reconfig_l1_acc`): every iteration packs its own
`a @ b` onto the same CB pages, which add it to what they hold, instead of copying the
running sum from its CB into DST (copy_tile) and packing the new sum into the other
block of a ping-pong CB.

d2m-bufferize holds a loop-carried block in a two-block local CB: the init is stored
into it before the loop; each iteration waits for the current block, reserves the
next, writes the new value there, pushes it and pops the old one; after the loop the
result is waited for. d2m-accumulate-into-dst has made `acc + a @ b` a matmul onto a
prologue copy of the accumulator tile. A loop qualifies when:

- its body has a generic whose only ops are that copy (`d2m.tile_copy` of the
  accumulator input, `d2m.prologue`) and `d2m.tile_matmul` onto it, yielded (the
  accumulator is only added to: no rescale such as `acc * alpha + p @ v`, no epilogue);
- the accumulator input is read through the output's indexing map (tile (i, j) is added
  onto tile (i, j)), by this generic alone, and the output is written by it alone;
- the accumulator is a local CB used exactly as d2m-bufferize carries a block: reserve
  and push before the loop, wait, reserve, push and pop in the loop (the wait and
  reserve before the generic, the push and pop after it), wait and pop after the loop
  (so nothing in the loop reads the running sum);
- the CB's tiles are bf16 or f32: the packer accumulates in L1 only in formats whose
  values it can add in place (tt-llk 0.81.1's `supports_l1_accumulation`: Float32,
  Float16_b, Float16, Int32; a block-float page shares exponents and cannot).

Reductions are left alone: their packer runs with edge masks (tt-metal pairs L1
accumulation only with matmul). The rewrite:

- the CB holds one block (no ping-pong): reserved before the loop, written by every
  iteration's generic, pushed after the loop;
- the generic reads no accumulator: its matmul starts from DST's zeros (the
  `d2m.l1_accumulate` attribute: d2m-lower-to-loops loads nothing into DST) and its
  packs add onto the block while `d2m.pack_l1_acc` is on;
- an init that fills the block with zeros, before a loop of constant bounds that runs
  at least once, is dropped: the first iteration packs over the block and accumulation
  is switched on at the second (tt-metal's matmul: `pack_reconfig_l1_acc(0)` for K block
  0, `(1)` from block 1). Any other init is packed normally and accumulation is on from
  the first iteration;
- when the generic is the loop's only generic, accumulation goes on once (before the
  loop, or in an `scf.if` at the second iteration) and off after the loop; otherwise
  it goes on before the generic (`iv != lb` after a dropped zero fill) and off after it,
  so the loop's other packs overwrite as before.

Numerics: each iteration's partial sum is rounded to the CB's format in DST (from zero)
and the sum once more by the packer; before, the running sum was copied into DST and
every matmul onto it rounded it (docs/passes.md states the measured error).

Before (examples/matmul.py's K loop after d2m-accumulate-into-dst):

    %acc_cb = d2m.local_cb : !d2m.cb<!blk>
    %r0 = d2m.reserve %acc_cb : !d2m.cb<!blk> -> !blk
    linalg.generic {...} outs(%r0 : !blk) { d2m.tile_fill 0.0 }
    d2m.push %acc_cb : !d2m.cb<!blk>
    scf.for %k = %c0 to %c4 step %c1 {
      %acc = d2m.wait %acc_cb : !d2m.cb<!blk> -> !blk
      %next = d2m.reserve %acc_cb : !d2m.cb<!blk> -> !blk
      %a = d2m.wait %a_cb ...
      %b = d2m.wait %b_cb ...
      linalg.generic {...} ins(%a, %b, %acc : !blk, !blk, !blk) outs(%next : !blk) {
      ^bb0(%x: !tile, %y: !tile, %s: !tile, %o: !tile):
        %c = d2m.tile_copy %s {d2m.prologue} : !tile
        %m = d2m.tile_matmul %x, %y, %c : !tile, !tile
        linalg.yield %m : !tile
      }
      d2m.pop %b_cb ...
      d2m.pop %a_cb ...
      d2m.push %acc_cb : !d2m.cb<!blk>
      d2m.pop %acc_cb : !d2m.cb<!blk>
    }
    %sum = d2m.wait %acc_cb : !d2m.cb<!blk> -> !blk

After (the zero fill dropped; accumulation on from the second K step):

    %acc_cb = d2m.local_cb : !d2m.cb<!blk, 1>
    %r0 = d2m.reserve %acc_cb : !d2m.cb<!blk, 1> -> !blk
    scf.for %k = %c0 to %c4 step %c1 {
      %second = arith.addi %c0, %c1 : index
      %is_second = arith.cmpi eq, %k, %second : index
      scf.if %is_second {
        %true = arith.constant true
        d2m.pack_l1_acc %true
      }
      %a = d2m.wait %a_cb ...
      %b = d2m.wait %b_cb ...
      linalg.generic {...} ins(%a, %b : !blk, !blk) outs(%r0 : !blk) attrs = {d2m.l1_accumulate} {
      ^bb0(%x: !tile, %y: !tile, %o: !tile):
        %m = d2m.tile_matmul %x, %y, %o : !tile, !tile
        linalg.yield %m : !tile
      }
      d2m.pop %b_cb ...
      d2m.pop %a_cb ...
    }
    %false = arith.constant false
    d2m.pack_l1_acc %false
    d2m.push %acc_cb : !d2m.cb<!blk, 1>
    %sum = d2m.wait %acc_cb : !d2m.cb<!blk, 1> -> !blk

Loops that do not qualify are left alone. Fails (PassError) on generics still on
tensors (run d2m-bufferize first).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, ModuleOp, UnitAttr, i1
from xdsl.dialects.linalg.ops import GenericOp, YieldOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from ttlang.dialects import d2m
from ttlang.dialects.ttcore import DataType, TileType, constant_int
from ttlang.transforms.analysis.dst_liveness import (
    EPILOGUE_ATTR,
    L1_ACCUMULATE_ATTR,
    PROLOGUE_ATTR,
    body_ops,
    fill_value,
)
from ttlang.transforms.compute_region import bufferized_compute_generics

L1_ACCUMULATING_FORMATS = frozenset({DataType.BF16, DataType.F32})
"""Tile formats the packer can accumulate into in L1 (of those ttlang has)."""


@dataclass(frozen=True)
class _CarriedSum:
    """A loop-carried block that a loop's generic only adds a matmul to."""

    loop: scf.ForOp
    generic: GenericOp
    acc_input: int  # the accumulator's index among the generic's inputs
    cb: d2m.LocalCBOp
    before: tuple[d2m.ReserveOp, d2m.PushOp]  # the init's reserve and push
    inside: tuple[d2m.WaitOp, d2m.ReserveOp, d2m.PushOp, d2m.PopOp]


def _only_adds_matmul(generic: GenericOp, acc_input: int) -> bool:
    """Whether the body is `copy(acc) {prologue}; matmul(a, b, copy); yield`, with the
    accumulator read through the output's map and used nowhere else."""
    block = generic.body.block
    acc, out = block.args[acc_input], block.args[-1]
    maps = generic.indexing_maps.data
    if maps[acc_input] != maps[-1] or out.uses:
        return False
    ops = body_ops(generic)
    if len(ops) != 2:
        return False
    copy, matmul = ops
    yielded = block.last_op
    assert isinstance(yielded, YieldOp)
    return (
        isinstance(copy, d2m.TileCopyOp)
        and PROLOGUE_ATTR in copy.attributes
        and copy.operands[0] is acc
        and len(list(acc.uses)) == 1
        and isinstance(matmul, d2m.TileMatmulOp)
        and EPILOGUE_ATTR not in matmul.attributes
        and matmul.operands[-1] is copy.results[0]
        and len(list(copy.results[0].uses)) == 1
        and yielded.operands[0] is matmul.results[0]
    )


def _in_order(ops: list[Operation], kinds: tuple[type[Operation], ...]) -> bool:
    """Whether `ops`, all in one block, are one op of each of `kinds` in that order."""
    block = ops[0].parent_block() if ops else None
    if block is None or any(op.parent_block() is not block for op in ops):
        return False
    ordered = sorted(ops, key=block.get_operation_index)
    return len(ordered) == len(kinds) and all(
        isinstance(op, kind) for op, kind in zip(ordered, kinds)
    )


def _carried_sum(generic: GenericOp) -> _CarriedSum | None:
    """The loop-carried sum `generic` accumulates, when it qualifies (module docstring)."""
    loop = generic.parent_op()
    if not isinstance(loop, scf.ForOp) or not generic.outputs:
        return None
    next_block = generic.outputs[0].owner
    if not isinstance(next_block, d2m.ReserveOp) or not isinstance(next_block.cb.owner, d2m.LocalCBOp):
        return None
    cb = next_block.cb
    cb_type = cb.type
    assert isinstance(cb_type, d2m.CBType)
    tile = cb_type.block.get_element_type()
    if not isinstance(tile, TileType) or tile.element_format not in L1_ACCUMULATING_FORMATS:
        return None
    reads = [
        i
        for i, value in enumerate(generic.inputs)
        if isinstance(value.owner, d2m.WaitOp) and value.owner.cb is cb
    ]
    if len(reads) != 1:
        return None
    (acc_input,) = reads
    if len(list(generic.inputs[acc_input].uses)) != 1 or len(list(generic.outputs[0].uses)) != 1:
        return None
    if not _only_adds_matmul(generic, acc_input):
        return None
    users = [use.operation for use in cb.uses]
    inside = [op for op in users if op.parent_block() is loop.body.block]
    outside = [op for op in users if op.parent_block() is loop.parent_block()]
    if len(inside) + len(outside) != len(users):
        return None
    # in the loop: wait, reserve, the generic, push, pop
    if not _in_order([*inside, generic], (d2m.WaitOp, d2m.ReserveOp, GenericOp, d2m.PushOp, d2m.PopOp)):
        return None
    # around it: reserve and push (the init), the loop, wait and pop (the result)
    kinds = (d2m.ReserveOp, d2m.PushOp, scf.ForOp, d2m.WaitOp, d2m.PopOp)
    if not _in_order([*outside, loop], kinds):
        return None
    block = loop.body.block
    wait, reserve, push, pop = sorted(inside, key=block.get_operation_index)
    parent = loop.parent_block()
    assert parent is not None
    init_reserve, init_push = sorted(outside, key=parent.get_operation_index)[:2]
    return _CarriedSum(
        loop, generic, acc_input, next_block.cb.owner, (init_reserve, init_push),
        (wait, reserve, push, pop),
    )  # fmt: skip


def _zero_fill_before(sum_: _CarriedSum) -> GenericOp | None:
    """The init generic, when it fills the block with zeros and the loop runs at least
    once (constant bounds): the first iteration can pack over the block instead."""
    (init_reserve, _), loop = sum_.before, sum_.loop
    users = [use.operation for use in init_reserve.result.uses]
    if len(users) != 1 or not isinstance(users[0], GenericOp):
        return None
    init = users[0]
    if fill_value(init) != 0.0:
        return None
    lb, ub = constant_int(loop.lb), constant_int(loop.ub)
    if lb is None or ub is None or ub <= lb:
        return None
    return init


def _switch_on_after_first(loop: scf.ForOp, before: Operation | None) -> None:
    """`d2m.pack_l1_acc` on from the loop's second iteration: `(iv != lb)` before
    `before` every iteration, or once, at the top of the second iteration, when `before`
    is None."""
    body = loop.body.block
    iv = body.args[0]
    if before is not None:
        not_first = arith.CmpiOp(iv, loop.lb, "ne")
        Rewriter.insert_op([not_first, d2m.PackL1AccOp(not_first.result)], InsertPoint.before(before))
        return
    second = arith.AddiOp(loop.lb, loop.step)
    is_second = arith.CmpiOp(iv, second.result, "eq")
    on = arith.ConstantOp(IntegerAttr(1, i1))
    switch = scf.IfOp(is_second.result, [], [on, d2m.PackL1AccOp(on.result), scf.YieldOp()])
    Rewriter.insert_op([second, is_second, switch], InsertPoint.at_start(body))


def _accumulate_in_l1(sum_: _CarriedSum) -> None:
    """Rewrites a qualifying loop (module docstring)."""
    generic, loop = sum_.generic, sum_.loop
    init_reserve, init_push = sum_.before
    wait, reserve, push, pop = sum_.inside
    zero_fill = _zero_fill_before(sum_)
    cb_type = sum_.cb.result.type
    assert isinstance(cb_type, d2m.CBType)
    Rewriter.replace_op(sum_.cb, d2m.LocalCBOp(d2m.CBType(cb_type.block, 1)))

    block = generic.body.block
    copy, matmul = body_ops(generic)
    matmul.operands = [*matmul.operands[:-1], block.args[-1]]
    Rewriter.erase_op(copy)
    block.erase_arg(block.args[sum_.acc_input])
    inputs = [v for i, v in enumerate(generic.inputs) if i != sum_.acc_input]
    maps = [m for i, m in enumerate(generic.indexing_maps.data) if i != sum_.acc_input]
    accumulating = GenericOp(
        inputs, [init_reserve.result], generic.detach_region(generic.body),
        ArrayAttr(maps), generic.iterator_types, [],
    )  # fmt: skip
    accumulating.attributes.update(generic.attributes)
    accumulating.attributes[L1_ACCUMULATE_ATTR] = UnitAttr()
    Rewriter.replace_op(generic, accumulating)
    for op in (wait, reserve, push, pop, init_push):
        Rewriter.erase_op(op)

    only_generic = [op for op in loop.walk() if isinstance(op, GenericOp)] == [accumulating]
    around = loop if only_generic else accumulating
    if zero_fill is not None:  # the first iteration packs over the block
        Rewriter.erase_op(zero_fill)
        _switch_on_after_first(loop, None if only_generic else accumulating)
    else:
        on = arith.ConstantOp(IntegerAttr(1, i1))
        Rewriter.insert_op([on, d2m.PackL1AccOp(on.result)], InsertPoint.before(around))
    off = arith.ConstantOp(IntegerAttr(0, i1))
    disable = d2m.PackL1AccOp(off.result)
    Rewriter.insert_op([off, disable], InsertPoint.after(around))
    pushed_after = disable if only_generic else loop
    Rewriter.insert_op(d2m.PushOp(init_reserve.cb), InsertPoint.after(pushed_after))


@dataclass(frozen=True)
class D2MPackerL1Accumulate(ModulePass):
    """Loop-carried matmul sums accumulate in L1 through the packer."""

    name = "d2m-packer-l1-accumulate"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for generic in bufferized_compute_generics(op):
            found = _carried_sum(generic)
            if found is not None:
                _accumulate_in_l1(found)
