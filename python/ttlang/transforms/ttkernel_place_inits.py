"""ttkernel-place-inits: places the engine (re)configuration calls (`*_init`) of compute
kernels so that each is issued as few times as the kernel allows.

Input: compute kernel functions as convert-d2m-to-ttkernel leaves them, every compute
call directly after the init configuring the engines for it (`INIT_OF`). An init costs
a reprogramming (tt-metal issue #56692 measures ~70 cycles a re-init site in SDPA; the
emulator's `kInit`), so the pass removes the ones that change nothing.

Inits configure one of two disjoint parts of the core (`init_group`): an SFPU init
(exp, recip, the SFPU binaries, fill, scalar ops, ...) programs the SFPU only (its
address modifier ADDR_MOD_7, which tt-llk keeps apart from those the FPU ops use, and
its constants); every other init programs the unpacker, the FPU and the packer. One of
each holds at once: tt-metal's SDPA issues `sub_bcast_cols_init_short` and
`exp_tile_init` once before a loop alternating `sub_tiles_bcast_cols` and `exp_tile`
(`sub_exp_block_bcast_cols_inplace`), and `copy_tile_to_dst_init_short` with
`recip_tile_init` before a loop of `copy_tile` and `recip_tile`.

- hoist: a loop (innermost first) whose inits are at most one init of each group, on
  operands defined outside it, gets those inits once, before the loop (a loop holding a
  `reduce_init` only when that is its one init: the `reduce_uninit` placed after it
  must not land before the loop);
- deduplicate: an init equal to the init in force for its group is erased
  (straight-line code; a loop body that has inits of a group starts from an unknown
  state of that group, and so does the code after it);
- reduce_uninit: after a `reduce_init`, the next init of another kind is preceded by
  `reduce_uninit` (a reduction reconfigures the packer, which the other ops need back),
  placed outside the loops around that init that hold no reduction, so it runs once.

Before:

    scf.for %i = ... {
      ttkernel.copy_tile_init(%in)
      ttkernel.copy_tile(%in, %i, %c0)
      ttkernel.exp_tile_init()
      ttkernel.exp_tile(%c0)
      ttkernel.exp_tile_init()
      ttkernel.exp_tile(%c0)
    }
    scf.for %j = ... {
      ttkernel.reduce_init<sum, row>(%a, %s, %o)
      ttkernel.reduce_tile<sum, row>(%a, %s, %j, %c0, %c0)
    }
    ttkernel.exp_tile_init()

After:

    ttkernel.copy_tile_init(%in)
    ttkernel.exp_tile_init()
    scf.for %i = ... {
      ttkernel.copy_tile(%in, %i, %c0)
      ttkernel.exp_tile(%c0)
      ttkernel.exp_tile(%c0)
    }
    ttkernel.reduce_init<sum, row>(%a, %s, %o)
    scf.for %j = ... {
      ttkernel.reduce_tile<sum, row>(%a, %s, %j, %c0, %c0)
    }
    ttkernel.reduce_uninit()
    ttkernel.exp_tile_init()

(the last exp_tile_init stays: the reduction's packer configuration came between.)

Fails (PassError) on a compute call that does not directly follow its init (input not
from convert-d2m-to-ttkernel, or already placed).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from ttlang.dialects import ttkernel
from ttlang.transforms.diagnostics import PassError

_SFPU_UNARY_INITS: dict[type[Operation], type[Operation]] = {
    ttkernel.ExpTileOp: ttkernel.ExpTileInitOp,
    ttkernel.RecipTileOp: ttkernel.RecipTileInitOp,
    ttkernel.SqrtTileOp: ttkernel.SqrtTileInitOp,
    ttkernel.RsqrtTileOp: ttkernel.RsqrtTileInitOp,
    ttkernel.NegativeTileOp: ttkernel.NegativeTileInitOp,
    ttkernel.AbsTileOp: ttkernel.AbsTileInitOp,
    ttkernel.AddBinaryTileOp: ttkernel.AddBinaryTileInitOp,
    ttkernel.SubBinaryTileOp: ttkernel.SubBinaryTileInitOp,
    ttkernel.MulBinaryTileOp: ttkernel.MulBinaryTileInitOp,
    ttkernel.DivBinaryTileOp: ttkernel.DivBinaryTileInitOp,
    ttkernel.BinaryMaxTileOp: ttkernel.BinaryMaxTileInitOp,
    ttkernel.CopyDestValuesOp: ttkernel.CopyDestValuesInitOp,
    ttkernel.WhereTileOp: ttkernel.WhereTileInitOp,
    ttkernel.FillTileOp: ttkernel.FillTileInitOp,
}

INIT_OF: dict[type[Operation], type[Operation]] = {
    ttkernel.CopyTileOp: ttkernel.CopyTileInitOp,
    ttkernel.MatmulTilesOp: ttkernel.MMInitOp,
    ttkernel.ReduceTileOp: ttkernel.ReduceInitOp,
    ttkernel.AddTilesOp: ttkernel.AddTilesInitOp,
    ttkernel.SubTilesOp: ttkernel.SubTilesInitOp,
    ttkernel.MulTilesOp: ttkernel.MulTilesInitOp,
    ttkernel.AddTilesBcastOp: ttkernel.InitBcastOp,
    ttkernel.SubTilesBcastOp: ttkernel.InitBcastOp,
    ttkernel.MulTilesBcastOp: ttkernel.InitBcastOp,
    ttkernel.BinaryDestReuseTilesOp: ttkernel.BinaryDestReuseTilesInitOp,
    ttkernel.UnaryBcastOp: ttkernel.UnaryBcastInitOp,
    ttkernel.TransposeWHTileOp: ttkernel.TransposeWHInitOp,
    **{call: ttkernel.BinopWithScalarTileInitOp for call in (
        ttkernel.AddUnaryTileOp, ttkernel.SubUnaryTileOp, ttkernel.MulUnaryTileOp,
        ttkernel.DivUnaryTileOp, ttkernel.RsubUnaryTileOp,
    )},  # fmt: skip
    **_SFPU_UNARY_INITS,
}
"""Each compute call -> the init that configures the engines for it."""

INIT_OPS = tuple(dict.fromkeys(INIT_OF.values()))

SFPU_INITS = (*dict.fromkeys(_SFPU_UNARY_INITS.values()), ttkernel.BinopWithScalarTileInitOp)
"""Inits that program the SFPU only (group "sfpu"); the others program unpacker, FPU
and packer (group "fpu")."""


def init_group(op: Operation) -> str:
    """The part of the core an init configures: "sfpu" or "fpu" (module docstring)."""
    return "sfpu" if isinstance(op, SFPU_INITS) else "fpu"


_GROUPS = ("fpu", "sfpu")

_State = dict[str, tuple[object, ...] | None]
"""The init in force per group (its `_init_key`), None where unknown."""


def _init_key(op: Operation) -> tuple[object, ...]:
    """Two inits with the same key configure the engines identically."""
    return (
        op.name,
        tuple(op.operands),
        tuple(sorted((k, str(v)) for k, v in op.properties.items())),
    )


def _inits_within(op: Operation) -> list[Operation]:
    return [inner for inner in op.walk() if isinstance(inner, INIT_OPS)]


def _groups_changed(inits: list[Operation]) -> set[str]:
    """The groups whose state `inits` may leave changed: a reduction's packer
    configuration (undone by reduce_uninit before the next init) counts for both."""
    if any(isinstance(init, ttkernel.ReduceInitOp) for init in inits):
        return set(_GROUPS)
    return {init_group(init) for init in inits}


def _defined_inside(value: SSAValue, loop: Operation) -> bool:
    owner = value.owner
    return loop.is_ancestor(owner if isinstance(owner, Operation) else owner.parent_op())


def check_inits_precede_calls(kernel: func.FuncOp) -> None:
    """Raises PassError on a compute call not directly after its init."""
    for op in kernel.walk():
        init = INIT_OF.get(type(op))
        if init is not None and not isinstance(op.prev_op, init):
            raise PassError(
                op,
                f"does not directly follow its {init.name}; ttkernel-place-inits takes "
                "convert-d2m-to-ttkernel's output, where every compute call follows its init.",
            )


def _hoistable(loop: scf.ForOp) -> list[Operation]:
    """The loop's inits, one per distinct init in order of first use, when they can all
    move before it: at most one per group (a reduce_init only alone), none on a value
    defined inside the loop; else []."""
    distinct: dict[tuple[object, ...], Operation] = {}
    for init in _inits_within(loop):
        distinct.setdefault(_init_key(init), init)
    hoisted = list(distinct.values())
    groups = [init_group(init) for init in hoisted]
    if len(set(groups)) != len(groups):
        return []
    if len(hoisted) > 1 and any(isinstance(init, ttkernel.ReduceInitOp) for init in hoisted):
        return []
    if any(_defined_inside(operand, loop) for init in hoisted for operand in init.operands):
        return []
    return hoisted


def hoist_invariant_inits(block: Block) -> None:
    """Moves the inits out of every loop (innermost first) whose inits are at most one
    per group, on loop-invariant operands: they then hold on every iteration."""
    for op in list(block.ops):
        for region in op.regions:
            for inner in region.blocks:
                hoist_invariant_inits(inner)
        if not isinstance(op, scf.ForOp):
            continue
        hoisted = _hoistable(op)
        keys = {_init_key(init) for init in hoisted}
        for init in hoisted:
            init.detach()
            block.insert_op_before(init, op)
        for duplicate in _inits_within(op) if hoisted else ():
            assert _init_key(duplicate) in keys
            Rewriter.erase_op(duplicate)


def drop_repeated_inits(block: Block, state: _State | None = None) -> _State:
    """Erases inits equal to the init in force for their group before them
    (straight-line; a loop's body starts from an unknown state in the groups it has
    inits of)."""
    state = dict(state) if state is not None else dict.fromkeys(_GROUPS)
    for op in list(block.ops):
        if isinstance(op, INIT_OPS):
            key, group = _init_key(op), init_group(op)
            if key == state[group]:
                Rewriter.erase_op(op)
                continue
            for changed in _groups_changed([op]):
                state[changed] = None
            state[group] = key
        elif op.regions:
            # A branch starts from the state before it; a loop body also from what
            # its own inits leave at the end of an iteration.
            before = dict(state)
            for group in _groups_changed(_inits_within(op)):
                state[group] = None
            entry = state if isinstance(op, scf.ForOp) else before
            for region in op.regions:
                for inner in region.blocks:
                    drop_repeated_inits(inner, entry)
    return state


def _outside_reduce_free_loops(op: Operation) -> Operation:
    """`op`, or its outermost enclosing loop that holds no `reduce_init` (one
    `reduce_uninit` there undoes the reduction for every iteration)."""
    anchor = op
    parent = op.parent_op()
    while isinstance(parent, scf.ForOp) and not any(
        isinstance(inner, ttkernel.ReduceInitOp) for inner in parent.walk()
    ):
        anchor, parent = parent, parent.parent_op()
    return anchor


def insert_reduce_uninits(block: Block) -> None:
    """Puts `reduce_uninit` before the first init of another kind that follows a
    `reduce_init` in program order, outside the loops around that init that hold no
    reduction (so it runs once, not on every iteration)."""
    reducing = False
    for op in list(block.walk()):
        if isinstance(op, ttkernel.ReduceInitOp):
            reducing = True
        elif reducing and isinstance(op, INIT_OPS):
            anchor = _outside_reduce_free_loops(op)
            parent = anchor.parent_block()
            assert parent is not None
            parent.insert_op_before(ttkernel.ReduceUninitOp(), anchor)
            reducing = False


@dataclass(frozen=True)
class TTKernelPlaceInits(ModulePass):
    """Hoists and deduplicates the inits of compute kernels; adds reduce_uninit."""

    name = "ttkernel-place-inits"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in op.body.block.ops:
            thread = kernel.attributes.get(ttkernel.THREAD_ATTR)
            if not isinstance(kernel, func.FuncOp) or thread != ttkernel.ThreadAttr(
                ttkernel.Thread.COMPUTE
            ):
                continue
            check_inits_precede_calls(kernel)
            body = kernel.body.block
            hoist_invariant_inits(body)
            drop_repeated_inits(body)
            insert_reduce_uninits(body)
