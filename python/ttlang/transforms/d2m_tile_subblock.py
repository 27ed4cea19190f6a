"""d2m-tile-subblock: tiles a bufferized generic whose DST footprint exceeds DST capacity
into subblocks of output tiles that fit, one DST section each, choosing the shape with
the fewest modeled cycles when pack overlaps math.

A DST section computes its output tiles one op at a time, so every value the body
keeps in DST is held for each tile of the section at once: the footprint of `n` tiles
is `n * F`, where `F` is the most DST slots the body needs at once for one tile (the
DST liveness analysis, `ttlang.transforms.analysis.dst_liveness`: every live value,
not just the output; the accumulator of a matmul or reduction included). Capacity
comes from the function's `ttcore.compute_config` (16/8 tiles for 16-bit DST with
full/half sync, 8/4 with fp32 accumulation).

When the whole output block fits (`tiles * F <= capacity`) the generic is left alone:
one section computes it. Otherwise the pass sets `d2m.subblock`, the output tiles per
section along each parallel dimension: of the shapes with extents dividing the
block's and at most `capacity // F` tiles, the one the timing model below finds
fastest (ties go to the most tiles, then to the widest innermost extents, so a
subblock covers whole rows first; `largest_fit=true` takes that order alone, the
largest shape that fits). Subblocks, and tiles within one, are visited in row-major
order (d2m-lower-to-loops). When one tile alone exceeds capacity (`F > capacity`) the
subblock is a single tile and d2m-dst-allocate spills.

The timing model. With half sync DST is two halves (tile_regs_acquire / commit /
wait / release): math fills one while the packer drains the other, so a generic of
`N` sections takes about

    T = M + (N - 1) * max(M, P) + max(0, P - H)

(the first section's math exposed, every other section the longer of the two, and the
last pack what the math after it does not hide: `H` is the first section's math of
the generic that follows in the block, 0 when that one reads or writes a block of
this one's output CBs, and so waits for the pack, or when none follows); with full
sync math waits for every pack: `T = N * (M + P)`. A section of `n` tiles costs, from
the device description's per-call costs (the ones the emulator charges,
docs/cost_model.md; read from the module's `ttcore.device`):
- math `M = n * m + 2 * tile_regs_sync + inits * init`, `m` the cycles of one output
  tile: the ops of the DST schedule on their engines (matmul at the fidelity and its
  operands' format floor, FPU add/mul, SFPU ops, copy_tile, ...; the ops inside the
  reduction loops times its trip count), plus the accumulator's start (copy_tile from
  the output block, or a -inf fill);
- pack `P = n * p + 2 * tile_regs_sync`, `p` the pack_tile cycles of every block a
  tile is packed into (page bytes / pack_bytes_per_cycle; the output, and the
  partial sums of `d2m.summed_outputs`);
- `inits`: the init sites a section issues as ttkernel-place-inits places them: per
  group (SFPU; unpacker/FPU/packer), none when the section has one init of that group
  (a reduction's only when it is the section's one init), since it is then hoisted
  before the subblock loop; else each init that changes its group's state, from an
  unknown state at the section's start.
Smaller subblocks leave less pack after the last math but pay more syncs and, when
inits stay in the loop, more inits; the largest fit wins when the inits repeat, the
pack is the longer side or the next generic's math hides the last pack.

Before (bf16, half sync: 8 tiles; exp of a 4x8 block, one slot per tile):

    linalg.generic {iterator_types = ["parallel", "parallel"], ...}
        ins(%a : memref<4x8x!tile, #l1>) outs(%o : memref<4x8x!tile, #l1>) {
      %e = d2m.tile_exp %x ; linalg.yield %e }

After (modeled: math 16 + 160 a tile (copy_tile, exp), pack 32; the two inits are
hoisted; nothing follows in the block; 1x8: 32 * 176 + 4 * 8 + (8 * 32 + 8) = 5928
cycles, 1x4: 5632 + 8 * 8 + (4 * 32 + 8) = 5832; the largest fit was 1x8; with an
unrelated generic after it whose math hides the last pack, 1x8 again):

    linalg.generic {iterator_types = ["parallel", "parallel"], ...}
        ins(%a : ...) outs(%o : ...) {...} {d2m.subblock = array<i64: 1, 4>}

A body with two values live per tile (`exp(x) * 2.0`) on a 4x4 block fits 4 tiles a
section; three of its inits (exp, fill, SFPU mul: one group) repeat in every section,
so it keeps the largest, `array<i64: 1, 4>`.

Fails (PassError) on bodies the DST liveness analysis cannot place (an op needing from
a CB an operand computed in DST, an op with no engine placement).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import product
from math import ceil, prod

from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, ModuleOp, i64
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from ttlang.device import FIDELITY_PHASES, load_device
from ttlang.dialects import d2m
from ttlang.dialects.ttcore import DataType, TileType, device_of
from ttlang.transforms.analysis.compute_config import compute_config_of, dst_capacity_of
from ttlang.transforms.analysis.dst_liveness import (
    SUBBLOCK_ATTR,
    SUMMED_OUTPUTS_ATTR,
    Copy,
    DstLivenessError,
    DstSchedule,
    Spill,
    accumulator,
    applied_while_unpacking,
    body_ops,
    body_parts,
    loop_ranges,
    output_is_undefined,
    parallel_dims,
    schedule_dst,
)
from ttlang.transforms.diagnostics import PassError

_SCALAR_OPS = (
    d2m.TileAddScalarOp, d2m.TileSubScalarOp, d2m.TileRsubScalarOp, d2m.TileMulScalarOp,
    d2m.TileDivScalarOp,
)  # fmt: skip
_MATMUL_FLOOR = {
    DataType.BF16: "matmul_tile_floor_bf16",
    DataType.F32: "matmul_tile_floor_fp32",
    DataType.BFP8_B: "matmul_tile_floor_bfp8_b",
}

_OP_COST: dict[type[Operation], str] = {
    d2m.TileTransposeOp: "transpose_tile",
    d2m.TileBcastOp: "unary_bcast_tile",
    d2m.TileRecipOp: "recip_tile",
    d2m.TileDivScalarOp: "recip_tile",
    d2m.TileSqrtOp: "sqrt_tile",
    d2m.TileRsqrtOp: "sqrt_tile",
    d2m.TileDivOp: "sfpu_div_tile",
    d2m.TileWhereOp: "sfpu_where_tile",
}
"""The cost entry of ops with one of their own (the other SFPU ops: sfpu_simple_tile)."""

InitKey = tuple[str, tuple[object, ...]]
"""An init as the model tells them apart: its group ("fpu" or "sfpu", as
ttkernel-place-inits splits them) and what it configures."""


def _divisors(extent: int) -> list[int]:
    return [d for d in range(1, extent + 1) if extent % d == 0]


def _largest_first(shape: Sequence[int]) -> tuple[int, tuple[int, ...]]:
    """Orders shapes by tile count, ties by the widest innermost extents."""
    return (prod(shape), tuple(reversed(shape)))


def fitting_shapes(extents: list[int], max_tiles: int) -> list[tuple[int, ...]]:
    """The shapes dividing `extents` with at most `max_tiles` tiles (at least one tile),
    largest first."""
    shapes = [s for s in product(*(_divisors(e) for e in extents)) if prod(s) <= max_tiles]
    return sorted(shapes or [tuple([1] * len(extents))], key=_largest_first, reverse=True)


@dataclass(frozen=True)
class SectionCost:
    """Modeled cycles of a DST section of `n` tiles: math `math_per_tile * n +
    math_per_section`, pack `pack_per_tile * n + pack_per_section`."""

    math_per_tile: float
    math_per_section: float
    pack_per_tile: float
    pack_per_section: float
    overlap: bool  # half sync: math fills one DST half while the packer drains the other
    next_math: float = 0  # math the last pack may hide behind (the next generic's)

    def generic_cycles(self, tiles: int, n: int) -> float:
        """A generic of `tiles` output tiles in sections of `n`. With half sync each
        section's math overlaps the previous section's pack, so the first math is
        exposed, every other section takes the longer of the two, and the last pack
        what `next_math` does not hide of it; with full sync math waits for every pack."""
        math = self.math_per_tile * n + self.math_per_section
        pack = self.pack_per_tile * n + self.pack_per_section
        if not self.overlap:
            return tiles // n * (math + pack)
        return math + (tiles // n - 1) * max(math, pack) + max(0, pack - self.next_math)


def _op_cycles(
    op: Operation, engine: d2m.Engine, cost: dict[str, float], phases: int, approx: bool
) -> float:
    """The cost model's cycles for computing one tile of `op` on `engine`
    (docs/cost_model.md; lib/kernel_api.cpp charges the same entries)."""
    sfpu = engine is d2m.Engine.SFPU
    if engine is d2m.Engine.UNPACK:
        return 0
    if isinstance(op, d2m.TileMatmulOp):
        floors = [cost[_MATMUL_FLOOR[_tile_format(v)]] for v in _matmul_inputs(op)]
        return max(cost["matmul_tile_per_phase"] * phases, *floors)
    if isinstance(op, d2m.TileReduceSumOp | d2m.TileReduceMaxOp):
        return cost["reduce_tile_per_phase"] * phases
    if isinstance(op, d2m.TileMulOp) and not sfpu:
        return cost["eltwise_mul_tile_per_phase"] * phases
    if isinstance(op, d2m.TileAddOp | d2m.TileSubOp | d2m.TileAccumulateOp) and not sfpu:
        return cost["eltwise_add_tile"]
    if isinstance(op, d2m.TileCopyOp):
        return cost["sfpu_copy_dest_tile"] if sfpu else cost["copy_tile"]
    if isinstance(op, d2m.TileExpOp):
        return cost["exp_approx_tile" if approx else "exp_tile"]
    return cost[_OP_COST.get(type(op), "sfpu_simple_tile")]


def _tile_format(value: SSAValue) -> DataType:
    assert isinstance(value.type, TileType)
    return value.type.element_format


def _matmul_inputs(op: d2m.TileMatmulOp) -> list[SSAValue]:
    """The CB tiles a matmul unpacks (a transpose applied while unpacking reads its input)."""
    b = op.b.owner
    return [op.a, b.input if isinstance(b, d2m.TileTransposeOp) else op.b]


def _init_key(op: Operation, engine: d2m.Engine) -> InitKey | None:
    """The init `op` needs on `engine` (None: applied while unpacking, no init)."""
    if engine is d2m.Engine.UNPACK:
        return None
    if engine is d2m.Engine.SFPU:
        return ("sfpu", ("scalar",) if isinstance(op, _SCALAR_OPS) else (type(op).__name__,))
    if isinstance(op, d2m.TileCopyOp):
        return ("fpu", ("copy",))
    detail: object = engine
    if isinstance(op, d2m.TileReduceSumOp | d2m.TileReduceMaxOp):
        detail = op.dim.data
    elif isinstance(op, d2m.TileBcastOp):
        detail = op.kind.data
    elif len(op.operands) == 2 and isinstance(rhs := op.operands[1].owner, d2m.TileBcastOp):
        detail = (engine, rhs.kind.data if applied_while_unpacking(rhs) else None)
    return ("fpu", (type(op).__name__, detail))


def _is_reduce(key: InitKey) -> bool:
    return key[1][0] in (d2m.TileReduceSumOp.__name__, d2m.TileReduceMaxOp.__name__)


def _hoisted_groups(keys: list[InitKey]) -> set[str]:
    """The groups whose init ttkernel-place-inits moves before a loop whose body issues
    `keys`: those with one distinct init there (a reduction's only when it is the
    body's one init)."""
    hoisted = set()
    for group in ("fpu", "sfpu"):
        distinct = list(dict.fromkeys(k for k in keys if k[0] == group))
        if len(distinct) == 1 and (len(keys) == 1 or not _is_reduce(distinct[0])):
            hoisted.add(group)
    return hoisted


def _issued(keys: list[InitKey], state: dict[str, InitKey | None], skip: set[str]) -> int:
    """Init sites straight-line code issues from `state` (the init in force per group,
    updated): each init differing from its group's, but for the groups in `skip`."""
    issued = 0
    for key in keys:
        if key[0] in skip or state[key[0]] == key:
            continue
        issued += 1
        state[key[0]] = key
    return issued


def _section_inits(
    before: list[InitKey], loop: list[InitKey], trips: int, after: list[InitKey]
) -> int:
    """Init sites a DST section issues as the body of the subblock loop: `before` and
    `after` once, `loop` the inits of the reduction loop's body (`trips` iterations).
    A group whose init is hoisted out of the subblock loop costs nothing per section;
    the others are issued from an unknown state at the section's start, and at the top
    of every iteration of the reduction loop when it keeps inits of theirs."""
    kept_groups = {"fpu", "sfpu"} - _hoisted_groups(loop)
    kept = [k for k in loop if k[0] in kept_groups]  # stay in the reduction loop
    lifted = [k for k in dict.fromkeys(loop) if k[0] not in kept_groups]  # go before it
    per_generic = _hoisted_groups(before + lifted + kept + after)
    state: dict[str, InitKey | None] = {"fpu": None, "sfpu": None}
    issued = _issued(before + lifted, state, per_generic)
    if kept:
        issued += trips * _issued(kept, {"fpu": None, "sfpu": None}, per_generic)
        state.update(dict.fromkeys(kept_groups))
    return issued + _issued(after, state, per_generic)


def section_cost(generic: GenericOp, schedule: DstSchedule) -> SectionCost:
    """The modeled cost of `generic`'s DST sections from the device description's
    per-call costs (the module's `ttcore.device`) and its compute configuration."""
    cost = load_device(device_of(generic).device_name.data).costs
    config = compute_config_of(generic)
    phases = FIDELITY_PHASES[config.math_fidelity]
    ranges = loop_ranges(generic)
    parallel = parallel_dims(generic)
    trips = prod(r for d, r in enumerate(ranges) if d not in parallel)
    prologue, in_reduction, _ = body_parts(generic)
    parts = {op: 0 for op in prologue} | {op: 1 for op in in_reduction}  # else 2: epilogue
    math = [0.0, 0.0, 0.0]
    keys: list[list[InitKey]] = [[], [], []]
    acc = accumulator(generic)
    if acc is not None:  # d2m-lower-to-loops starts it from the output block, or -inf
        is_max = any(isinstance(use.operation, d2m.TileReduceMaxOp) for use in acc.uses)
        if not output_is_undefined(generic):
            math[0] += cost["copy_tile"]
            keys[0].append(("fpu", ("copy",)))
        elif is_max:
            math[0] += cost["sfpu_simple_tile"]
            keys[0].append(("sfpu", (d2m.TileFillOp.__name__,)))
    body = body_ops(generic)
    for step in schedule.steps:
        if isinstance(step, Spill):
            continue
        if isinstance(step, Copy):
            part = parts.get(body[step.index], 2) if step.index < len(body) else 2
            sfpu = step.engine is d2m.Engine.SFPU
            math[part] += cost["sfpu_copy_dest_tile"] if sfpu else cost["copy_tile"]
            keys[part].append(("sfpu", ("copy_dest",)) if sfpu else ("fpu", ("copy",)))
            continue
        part = parts.get(step.op, 2)
        math[part] += _op_cycles(step.op, step.engine, cost, phases, config.math_approx_mode)
        if (key := _init_key(step.op, step.engine)) is not None:
            keys[part].append(key)
    summed = generic.attributes.get(SUMMED_OUTPUTS_ATTR)
    packed = [0, *(summed.get_values() if isinstance(summed, DenseArrayBase) else ())]
    tiles = [generic.outputs[i].type.element_type for i in packed]  # type: ignore[attr-defined]
    pack = sum(ceil(tile.size_bytes() / cost["pack_bytes_per_cycle"]) for tile in tiles)
    sync = cost["tile_regs_sync"]
    inits = _section_inits(keys[0], keys[1], trips, keys[2])
    return SectionCost(
        math_per_tile=math[0] + trips * math[1] + math[2],
        math_per_section=2 * sync + inits * cost["init"],
        pack_per_tile=pack,
        pack_per_section=2 * sync,
        overlap=not config.dst_full_sync_en,
    )


def _next_generic(op: GenericOp) -> GenericOp | None:
    """The generic the compute thread runs after `op` in its block (the first inside a
    loop or branch that follows it); None when the block ends first."""
    sibling = op.next_op
    while sibling is not None:
        for inner in sibling.walk():
            if isinstance(inner, GenericOp):
                return inner
        sibling = sibling.next_op
    return None


def _blocks(values: Sequence[SSAValue]) -> set[SSAValue]:
    """The blocks `values` (the blocks views view), and the CBs they are taken from."""
    blocks = {d2m.viewed_block(v) for v in values}
    return blocks | {b.owner.cb for b in blocks if isinstance(b.owner, d2m.WaitOp | d2m.ReserveOp)}


def _first_section_math(generic: GenericOp) -> float:
    """The modeled math of `generic`'s first DST section, at the largest subblock that
    fits (its tile math only: what the packer may work behind); 0 when its body cannot
    be placed (the pass reports that when it reaches it)."""
    if not all(isinstance(arg.type, TileType) for arg in generic.body.block.args):
        return 0
    try:
        schedule = schedule_dst(generic)
    except DstLivenessError:
        return 0
    ranges = loop_ranges(generic)
    extents = [ranges[d] for d in parallel_dims(generic)]
    largest = fitting_shapes(extents, dst_capacity_of(generic) // max(schedule.peak, 1))[0]
    return section_cost(generic, schedule).math_per_tile * prod(largest)


def hidden_by_next(op: GenericOp) -> float:
    """Math of the next generic that `op`'s last pack runs behind: its first section's,
    unless it reads or writes a block of `op`'s CBs (it then waits for the pack) or
    none follows in the block (0)."""
    following = _next_generic(op)
    if following is None or _blocks(following.operands) & _blocks(op.outputs):
        return 0
    return _first_section_math(following)


def choose_subblock(extents: list[int], max_tiles: int, cost: SectionCost | None) -> list[int]:
    """The subblock shape: of the shapes dividing `extents` with at most `max_tiles`
    tiles, the one with the fewest modeled cycles under `cost` (ties, and `cost` None:
    the most tiles, then the widest innermost extents)."""
    shapes = fitting_shapes(extents, max_tiles)
    if cost is None:
        return list(shapes[0])
    tiles = prod(extents)
    return list(min(shapes, key=lambda s: cost.generic_cycles(tiles, prod(s))))


class SubblockGeneric(RewritePattern):
    """A generic whose block overflows DST -> `d2m.subblock` with the best fitting shape."""

    def __init__(self, largest_fit: bool):
        super().__init__()
        self.largest_fit = largest_fit

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GenericOp, rewriter: PatternRewriter) -> None:
        if SUBBLOCK_ATTR in op.attributes or not op.body.block.args:
            return
        if not all(isinstance(arg.type, TileType) for arg in op.body.block.args):
            return
        if op.res:
            raise PassError(op, "still returns tensors; run d2m-bufferize first.")
        try:
            schedule = schedule_dst(op)
        except DstLivenessError as error:
            raise PassError(error.op, error.message) from None
        footprint = schedule.peak
        capacity = dst_capacity_of(op)
        ranges = loop_ranges(op)
        extents = [ranges[d] for d in parallel_dims(op)]
        if prod(extents) * footprint <= capacity:
            return
        cost = None
        if not self.largest_fit and footprint <= capacity:
            cost = replace(section_cost(op, schedule), next_math=hidden_by_next(op))
        shape = choose_subblock(extents, capacity // max(footprint, 1), cost)
        op.attributes[SUBBLOCK_ATTR] = DenseArrayBase.from_list(i64, shape)
        rewriter.notify_op_modified(op)


@dataclass(frozen=True)
class D2MTileSubblock(ModulePass):
    """Splits generics whose DST footprint exceeds capacity into fitting subblocks."""

    name = "d2m-tile-subblock"

    largest_fit: bool = False
    """True: the largest subblock that fits, without the timing model (bench/dst.py
    compares the two)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            SubblockGeneric(self.largest_fit), apply_recursively=False
        ).rewrite_module(op)
