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

- hoist: out of a loop (innermost first), each group's init when it is the loop's one
  init of that group, on operands defined outside it: nothing in the loop changes that
  group (a `reduce_init` only when it is the loop's one init of either group: the
  loop's packs are then all of the reduction and keep its packer configuration);
- deduplicate: an init equal to the init in force for its group is erased
  (straight-line code; a loop body that has inits of a group starts from an unknown
  state of that group, and so does the code after it). Equal: the same call with the
  same properties and non-CB operands, on CBs of the same tile types: an init reads a
  CB's tile shape and data format (tt-metal's `llk_unpack_*_init` take the operand's
  face dimensions and formats), never its pages, so `init_bcast(%l, %a)` after
  `init_bcast(%acc, %a)` changes nothing when `%l` and `%acc` hold the same tiles. A
  `reduce_init` is an unpacker/FPU/packer init like the others: tt-metal 0.81.1's
  programs the unpacker, the FPU's address modifiers 0-3 and MOP, and the packer's
  edge masks, not the SFPU, so an SFPU init in force before it holds after it;
- reduce_uninit: a reduction programs the packer's edge masks (only the reduced
  column or row is written; tt-metal's `reduce_uninit` clears them, and no other init
  does). A `pack_tile` that may run with them set, in a DST section holding no
  reduction, gets `reduce_uninit` first: at the start of its section (after its
  `tile_regs_acquire`), or before the outermost loop around it holding no `reduce_init`
  (so it runs once); a loop holding one is walked until the state at the top of its
  body is stable (the packs of the next iteration meet this iteration's reduction);
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
    ttkernel.tile_regs_acquire()
    ttkernel.copy_tile_init(%in)
    ttkernel.copy_tile(%in, %c0, %c0)
    ttkernel.exp_tile_init()
    ttkernel.exp_tile(%c0)
    ...
    ttkernel.pack_tile(%c0, %o, %c0)

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
    ttkernel.tile_regs_acquire()
    ttkernel.reduce_uninit()
    ttkernel.copy_tile_init(%in)
    ttkernel.copy_tile(%in, %c0, %c0)
    ttkernel.exp_tile(%c0)
    ...
    ttkernel.pack_tile(%c0, %o, %c0)

(the last exp_tile_init goes: the reduction left the SFPU as the first loop did; the
copy_tile_init stays, the reduction's came between; the section packs a tile that is
not a reduction's, so the packer's masks are cleared first.)

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

from abc import ABC, abstractmethod
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


def cb_operands(op: Operation) -> list[SSAValue]:
    """The operands of `op` that name a CB (ttkernel's `cb`, `in_cb`, `in0_cb`, ...)."""
    if not isinstance(op, ttkernel.TTKernelOp):
        return []
    names = [name for name, _ in type(op).get_irdl_definition().operands if name.endswith("cb")]
    return [getattr(op, name) for name in names]


def _cb_key(value: SSAValue, cb_tiles: list[TileType] | None) -> object:
    """A CB operand as an init sees it: its tile type (shape and data format) when it is
    a compile-time argument the program lists, else the value itself."""
    owner = value.owner
    if cb_tiles is not None and isinstance(owner, ttkernel.GetCompileTimeArgValOp):
        index = owner.index.value.data
        if index < len(cb_tiles):
            return cb_tiles[index]
    return value


def _init_key(op: Operation, cb_tiles: list[TileType] | None = None) -> tuple[object, ...]:
    """Two inits with the same key configure the engines identically: the same call, on
    CBs of the same tile types (an init reads a CB's tile shape and data format, never
    its pages or address), with the same other operands and properties."""
    cbs = {id(value) for value in cb_operands(op)}
    return (
        op.name,
        tuple(_cb_key(v, cb_tiles) if id(v) in cbs else v for v in op.operands),
        tuple(sorted((k, str(v)) for k, v in op.properties.items())),
    )


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


def _hoistable(
    loop: scf.ForOp, inits: list[Operation], split: bool, cb_tiles: list[TileType] | None
) -> list[Operation]:
    """The inits of `loop` (`inits`, in walk order) that can move before it, one per
    group: the group's init when every init of that group in the loop is equal to it and
    on values defined outside the loop (a `reduce_init` only when it is the loop's one
    init: the loop's packs are then all of the reduction, which need its packer
    configuration)."""
    hoisted = []
    for group in _GROUPS:
        distinct: dict[tuple[object, ...], Operation] = {}
        for init in inits:
            if init_group(init, split) == group:
                distinct.setdefault(_init_key(init, cb_tiles), init)
        if len(distinct) != 1:
            continue
        (init,) = distinct.values()
        if isinstance(init, ttkernel.ReduceInitOp) and len(inits) > 1:
            continue
        if not any(_defined_inside(operand, loop) for operand in init.operands):
            hoisted.append(init)
    return hoisted


def hoist_invariant_inits(
    block: Block, split: bool = True, cb_tiles: list[TileType] | None = None
) -> list[Operation]:
    """Moves out of every loop (innermost first) the init of each group that is the
    loop's one init of that group (on loop-invariant operands): nothing in the loop
    changes that group, so it holds on every iteration. Returns the inits left in
    `block`, nested ones included, in walk order (what a loop around it holds: each
    loop's inits are gathered once, from its body's, not walked again per loop)."""
    inits: list[Operation] = []
    for op in list(block.ops):
        within = [op] if isinstance(op, INIT_OPS) else []
        for region in op.regions:
            for inner in region.blocks:
                within += hoist_invariant_inits(inner, split, cb_tiles)
        if isinstance(op, scf.ForOp):
            hoisted = _hoistable(op, within, split, cb_tiles)
            keys = {_init_key(init, cb_tiles) for init in hoisted}
            for init in hoisted:
                init.detach()
                block.insert_op_before(init, op)
            inits += hoisted
            kept = []
            for init in within:
                if any(init is moved for moved in hoisted):
                    continue
                if _init_key(init, cb_tiles) in keys:
                    Rewriter.erase_op(init)
                else:
                    kept.append(init)
            within = kept
        inits += within
    return inits


def _groups_within(block: Block, split: bool, groups: dict[Operation, set[str]]) -> set[str]:
    """The groups the inits in `block` (nested ones included) configure; records in
    `groups` those of every op in it that holds regions."""
    found: set[str] = set()
    for op in block.ops:
        if isinstance(op, INIT_OPS):
            found.add(init_group(op, split))
        if op.regions:
            inner: set[str] = set()
            for region in op.regions:
                for inner_block in region.blocks:
                    inner |= _groups_within(inner_block, split, groups)
            groups[op] = inner
            found |= inner
    return found


def drop_repeated_inits(
    block: Block,
    split: bool = True,
    state: _State | None = None,
    cb_tiles: list[TileType] | None = None,
) -> _State:
    """Erases inits equal to the init in force for their group before them
    (straight-line; a loop's body starts from an unknown state in the groups it has
    inits of)."""
    # Found once: an op's groups are read before any init inside it is erased.
    groups: dict[Operation, set[str]] = {}
    _groups_within(block, split, groups)

    def drop(block: Block, state: _State) -> _State:
        state = dict(state)
        for op in list(block.ops):
            if isinstance(op, INIT_OPS):
                key, group = _init_key(op, cb_tiles), init_group(op, split)
                if key == state[group]:
                    Rewriter.erase_op(op)
                    continue
                state[group] = key
            elif op.regions:
                # A branch starts from the state before it; a loop body also from what
                # its own inits leave at the end of an iteration.
                before = dict(state)
                for group in groups[op]:
                    state[group] = None
                entry = state if isinstance(op, scf.ForOp) else before
                for region in op.regions:
                    for inner in region.blocks:
                        drop(inner, entry)
        return state

    return drop(block, state if state is not None else dict.fromkeys(_GROUPS))


@dataclass(frozen=True)
class _Packer:
    """What the packs at a point of the kernel meet: `masked`, a reduction's packer
    configuration may be in force (reduce_init programs the packer's edge masks so
    that it writes only the reduced row or column; reduce_uninit clears them);
    `reducing`, the DST section being packed may hold a reduction's results (the
    compiler's sections hold a reduction on every path or on none)."""

    masked: bool = False
    reducing: bool = False

    def merge(self, other: _Packer) -> _Packer:
        return _Packer(self.masked or other.masked, self.reducing or other.reducing)


class _BlockWalker(ABC):
    """A walk of blocks from an entry state that inserts ops only with `emit`: a walk
    that only looks leaves the IR as it is (and the ops a later one inserts change no
    state), so its result for a block and an entry state is found once per pass run;
    the fixed points of nested loops would walk inner bodies again and again."""

    def __init__(self) -> None:
        self._looked: dict[tuple[Block, object], object] = {}

    def place(self, block: Block, state, emit: bool):
        """The state after walking `block` from `state` (`_walk`); with `emit`, the
        walk inserts its ops."""
        if emit:
            return self._walk(block, state, True)
        key = (block, state)
        if key not in self._looked:
            self._looked[key] = self._walk(block, state, False)
        return self._looked[key]

    @abstractmethod
    def _walk(self, block: Block, state, emit: bool): ...


class UninitPlacer(_BlockWalker):
    """Places the reduce_uninits of one compute kernel: walking a block from a state
    (`place`), a `pack_tile` outside a reducing DST section that may meet a reduction's
    packer configuration gets `reduce_uninit` at the start of its section (after
    `tile_regs_acquire`, when that is in the same block), else before it or before the
    outermost loop around it that holds no `reduce_init` (one clearing there does for
    every iteration). A walk returns the state after the block and whether it needed a
    `reduce_uninit` (inserted when `emit`)."""

    def __init__(self) -> None:
        super().__init__()
        self._holds: dict[Operation, bool] = {}

    def _holds_reduce_init(self, loop: Operation) -> bool:
        if loop not in self._holds:
            self._holds[loop] = any(isinstance(inner, ttkernel.ReduceInitOp) for inner in loop.walk())
        return self._holds[loop]

    def _walk(self, block: Block, state: _Packer, emit: bool) -> tuple[_Packer, bool]:
        needed = False
        opened: Operation | None = None  # the tile_regs_acquire of this block's open section

        def clear_before(op: Operation) -> None:
            if opened is not None:
                block.insert_op_after(ttkernel.ReduceUninitOp(), opened)
            else:
                block.insert_op_before(ttkernel.ReduceUninitOp(), op)

        for op in list(block.ops):
            if isinstance(op, ttkernel.ReduceInitOp):
                state = _Packer(True, state.reducing)
            elif isinstance(op, ttkernel.TileRegsAcquireOp):
                state = _Packer(state.masked, False)
                opened = op
            elif isinstance(op, ttkernel.TileRegsReleaseOp):
                opened = None
            elif isinstance(op, ttkernel.ReduceTileOp):
                state = _Packer(state.masked, True)
            elif isinstance(op, ttkernel.PackTileOp) and state.masked and not state.reducing:
                needed = True
                if emit:
                    clear_before(op)
                state = _Packer(False, state.reducing)
            elif isinstance(op, scf.ForOp):
                body = op.body.block
                if state.masked and not self._holds_reduce_init(op) and self.place(body, state, False)[1]:
                    needed = True
                    if emit:
                        clear_before(op)
                    state = _Packer(False, state.reducing)
                entry = state
                while True:  # the body starts from the entry or from the end of an iteration
                    end, _ = self.place(body, entry, False)
                    if entry.merge(end) == entry:
                        break
                    entry = entry.merge(end)
                end, inner = self.place(body, entry, emit)
                needed |= inner
                state = state.merge(end)
            elif op.regions:
                ends = []
                for region in op.regions:
                    for inner_block in region.blocks:
                        end, inner = self.place(inner_block, state, emit)
                        ends.append(end)
                        needed |= inner
                for end in ends:
                    state = state.merge(end)
        return state, needed


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


class FormatPlacer(_BlockWalker):
    """Places the data-format reconfigurations of one compute kernel: walking a block
    from the formats in force (`place`) returns those after it, inserting the
    reconfigurations with `emit`. What each op and loop wants is found once."""

    def __init__(self, cb_formats: list[DataType] | None):
        super().__init__()
        self.cb_formats = cb_formats
        self._wanted: dict[Operation, dict[int, tuple[SSAValue, DataType]]] = {}
        self._formats: dict[Operation, dict[int, tuple[SSAValue, DataType]]] = {}

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
        if op not in self._wanted:
            self._wanted[op] = {slot: (cb, self.format_of(cb, op)) for slot, cb in _wanted_cbs(op).items()}
        return self._wanted[op]

    def _loop_formats(self, loop: Operation) -> dict[int, tuple[SSAValue, DataType]]:
        """Per unpacker or packer: its one wanted format (and a CB defined outside the
        loop having it) when every use inside `loop` wants that format."""
        if loop not in self._formats:
            self._formats[loop] = self._single_formats(loop)
        return self._formats[loop]

    def _single_formats(self, loop: Operation) -> dict[int, tuple[SSAValue, DataType]]:
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

    def _walk(self, block: Block, state: Formats, emit: bool) -> Formats:
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


def cb_tiles_of(module: ModuleOp) -> list[TileType] | None:
    """The tile type (shape, data format) of each CB id, from the module's
    `ttlang.program` (None without)."""
    program = module.attributes.get("ttlang.program")
    if not isinstance(program, DictionaryAttr) or not isinstance(program.data.get("cbs"), ArrayAttr):
        return None
    tiles = []
    for cb in program.data["cbs"].data:
        assert isinstance(cb, d2m.CBType)
        tile = cb.block.get_element_type()
        assert isinstance(tile, TileType)
        tiles.append(tile)
    return tiles


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
        cb_tiles = cb_tiles_of(op)
        cb_formats = None if cb_tiles is None else [tile.element_format for tile in cb_tiles]
        for kernel in compute_kernels(op):
            check_inits_precede_calls(kernel)
            body = kernel.body.block
            hoist_invariant_inits(body, self.init_groups, cb_tiles)
            drop_repeated_inits(body, self.init_groups, cb_tiles=cb_tiles)
            UninitPlacer().place(body, _Packer(), True)
            place_format_reconfigs(kernel, cb_formats)
