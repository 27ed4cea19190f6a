"""ttkernel-place-inits: places the engine (re)configuration calls (`*_init`) of compute
kernels so that each is issued as few times as the kernel allows.

Input: compute kernel functions as convert-d2m-to-ttkernel leaves them, every compute
call directly after the init configuring the engines for it (`INIT_OF`). An init costs
a reprogramming (tt-metal issue #56692 measures ~70 cycles a re-init site in SDPA; the
device description's `init`), so the pass removes the ones that change nothing.

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
  placed outside the loops around that init that hold no reduction, so it runs once;
- data formats: the unpackers (srcA, srcB) and the packer keep the data format they
  were configured for (by `binary_op_init_common`, the hardware startup, then by
  reconfigurations). Where an init reads a CB of another format than its unpacker holds
  (bfp8_b K and V next to bf16 operands, f32 next to bf16 CBs), or `pack_tile` writes a
  CB of another format than the packer holds, the pass puts `reconfig_data_format`
  (both unpackers), `reconfig_data_format_srca`/`_srcb` or `pack_reconfig_data_format`
  before it. Which unpacker reads which CB is tt-metal 0.81.1's (its `state_configure`
  calls): matmul srcA = in1, srcB = in0; binary and broadcast ops srcA = in0, srcB = in1;
  a row sum or average reduction srcA = scaler, srcB = input, other reductions the other
  way round; ops reading one CB (copy, transpose, unary broadcast, dest reuse) use the
  srcA unpacker. Formats come from the module's `ttlang.program` (its CBs by id, which
  the kernels read as compile-time arguments). Like the inits, a reconfiguration is
  placed only where the format in force differs, and before a loop (not in it) when
  every use of that unpacker or the packer in the loop wants one format; in a loop
  whose uses alternate, the format in force at the top of the body is the one both the
  entry and the end of the body agree on, else unknown (reconfigured).

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

With a bfp8_b `%k` (CB 1) after a bf16 `%q` (CB 0), CB 2 bf16:

    ttkernel.binary_op_init_common(%q, %q, %o)
    ttkernel.mm_init(%q, %k, %o, %c0)          // srcA = %k
    ttkernel.copy_tile_init(%s)                // srcA = %s

After (the formats of srcA: bf16, then bfp8_b, then bf16 again):

    ttkernel.binary_op_init_common(%q, %q, %o)
    ttkernel.reconfig_data_format_srca(%k)
    ttkernel.mm_init(%q, %k, %o, %c0)
    ttkernel.reconfig_data_format_srca(%s)
    ttkernel.copy_tile_init(%s)

Fails (PassError) on a compute call that does not directly follow its init (input not
from convert-d2m-to-ttkernel, or already placed), and on a CB operand of an init or
`pack_tile` whose format is unknown: not a compile-time argument, or a CB id the
module's `ttlang.program` does not list (or no `ttlang.program`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from ttlang.dialects import d2m, ttkernel
from ttlang.dialects.ttcore import DataType, TileType
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


def compute_kernels(module: ModuleOp) -> list[func.FuncOp]:
    """The module's compute kernel functions (`ttkernel.thread` compute)."""
    compute = ttkernel.ThreadAttr(ttkernel.Thread.COMPUTE)
    return [
        kernel
        for kernel in module.body.block.ops
        if isinstance(kernel, func.FuncOp) and kernel.attributes.get(ttkernel.THREAD_ATTR) == compute
    ]


def init_group(op: Operation, split: bool = True) -> str:
    """The part of the core an init configures: "sfpu" or "fpu" (module docstring);
    without `split`, every init is taken to configure all of it ("fpu")."""
    return "sfpu" if split and isinstance(op, SFPU_INITS) else "fpu"


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


def _groups_changed(inits: list[Operation], split: bool) -> set[str]:
    """The groups whose state `inits` may leave changed: a reduction's packer
    configuration (undone by reduce_uninit before the next init) counts for both."""
    if any(isinstance(init, ttkernel.ReduceInitOp) for init in inits):
        return set(_GROUPS)
    return {init_group(init, split) for init in inits}


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


def _hoistable(loop: scf.ForOp, split: bool) -> list[Operation]:
    """The loop's inits, one per distinct init in order of first use, when they can all
    move before it: at most one per group (a reduce_init only alone), none on a value
    defined inside the loop; else []."""
    distinct: dict[tuple[object, ...], Operation] = {}
    for init in _inits_within(loop):
        distinct.setdefault(_init_key(init), init)
    hoisted = list(distinct.values())
    groups = [init_group(init, split) for init in hoisted]
    if len(set(groups)) != len(groups):
        return []
    if len(hoisted) > 1 and any(isinstance(init, ttkernel.ReduceInitOp) for init in hoisted):
        return []
    if any(_defined_inside(operand, loop) for init in hoisted for operand in init.operands):
        return []
    return hoisted


