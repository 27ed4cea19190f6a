"""ttkernel-place-inits: places the engine (re)configuration calls (`*_init`) of compute
kernels so that each is issued as few times as the kernel allows.

Input: compute kernel functions as convert-d2m-to-ttkernel leaves them, every compute
call directly after the init configuring the engines for it (`INIT_OF`). An init costs
a reprogramming of unpacker, math and packer (tt-metal issue #56692 measures ~70 cycles
a re-init site in SDPA; the emulator's `kInit`), so the pass removes the ones that
change nothing:

- hoist: a loop (innermost first) whose inits are all one init on operands defined
  outside it gets that init once, before the loop;
- deduplicate: an init equal to the init in force is erased (straight-line code; a loop
  body that has inits of its own starts from an unknown state, and so does the code
  after it);
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

    scf.for %i = ... {
      ttkernel.copy_tile_init(%in)
      ttkernel.copy_tile(%in, %i, %c0)
      ttkernel.exp_tile_init()
      ttkernel.exp_tile(%c0)
      ttkernel.exp_tile(%c0)
    }
    ttkernel.reduce_init<sum, row>(%a, %s, %o)
    scf.for %j = ... {
      ttkernel.reduce_tile<sum, row>(%a, %s, %j, %c0, %c0)
    }
    ttkernel.reduce_uninit()
    ttkernel.exp_tile_init()

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


def _init_key(op: Operation) -> tuple[object, ...]:
    """Two inits with the same key configure the engines identically."""
    return (
        op.name,
        tuple(op.operands),
        tuple(sorted((k, str(v)) for k, v in op.properties.items())),
    )


def _inits_within(op: Operation) -> list[Operation]:
    return [inner for inner in op.walk() if isinstance(inner, INIT_OPS)]


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


def hoist_invariant_inits(block: Block) -> None:
    """Moves the init out of every loop (innermost first) whose inits are all the same
    init on loop-invariant operands: it then holds on every iteration."""
    for op in list(block.ops):
        for region in op.regions:
            for inner in region.blocks:
                hoist_invariant_inits(inner)
        if not isinstance(op, scf.ForOp):
            continue
        inits = _inits_within(op)
        if not inits or len({_init_key(i) for i in inits}) != 1:
            continue
        if any(_defined_inside(operand, op) for operand in inits[0].operands):
            continue
        hoisted = inits[0]
        hoisted.detach()
        block.insert_op_before(hoisted, op)
        for duplicate in inits[1:]:
            Rewriter.erase_op(duplicate)


def drop_repeated_inits(
    block: Block, state: tuple[object, ...] | None = None
) -> tuple[object, ...] | None:
    """Erases inits equal to the init in force before them (straight-line; a loop's
    body starts from an unknown state unless it has no inits of its own)."""
    for op in list(block.ops):
        if isinstance(op, INIT_OPS):
            key = _init_key(op)
            if key == state:
                Rewriter.erase_op(op)
            else:
                state = key
        elif isinstance(op, scf.ForOp):
            if _inits_within(op):
                drop_repeated_inits(op.body.block, None)
                state = None
        elif op.regions:
            for region in op.regions:
                for inner in region.blocks:
                    drop_repeated_inits(inner, None)
            if _inits_within(op):
                state = None
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