def hoist_invariant_inits(block: Block, split: bool = True) -> None:
    """Moves the inits out of every loop (innermost first) whose inits are at most one
    per group, on loop-invariant operands: they then hold on every iteration."""
    for op in list(block.ops):
        for region in op.regions:
            for inner in region.blocks:
                hoist_invariant_inits(inner, split)
        if not isinstance(op, scf.ForOp):
            continue
        hoisted = _hoistable(op, split)
        keys = {_init_key(init) for init in hoisted}
        for init in hoisted:
            init.detach()
            block.insert_op_before(init, op)
        for duplicate in _inits_within(op) if hoisted else ():
            assert _init_key(duplicate) in keys
            Rewriter.erase_op(duplicate)


def drop_repeated_inits(block: Block, split: bool = True, state: _State | None = None) -> _State:
    """Erases inits equal to the init in force for their group before them
    (straight-line; a loop's body starts from an unknown state in the groups it has
    inits of)."""
    state = dict(state) if state is not None else dict.fromkeys(_GROUPS)
    for op in list(block.ops):
        if isinstance(op, INIT_OPS):
            key, group = _init_key(op), init_group(op, split)
            if key == state[group]:
                Rewriter.erase_op(op)
                continue
            for changed in _groups_changed([op], split):
                state[changed] = None
            state[group] = key
        elif op.regions:
            # A branch starts from the state before it; a loop body also from what
            # its own inits leave at the end of an iteration.
            before = dict(state)
            for group in _groups_changed(_inits_within(op), split):
                state[group] = None
            entry = state if isinstance(op, scf.ForOp) else before
            for region in op.regions:
                for inner in region.blocks:
                    drop_repeated_inits(inner, split, entry)
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


# ---------------------------------------------------------------- data formats

SRCA, SRCB, PACK = range(3)
Formats = tuple[DataType | None, DataType | None, DataType | None]
"""The data format each of srcA, srcB and the packer is configured for (None: unknown)."""

_UNKNOWN: Formats = (None, None, None)


def _wanted_cbs(op: Operation) -> dict[int, SSAValue]:
    """The CB each unpacker (SRCA, SRCB) or the packer (PACK) reads for `op`, an init or
    pack_tile (tt-metal 0.81.1's `state_configure` operands)."""
    if isinstance(op, ttkernel.MMInitOp):
        return {SRCA: op.in1_cb, SRCB: op.in0_cb}
    if isinstance(op, ttkernel.ReduceInitOp):
        swapped = op.reduce_dim.data == ttkernel.ReduceDim.ROW and op.pool_type.data != ttkernel.PoolType.MAX
        return {SRCA: op.scaler_cb, SRCB: op.in_cb} if swapped else {SRCA: op.in_cb, SRCB: op.scaler_cb}
    if isinstance(op, ttkernel.AddTilesInitOp | ttkernel.SubTilesInitOp | ttkernel.MulTilesInitOp
                  | ttkernel.InitBcastOp):  # fmt: skip
        return {SRCA: op.in0_cb, SRCB: op.in1_cb}
    if isinstance(op, ttkernel.CopyTileInitOp):
        return {SRCA: op.cb}
    if isinstance(op, ttkernel.TransposeWHInitOp | ttkernel.UnaryBcastInitOp
                  | ttkernel.BinaryDestReuseTilesInitOp):  # fmt: skip
        return {SRCA: op.in_cb}
    if isinstance(op, ttkernel.PackTileOp):
        return {PACK: op.out_cb}
    return {}


def _startup_cbs(op: Operation) -> tuple[SSAValue, SSAValue, SSAValue] | None:
    """(srcA, srcB, packer) CBs of a hardware startup op, else None."""
    if isinstance(op, ttkernel.BinaryOpInitCommonOp):
        return (op.in0_cb, op.in1_cb, op.out_cb)
    if isinstance(op, ttkernel.InitSFPUOp | ttkernel.UnaryOpInitCommonOp):
        return (op.in_cb, op.in_cb, op.out_cb)
    return None


def _merge(a: Formats, b: Formats) -> Formats:
    return tuple(x if x == y else None for x, y in zip(a, b, strict=True))  # type: ignore[return-value]


def _reconfig_ops(changes: dict[int, SSAValue]) -> list[Operation]:
    """The calls that set the unpackers and the packer to the formats of `changes`' CBs."""
    ops: list[Operation] = []
    if SRCA in changes and SRCB in changes:
        ops.append(ttkernel.ReconfigDataFormatOp(changes[SRCA], changes[SRCB]))
    elif SRCA in changes:
        ops.append(ttkernel.ReconfigDataFormatSrcaOp(changes[SRCA]))
    elif SRCB in changes:
        ops.append(ttkernel.ReconfigDataFormatSrcbOp(changes[SRCB]))
    if PACK in changes:
        ops.append(ttkernel.PackReconfigDataFormatOp(changes[PACK]))
    return ops


class FormatPlacer:
    """Places the data-format reconfigurations of one compute kernel."""

    def __init__(self, cb_formats: list[DataType] | None):
        self.cb_formats = cb_formats

    def format_of(self, cb: SSAValue, user: Operation) -> DataType:
        owner = cb.owner
        if not isinstance(owner, ttkernel.GetCompileTimeArgValOp):
            raise PassError(user, "reads a CB that is not a compile-time argument; its data format is unknown.")
        index = owner.index.value.data
        if self.cb_formats is None:
            raise PassError(
                user,
                "has no CB data formats to compare: the module has no ttlang.program "
                "(convert-d2m-to-ttkernel's launch description lists each CB's format).",
            )
        if index >= len(self.cb_formats):
            raise PassError(
                user, f"reads CB {index}, but the module's ttlang.program lists {len(self.cb_formats)} CBs."
            )
        return self.cb_formats[index]

    def _wants(self, op: Operation) -> dict[int, tuple[SSAValue, DataType]]:
        return {slot: (cb, self.format_of(cb, op)) for slot, cb in _wanted_cbs(op).items()}

    def _loop_formats(self, loop: Operation) -> dict[int, tuple[SSAValue, DataType]]:
        """Per unpacker or packer: its one wanted format (and a CB defined outside the
        loop having it) when every use inside `loop` wants that format."""
        uses: dict[int, list[tuple[SSAValue, DataType]]] = {}
        for inner in loop.walk():
            if _startup_cbs(inner) is not None:
                return {}
            for slot, wanted in self._wants(inner).items():
                uses.setdefault(slot, []).append(wanted)
        single = {}
        for slot, wanted in uses.items():
            outside = [cb for cb, _ in wanted if not _defined_inside(cb, loop)]
            if len({fmt for _, fmt in wanted}) == 1 and outside:
                single[slot] = (outside[0], wanted[0][1])
        return single

    def place(self, block: Block, state: Formats, emit: bool) -> Formats:
        """Walks `block` from `state`; with `emit`, inserts the reconfigurations.
        Returns the formats in force after it."""
        for op in list(block.ops):
            startup = _startup_cbs(op)
            if startup is not None:
                state = tuple(self.format_of(cb, op) for cb in startup)  # type: ignore[assignment]
                continue
            wanted = self._wants(op)
            if isinstance(op, scf.ForOp):
                # the formats every use in the loop agrees on are set before it
                wanted = self._loop_formats(op)
            changes = {slot: cb for slot, (cb, fmt) in wanted.items() if state[slot] != fmt}
            if changes and emit:
                for reconfig in _reconfig_ops(changes):
                    block.insert_op_before(reconfig, op)
            new = list(state)
            for slot, (_, fmt) in wanted.items():
                new[slot] = fmt
            state = tuple(new)  # type: ignore[assignment]
            if isinstance(op, scf.ForOp):
                state = self._place_loop(op, state, emit)
            elif op.regions:
                ends = [self.place(inner, state, emit) for region in op.regions for inner in region.blocks]
                for end in ends:
                    state = _merge(state, end)
        return state

    def _place_loop(self, loop: scf.ForOp, state: Formats, emit: bool) -> Formats:
        entry = state
        while True:
            end = self.place(loop.body.block, entry, False)
            merged = _merge(entry, end)
            if merged == entry:
                break
            entry = merged
        if emit:
            self.place(loop.body.block, entry, True)
        return _merge(state, end)


def cb_formats_of(module: ModuleOp) -> list[DataType] | None:
    """The data format of each CB id, from the module's `ttlang.program` (None without)."""
    program = module.attributes.get("ttlang.program")
    if not isinstance(program, DictionaryAttr) or not isinstance(program.data.get("cbs"), ArrayAttr):
        return None
    formats = []
    for cb in program.data["cbs"].data:
        assert isinstance(cb, d2m.CBType)
        tile = cb.block.get_element_type()
        assert isinstance(tile, TileType)
        formats.append(tile.element_format)
    return formats


def place_format_reconfigs(kernel: func.FuncOp, cb_formats: list[DataType] | None) -> None:
    """Puts the data-format reconfigurations the kernel's inits and packs need."""
    FormatPlacer(cb_formats).place(kernel.body.block, _UNKNOWN, True)


@dataclass(frozen=True)
class TTKernelPlaceInits(ModulePass):
    """Hoists and deduplicates the inits of compute kernels; adds reduce_uninit and the
    data-format reconfigurations."""

    name = "ttkernel-place-inits"

    init_groups: bool = True
    """False: every init is taken to reconfigure the whole core (one group), as before
    the SFPU / FPU split; bench/dst.py compares the two."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in compute_kernels(op):
            check_inits_precede_calls(kernel)
            body = kernel.body.block
            hoist_invariant_inits(body, self.init_groups)
            drop_repeated_inits(body, self.init_groups)
            insert_reduce_uninits(body)
            place_format_reconfigs(kernel, cb_formats_of(op))
