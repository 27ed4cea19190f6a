"""d2m-generate-datamovement: writes the data movement of a generic's implicit operands
(those no thread moves with DMA) as ordinary data-movement IR.

An operand is implicit when no `d2m.dma_read` reads it and no `d2m.dma_write` writes
it, and the compute thread uses its CB. Kernel-local CBs (the regions' CB arguments
past the operands') belong to no operand and get no data movement; new regions get
them too. Implicit operands are sharded over the grid
by the generic's iteration space (docs/dsl.md, "Implicit operands"):

- Loop dims: the generic's `indexing_maps` (one per operand, results a loop dim or 0)
  and `iterator_types`; without maps, every operand is indexed by the identity map
  and every dim is parallel. Each map result that is a loop dim gives that dim's block
  (tiles of the operand's CB block along it) and extent (the operand's tiles along it);
  implicit operands must agree on both.
- The grid: its columns (dim 1) take the last parallel loop dim, its rows (dim 0) the
  one before. Core (y, x) owns the contiguous range of blocks y (resp. x) of the
  `extent / block / grid` blocks along that dim; other dims are not split.
- Streams: a core walks its blocks with the loop dims nested in order (dim 0
  outermost). An operand is read (written) once per iteration of the loops down to
  the innermost dim its map uses: matmul's `a` (m, k) and `b` (k, n) once per
  (m, n, k), its `out` (m, n) once per (m, n), after the k loop. The compute thread
  must consume (produce) the blocks in that order.

Triangular spaces and dealing: the generic's `loop_bounds` give a loop dim (one no
grid dim splits) a bound computed from the block indices of the dims outside it
(causal attention: K/V chunks 0..i for Q chunk i); the generated loop runs to it.
`deal = "serpentine"` deals a split dim's R blocks per core over G cores in rounds:
the core's nth block is r·G + G − 1 − x for even n, r·G + x for odd n, r = R − 1 − n
(with R = 2: 2G − 1 − x, then x: a long and a short row of a triangle). Every
`d2m.block_index(dim) %n` in the generic's threads becomes that arithmetic. Under a
serpentine deal, a bounded loop whose bound uses a split dim runs backwards in that
dim's odd blocks n (step s takes block bound − 1 − s; the compute thread must consume
the blocks in that order too): a triangle's short rows then end where the long rows
of the same cores ended, so the cores take each block at the same step.
When a bound above an input shared along a grid dim depends on that dim's loop dim,
the cores' loops differ: the input is multicast only in the rounds (core-local
blocks n of the split dim) where, evaluated at compile time for every core, the
bound does not grow along the grid dim in a forward round (the cores reaching a
block are the first ones; the first core reaches every block and sends) or does not
shrink in a backward one (the last ones; the last core sends), and where every core
has moved as many of the input's blocks as the sender before each of the round's (a
multicast lands in the sender's CB slot; the loops are walked at compile time: two
heads per core whose counts differ fail it). The sender counts the receivers at run
time and multicasts to just those (none: no handshake). In a forward round those
cores only shrink, so no receiver signals `ready` for a later block early; in a
backward round they grow, so a core taking its first block of the round waits for
the sender's `go` (a semaphore of its own), which the sender gives at that block, after
the previous block's `ready`s; backward rounds use their own `valid`s (a sender's
`semaphore_set` leaves its own word at 1, and the forward sender receives in them).
In the other rounds every core reads its own blocks.

Before (compute thread of a 1x2-grid triangle: a block i, b blocks 0..i):

    d2m.generic {grid = #ttcore.grid<1x2>, ..., loop_bounds = [(d0, d1) -> (),
                 (d0, d1) -> (d0 + 1)], deal = "serpentine"} ... {
      scf.for %n = %c0 to %c2 step %c1 {
        %x = d2m.wait %a_cb ...
        %i = d2m.block_index(0) %n
        %end = arith.addi %i, %c1 : index
        scf.for %j = %c0 to %end step %c1 { %y = d2m.wait %b_cb ... }

After (`%i` = 2·(1 − n) + (1 − x when n is even, else x); the reader's b loop runs
to the same bound, backwards when n is odd; in round 0, blocks 3 − x with bounds 4,
3, core 0 multicasts b; in round 1, blocks x with bounds 1, 2, core 1 does):

        %r = arith.subi %c1, %n : index
        %even = arith.remui (arith.addi %n, %c1), %c2 : index
        ... %i = arith.addi (arith.muli %r, %c2), (x + even · (1 − x − x))
    }, {
      scf.for %d0 = %c0 to %c2 step %c1 {
        ... reserve, dma_read %a[i, 0], push ...
        scf.for %s = %c0 to (i + 1) step %c1 {
          %d1 = %s + (%d0 mod 2) · (i − 2·%s)          // i - s in odd rounds
          %blk = d2m.reserve %b_cb ...
          scf.if (%d0 == 0) {
            scf.if (x == 0) {
              dma_read %b[%d1, 0]; %n = [%d1 < core 1's bound]   // receivers
              scf.if (%n > 0) { semaphore_wait ready, %n; dma_mcast ... mcast[1, %n + 1]; ... }
            } else { semaphore_inc ready at (y, 0); semaphore_wait valid }
          } else {
            scf.if (%d0 == 1) {
              scf.if (x == 1) {
                dma_read %b[%d1, 0]; %n = [%d1 < core 0's bound]
                scf.if (%d1 + 1 == core 0's bound) { semaphore_set go at (y, 0) }
                scf.if (%n > 0) { semaphore_wait ready, %n; dma_mcast ... core[y, 1 - %n] ...;
                                  semaphore_set back_valid ... }
              } else {
                scf.if (%s == 0) { semaphore_wait go }            // its first block
                semaphore_inc ready at (y, 1); semaphore_wait back_valid
              }
            } else { dma_read %b[%d1, 0] ... }
          }
          d2m.push %b_cb

Inputs get a reader: `reserve`, `dma_read` of the block, `dma_wait`, `push` (the reads
of one loop level are all issued before the first wait). An input whose map does not
use the loop dim of a grid dim (matmul's `a` has no n: every core of a grid row reads
the same blocks) is read once per grid row (column, or grid) by one of its cores
("Senders", below) and multicast to the others with tt-metal's handshake on new semaphores per set of shared
grid dims, a `ready` and a `valid` per input: each receiver reserves its blocks and
increments the sender's `ready`; the sender reads the blocks, waits for all
receivers, multicasts each block into the same CB slot and sets the receivers' `valid`
of that block, on which they push it (inputs moving at one level with the same
senders, like FlashAttention's k and v, share one handshake and its `ready`; a core
first takes one branch per combination of its roles, in which it issues the first
member's DRAM reads of each handshake it sends and its `ready`s before the handshakes, then
runs those it sends, then those it receives, each kind in group order: a send waits
only for `ready`s, which every core sends before its first handshake, so no core waits
for one that waits for it, and a core sending b and receiving a, like a matmul's b senders,
multicasts b without waiting for a). A sender reads a handshake's blocks in pieces (below):
the first member's pieces all at once, each later one as the multicast before it goes
out (a `d2m.dma_wait` waits for its own read only: convert-d2m-to-ttkernel gives each
read a transaction id, `noc_async_read_set_trid` / `noc_async_read_barrier_with_trid`,
so issuing K's pieces together holds no multicast for a later piece; V's reads issued
with them would reach DRAM before the receivers' next reads and delay those). Once a
piece's read is through it multicasts the piece, `linked` (the NoC keeps the path for
the sender's next multicast, so what follows lands after it), and sets the block's
`valid` right after the block's last piece. The last piece's multicast is linked
too, to the last block's `valid`. The sender pushes
each block to its compute thread after its last piece's multicast, before the write
barriers (compute only reads it).

Deferred waits: a sender waits for a handshake's multicasts one block later, with
`d2m.dma_write_barrier` just before the next block's `ready` wait, when its reads of
the next block are already out (the last block's after the loops). The multicasts read
the sender's CB slot (and its `valid` words), which nothing writes before then: the
next block goes to the CB's other slot, so every member's CB must hold two blocks or
more (else the wait stays right after the multicasts), and multicasts in rounds keep
it there too. bench/implicit_matmul.py, modeled cycles: 8x8 with 4x4-tile blocks
43,187 -> 41,777, 2x2-tile 16,371 -> 14,818, 4x4 grid 14,071 -> 12,394 (the sender of a
block read its next block only after the previous multicast was through);
FlashAttention [1, 8, 512, 64] non-causal 20,307 -> 20,214, the rest unchanged.

Senders: the core reading an input shared along one grid dim of an R x C grid sits on
a diagonal: row y's (the input is the same along the row, like matmul's `a`) in column
(y + C / 2) mod C, column x's (matmul's `b`) in row x mod R. Senders in one NoC column
would share its links into their cores for every DRAM read (a link serves one transfer
at a time; tt-metal's DRAM report reaches its bandwidth only with the readers spread
out, docs/cost_model.md); the half-row offset keeps the two diagonals apart, so on a
square grid no core sends both. Each multicasts to its whole row (column), itself
inside the range (tt-metal: a non-loopback multicast's source may lie in its
destination range, and is not written). bench/implicit_matmul.py, modeled cycles
before (`a` sent by column 0, `b` by row 0) and after: 8x8 grid with 4x4-tile blocks
95,148 -> 46,109, 2x2-tile blocks 23,976 -> 17,735, 4x4 grid 21,880 -> 16,054;
FlashAttention's K/V (sent down the columns, from row 0 before) within 0.3%.
An input shared along both grid dims is sent by core (0, 0), and a multicast in
rounds by the first core that reaches every block (the last, backward; above).

First blocks first: at the start every core reads its own first blocks (FlashAttention's
Q chunk) and each sender the shared first block of its line (K's first chunk); the
banks and links serve transfers in the order they come, so the sender's block, issued
after its own Q had landed, queued behind its receivers' Q reads and the first step
waited for it. With one handshake (`_primed_sharing`: a single set of senders, its
inputs at one loop level, multicast at the first iteration, and some input each core
reads itself), a receiver of the first blocks reserves them and sends `ready` at the
reader's start (its CBs are empty; the first iteration skips that `ready`), and waits
for the sender's `start` (a new semaphore) before its own first reads; the sender sets
`start` once every piece of its first member's first block has been issued (they go
out together, before its `ready` wait). Measured first on edited readers, when the
pieces still went out one after the other: `start` once K's first piece was issued
gave 97,295 at D = 64 (the second then queued behind the Q reads), once V's first
was, 98,014. Modeled, FlashAttention
(8x8, default chunks), causal / non-causal: [1, 8, 2048, 64] 96,811 -> 96,034 /
166,365 -> 163,454, [1, 8, 2048, 128] 160,354 -> 158,193 / 273,298 -> 268,739,
[1, 8, 512, 64] 20,229 -> 20,198 / 20,214 -> 19,232; matmul (two handshakes) not primed.

    ^bb0(...):                                                // the reader
      scf.if %receives_first {                                // not the sender; loops reach it
        d2m.reserve %k_cb ; d2m.reserve %v_cb
        d2m.semaphore_inc %k_v_ready, %c1 core[%sender_y, %x]
      }
      scf.for %d0 ... {
        scf.if (%d0 == 0 and %receives_first) { d2m.semaphore_wait %k_v_start, %c1 reset %c0 }
        ... the Q read ...
        scf.for %d1 ... {
          sender: k's reads issued; scf.if (first iteration) { d2m.semaphore_set %k_v_start ... }
                  d2m.semaphore_wait %k_v_ready ... (the multicasts as below)
          receiver: scf.if (not the first iteration) { d2m.semaphore_inc %k_v_ready ... } ...

Pieces: a block of B >= `PIECE_BYTES` (32 KiB) bytes whose dims before its tile rows
are 1 is read and multicast in max(2, B // PIECE_BYTES) runs of its tile rows (at most
one a row; `rows(start, stop)` of `d2m.dma_read` and `d2m.dma_mcast`), as even as the
rows allow; any other block is one piece. A piece costs a multicast issue (and,
for a later member's pieces, a DRAM round trip that no read overlaps: ~185 modeled
cycles plus 9 a hop); it takes the multicast of the block's other pieces off the
block's path. Measured (docs/passes.md has the table): 8 KiB blocks in two pieces
cost matmul 18% (they stay whole); a 32 KiB matmul block gains 10% in two;
FlashAttention's 128 KiB blocks gain the most in four pieces of 32 KiB and lose in
eight.
FlashAttention's K/V sender at D = 64, k_chunk 512 (16x2-tile blocks, 64 KiB):

    %k0 = d2m.dma_read %k[...], %k_blk rows(0, 8)
    %k1 = d2m.dma_read %k[...], %k_blk rows(8, 16)      // together: each wait is its own
    d2m.dma_write_barrier                              // the previous block's multicasts
    d2m.semaphore_wait %k_v_ready, %c7 reset %c0
    d2m.dma_wait %k0
    %m0 = d2m.dma_mcast %k_blk, %k_blk core[%c0, %x] mcast[%c8, %c1] rows(0, 8) linked
    d2m.dma_wait %k1
    %m1 = d2m.dma_mcast %k_blk, %k_blk core[%c0, %x] mcast[%c8, %c1] rows(8, 16) linked
    d2m.semaphore_set %k_valid, %c1 core[%c0, %x] mcast[%c8, %c1]   // after both
    %v0 = d2m.dma_read %v[...], %v_blk rows(0, 8)      // v's pieces as the one before goes
    d2m.push %k_cb
    ... v's two pieces, v's `valid`, d2m.push %v_cb; the multicasts are
    waited for a block later (`d2m.dma_write_barrier` before the next `ready` wait)
The compute thread's `d2m.wait`s move down to the first op using the waited block
or its CB: a `with k.wait(), v.wait()` starts on k before v has landed (a wait
changes nothing other threads see, so waiting later adds no deadlock). Outputs get a writer:
`wait`, `dma_write`, `dma_wait`, `pop`. CBs keep their block count (2 by default: the
reader fills one block while compute uses the other).

The reader goes into the first data-movement thread whose body is empty (`pass`),
the writer into the next; missing ones are added as new data-movement threads, even
beyond the two a core runs (d2m-hw-thread-selection merges them afterwards).
(tt-mlir splits this in two: `d2m-generic-generate-datamovement` writes one
data-movement region per operand and `d2m-generic-hw-thread-selection` merges them
onto the two data-movement RISC-Vs; here one pass writes one reader and one writer.)

Before (2x2 grid, 2x2-tile blocks of an 8x8-tile matmul; maps (m, k), (k, n), (m, n)):

    d2m.generic {grid = #ttcore.grid<2x2>, block_factors = [1, 1, 1],
                 indexing_maps = [#mk, #kn, #mn], iterator_types = [par, par, red],
                 threads = [#d2m.thread<compute>]} ins(%a, %b : ...) outs(%out : ...) {
    ^bb0(%a_cb: !cb, %b_cb: !cb, %out_cb: !cb):
      ... compute: per (m, n) of its 2x2 blocks, 4 K blocks of a and b, one out ...
    }

After (the reader: `a` multicast along grid rows, `b` down grid columns; the writer
of `out`):

    }, {
    ^bb0(%a_cb: !cb, %b_cb: !cb, %out_cb: !cb, %a_ready: !d2m.semaphore,
         %a_valid: !d2m.semaphore, %b_ready: !d2m.semaphore, %b_valid: !d2m.semaphore):
      %y = d2m.core_index(0)
      %x = d2m.core_index(1)
      %m0 = arith.muli %y, %c2 : index              // the core's first m block
      scf.for %m = %c0 to %c2 step %c1 {
        scf.for %n = %c0 to %c2 step %c1 {
          scf.for %k = %c0 to %c4 step %c1 {
            %a_blk = d2m.reserve %a_cb : !cb -> memref<2x2x!tile, #l1>
            %b_blk = d2m.reserve %b_cb : !cb -> memref<2x2x!tile, #l1>
            %y1 = arith.addi %y, %c1 : index
            %a_at = arith.remui %y1, %c2 : index     // row y's sender: column (y + 1) mod 2
            %b_at = arith.remui %x, %c2 : index      // column x's: row x mod 2
            %sends_a = arith.cmpi eq, %x, %a_at : index
            %sends_b = arith.cmpi eq, %y, %b_at : index
            scf.if %sends_a {
              scf.if %sends_b { ... sends both (no core of a 2x2 grid) ... } else {
                %ta = d2m.dma_read %a[%row, %col], %a_blk : ...   // cores (0, 1) and (1, 0)
                d2m.semaphore_inc %b_ready, %c1 core[%b_at, %x]
                d2m.dma_write_barrier                // the previous block's multicast
                d2m.semaphore_wait %a_ready, %c1 reset %c0
                d2m.dma_wait %ta
                %ma = d2m.dma_mcast %a_blk, %a_blk core[%y, %c0] mcast[%c1, %c2] linked : ...
                d2m.semaphore_set %a_valid, %c1 core[%y, %c0] mcast[%c1, %c2]
                d2m.push %a_cb : !cb                 // compute may start on it
                d2m.semaphore_wait %b_valid, %c1 reset %c0
                d2m.push %b_cb : !cb
              }
            } else {
              scf.if %sends_b { ... receives a, sends b down the column ... } else {
                d2m.semaphore_inc %a_ready, %c1 core[%y, %a_at]     // (no core of a 2x2 grid)
                d2m.semaphore_inc %b_ready, %c1 core[%b_at, %x]
                d2m.semaphore_wait %a_valid, %c1 reset %c0
                d2m.push %a_cb : !cb
                d2m.semaphore_wait %b_valid, %c1 reset %c0
                d2m.push %b_cb : !cb
              }
            }
      ... the loops end
      d2m.dma_write_barrier                          // the last block's multicasts
    }, {
      ... scf.for %m, %n: d2m.wait %out_cb, d2m.dma_write, d2m.dma_wait, d2m.pop ...
    }

Fails (PassError, at the generic) when the implicit operands do not describe one
iteration space: a map result other than a loop dim or 0, operands disagreeing on a
dim's block or extent, a dim no implicit operand spans, an extent the grid and block
do not divide, a grid dim with no parallel loop dim, a bound on a split dim or
outside [0, the dim's blocks] at some block index; and at a `d2m.block_index` in a
generic without implicit operands or past its loop dims.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import product
from math import prod

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    ArrayAttr,
    IndexType,
    IntegerType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
)
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.ir.affine import (
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)
from xdsl.passes import ModulePass

from ttlang.dialects import d2m
from ttlang.dialects.ttcore import IteratorType, TileType
from ttlang.transforms.diagnostics import PassError
from ttlang.transforms.index_arith import affine_value

GRID_RANK = 2


@dataclass(frozen=True)
class Stream:
    """One implicit operand's stream of blocks: which operand, its map, the loop depth
    at which a block moves (1 + the innermost loop dim its map uses) and the grid dims
    along which every core moves the same blocks (multicast from the first core)."""

    index: int
    is_input: bool
    indexing_map: AffineMap
    depth: int
    shared_grid_dims: tuple[int, ...]
    # multicast only in these core-local blocks of the split loop dim `round_dim`, to the
    # first cores whose bounded loops reach the block (None: always, to every core)
    rounds: tuple[int, ...] | None = None
    round_dim: int | None = None
    # those of `rounds` whose bounded loop runs backwards (`backwards`): the last core,
    # whose loops reach every block, multicasts to the last cores reaching the block
    backward: tuple[int, ...] = ()

    @property
    def sharing(self) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
        """Streams with the same sharing share a handshake (and its semaphores)."""
        return self.shared_grid_dims, self.rounds


Member = tuple[SSAValue, SSAValue, SSAValue, list[SSAValue]]  # cb, L1 block, source, indices
Piece = tuple[int, tuple[int, int] | None]  # a member (position) and its tile rows (None: whole)
Sharing = tuple[tuple[int, ...], tuple[int, ...] | None]  # Stream.sharing


@dataclass(frozen=True)
class Semaphores:
    """A handshake's semaphores, as positions among the regions' block arguments: one
    `ready`, a `valid` per member (by operand index: its block has landed), where the
    group is multicast in backward rounds a `back_valid` per member and `go`, and for
    the primed handshake (module docstring, "First blocks first") `start`."""

    ready: int
    valid: dict[int, int]
    back_valid: dict[int, int]
    go: int | None
    start: int | None = None  # the primed handshake's (`_primed_sharing`)


Group = tuple[tuple[int, ...], Semaphores, Sequence[Member]]  # shared dims


@dataclass(frozen=True)
class IterationSpace:
    """Per loop dim: tiles per block, blocks per core, the grid dim splitting it and
    its bound (None: all its blocks); how split dims are dealt to cores."""

    block: tuple[int, ...]
    blocks_per_core: tuple[int, ...]
    grid_dim_of: dict[int, int]  # loop dim -> grid dim
    grid: tuple[int, int]
    bounds: tuple[AffineExpr | None, ...]
    deal: str

    def backwards(self, dim: int) -> int | None:
        """The split dim whose odd core-local blocks run bounded loop dim `dim` backwards
        (serpentine: a bound that uses a split dim), or None: it always runs forwards."""
        bound = self.bounds[dim]
        if self.deal != "serpentine" or bound is None:
            return None
        return next((d for d in sorted(bound.used_dims()) if d in self.grid_dim_of), None)


def _implicit_operands(generic: d2m.GenericOp) -> list[int]:
    """Operands no DMA moves (nor `d2m.fill_causal_mask` fills) whose CB the compute
    thread uses (and, for an input, does not fill itself)."""
    moved = set()
    for op in generic.walk():
        if isinstance(op, d2m.DMAReadOp):
            moved.add(op.src)
        elif isinstance(op, d2m.DMAWriteOp):
            moved.add(op.dst)
        elif isinstance(op, d2m.FillCausalMaskOp):
            cb = op.block.owner.cb if isinstance(op.block.owner, d2m.ReserveOp) else None
            if isinstance(cb, BlockArgument) and cb.index < len(generic.operands):  # not kernel-local
                moved.add(generic.operands[cb.index])
    kinds = generic.thread_kinds
    if d2m.ThreadType.COMPUTE not in kinds:
        return []
    compute = generic.thread_regions[kinds.index(d2m.ThreadType.COMPUTE)].block
    return [
        index
        for index, operand in enumerate(generic.operands)
        if operand not in moved
        and compute.args[index].uses
        and not (index < len(generic.inputs) and _filled_by_compute(compute.args[index]))
    ]


def _filled_by_compute(cb: SSAValue) -> bool:
    """An input CB the compute thread reserves is its own scratch (tt-metal's
    accumulation through a CB): no reader may fill it."""
    return any(isinstance(use.operation, d2m.ReserveOp) for use in cb.uses)


def _maps(generic: d2m.GenericOp, implicit: Sequence[int]) -> tuple[list[AffineMap], list[IteratorType]]:
    if generic.indexing_maps is not None:
        maps = [attr.data for attr in generic.indexing_maps.data]
        loop_rank = maps[0].num_dims
        if generic.iterator_types is not None:
            types = [attr.data for attr in generic.iterator_types.data]
        else:
            types = [IteratorType.PARALLEL] * loop_rank
        return maps, types
    ranks = {len(_shape(generic.operands[i])) for i in implicit}
    if len(ranks) != 1:
        raise PassError(
            generic,
            f"has implicit operands of ranks {sorted(ranks)} and no indexing_maps; "
            "give indexing_maps to say how their dims correspond",
        )
    (rank,) = ranks
    maps = [AffineMap.identity(len(_shape(operand))) for operand in generic.operands]
    return maps, [IteratorType.PARALLEL] * rank


def _shape(value: SSAValue) -> tuple[int, ...]:
    assert isinstance(value.type, MemRefType)
    return value.type.get_shape()


def _cb_block(generic: d2m.GenericOp, index: int) -> tuple[int, ...]:
    cb_type = generic.thread_regions[0].block.args[index].type
    assert isinstance(cb_type, d2m.CBType)
    return cb_type.block.get_shape()


def _iteration_space(
    generic: d2m.GenericOp, implicit: Sequence[int], maps: Sequence[AffineMap], types: Sequence[IteratorType]
) -> IterationSpace:
    loop_rank = len(types)
    block: dict[int, tuple[int, str]] = {}
    extent: dict[int, tuple[int, str]] = {}
    names = [_operand_name(generic, i) for i in range(len(generic.operands))]
    for index in implicit:
        shape, block_shape = _shape(generic.operands[index]), _cb_block(generic, index)
        for position, result in enumerate(maps[index].results):
            if isinstance(result, AffineConstantExpr) and result.value == 0:
                if block_shape[position] != shape[position]:
                    raise PassError(
                        generic,
                        f"indexes dim {position} of implicit operand {names[index]} with 0, "
                        f"so its block must span the dim's {shape[position]} tiles, but it has "
                        f"{block_shape[position]}",
                    )
                continue
            if not isinstance(result, AffineDimExpr):
                raise PassError(
                    generic,
                    f"indexes implicit operand {names[index]} with '{result}'; generated data "
                    "movement needs each map result to be a loop dim or 0",
                )
            for table, value, what in (
                (block, block_shape[position], "blocks"),
                (extent, shape[position], "extents"),
            ):
                seen = table.setdefault(result.position, (value, names[index]))
                if seen[0] != value:
                    raise PassError(
                        generic,
                        f"gives loop dim d{result.position} {what} of {seen[0]} tiles "
                        f"({seen[1]}) and {value} tiles ({names[index]}); implicit operands "
                        "must agree",
                    )
    for dim in range(loop_rank):
        if dim not in block:
            raise PassError(
                generic,
                f"has loop dim d{dim}, which no implicit operand's map uses; its extent is unknown",
            )
    grid = generic.grid.shape
    parallel = [d for d, t in enumerate(types) if t == IteratorType.PARALLEL]
    grid_dim_of = dict(zip(reversed(parallel), reversed(range(GRID_RANK))))
    for grid_dim in range(GRID_RANK):
        if grid[grid_dim] > 1 and grid_dim not in grid_dim_of.values():
            raise PassError(
                generic,
                f"has {grid[grid_dim]} cores along grid dim {grid_dim} but no parallel loop dim "
                "to split over them; use a grid of 1 there",
            )
    blocks_per_core = []
    for dim in range(loop_rank):
        cores = grid[grid_dim_of[dim]] if dim in grid_dim_of else 1
        tiles, tiles_per_block = extent[dim][0], block[dim][0]
        if tiles % (tiles_per_block * cores):
            raise PassError(
                generic,
                f"splits loop dim d{dim} ({tiles} tiles of {extent[dim][1]}) into blocks of "
                f"{tiles_per_block} tiles over {cores} cores, which does not divide it",
            )
        blocks_per_core.append(tiles // (tiles_per_block * cores))
    bounds = _bounds(generic, loop_rank, grid_dim_of, [extent[d][0] // block[d][0] for d in range(loop_rank)])
    return IterationSpace(
        tuple(block[d][0] for d in range(loop_rank)),
        tuple(blocks_per_core),
        grid_dim_of,
        grid,
        bounds,
        generic.deal.data if generic.deal is not None else "contiguous",
    )


def _bounds(
    generic: d2m.GenericOp, loop_rank: int, grid_dim_of: dict[int, int], blocks: Sequence[int]
) -> tuple[AffineExpr | None, ...]:
    """Each loop dim's bound (None: all its blocks), checked at every block index of
    the dims it uses: a bound lies in [0, the dim's blocks]; a dim the grid splits
    takes no bound."""
    if generic.loop_bounds is None:
        return (None,) * loop_rank
    bounds = []
    for dim, attr in enumerate(generic.loop_bounds.data):
        if not attr.data.results:
            bounds.append(None)
            continue
        (bound,) = attr.data.results
        if dim in grid_dim_of:
            raise PassError(
                generic,
                f"bounds loop dim d{dim}, which grid dim {grid_dim_of[dim]} splits; only a dim "
                "walked whole by every core (a reduction or unsplit dim) takes a bound",
            )
        used = sorted(bound.used_dims())
        for point in product(*(range(blocks[d]) for d in used)):
            values = [0] * loop_rank
            for d, value in zip(used, point):
                values[d] = value
            count = bound.eval(values, [])
            if not 0 <= count <= blocks[dim]:
                at = ", ".join(f"d{d} = {v}" for d, v in zip(used, point))
                raise PassError(
                    generic,
                    f"bounds loop dim d{dim} by {bound}, which is {count} at {at}; it must lie "
                    f"in [0, {blocks[dim]}], the dim's blocks",
                )
        bounds.append(bound)
    return tuple(bounds)


def _operand_name(generic: d2m.GenericOp, index: int) -> str:
    operand = generic.operands[index]
    return f"`{operand.name_hint}`" if operand.name_hint else f"operand {index}"


def _streams(
    generic: d2m.GenericOp, implicit: Sequence[int], maps: Sequence[AffineMap], space: IterationSpace
) -> list[Stream]:
    streams = []
    for index in implicit:
        used = {r.position for r in maps[index].results if isinstance(r, AffineDimExpr)}
        is_input = index < len(generic.inputs)
        depth = 1 + max(used, default=-1)
        # the loops down to the stream's depth, bounded by a split dim, differ per core
        varying = {d for bound in space.bounds[:depth] if bound is not None for d in bound.used_dims()}
        varying &= set(space.grid_dim_of)
        candidates = [
            (dim, grid_dim)
            for dim, grid_dim in sorted(space.grid_dim_of.items(), key=lambda item: item[1])
            if is_input and dim not in used and space.grid[grid_dim] > 1
        ]
        shared = tuple(g for dim, g in candidates if dim not in varying)
        stream = Stream(index, is_input, maps[index], depth, shared)
        if not varying:
            streams.append(stream)
            continue
        # Loops that differ per core along one grid dim: multicast in the core-local
        # blocks (rounds) where the cores needing a block are the first ones along it.
        (round_dim,) = varying if len(varying) == 1 else (None,)
        rounds, backward = _shared_rounds(space, round_dim, depth) if round_dim is not None else ((), ())
        if shared or not rounds or round_dim not in dict(candidates):
            streams.append(stream)
            continue
        grid_dim = space.grid_dim_of[round_dim]
        streams.append(
            Stream(index, is_input, maps[index], depth, (grid_dim,), rounds, round_dim, backward)
        )
    return streams


def _deal(space: IterationSpace, dim: int, core: int, n: int) -> int:
    """Emitter.block_index at compile time: the block of loop dim `dim` (split by a grid
    dim) that core coordinate `core` takes as its nth."""
    per_core, cores = space.blocks_per_core[dim], space.grid[space.grid_dim_of[dim]]
    if space.deal == "contiguous":
        return core * per_core + n
    return (per_core - 1 - n) * cores + (cores - 1 - core if n % 2 == 0 else core)


def _runs_backwards(space: IterationSpace, dim: int, ivs: Sequence[int]) -> bool:
    """Whether bounded loop dim `dim` runs backwards at core-local indices `ivs`."""
    split = space.backwards(dim)
    return split is not None and ivs[split] % 2 == 1


def _shared_rounds(
    space: IterationSpace, round_dim: int, depth: int
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The core-local blocks n of `round_dim` whose blocks can be multicast, and those
    of them whose bounded loop runs backwards. Forwards, every bound above `depth` must
    be non-increasing along the grid dim splitting it (at every block index of the
    other dims the bounds use): then the cores whose loops reach an iteration are the
    first ones, and the first core, whose loops reach every one, multicasts to them.
    Backwards (one bounded loop, the stream's innermost), non-decreasing: the cores
    reaching an iteration are the last ones, and the last core multicasts. A multicast
    lands at the sender's CB slot, so a round also needs every receiver to have moved
    as many blocks of the stream as the sender before each of its blocks (`_aligned`)."""
    cores = space.grid[space.grid_dim_of[round_dim]]
    blocks = [
        space.blocks_per_core[d] * (space.grid[space.grid_dim_of[d]] if d in space.grid_dim_of else 1)
        for d in range(len(space.block))
    ]
    bounded = [d for d in range(depth) if space.bounds[d] is not None]
    rounds, backward = [], []
    for n in range(space.blocks_per_core[round_dim]):
        ivs = [0] * len(space.block)
        ivs[round_dim] = n
        backwards = any(_runs_backwards(space, d, ivs) for d in bounded)
        if backwards and bounded != [depth - 1]:
            continue  # the joiners' gate (`_multicast`) knows one bounded loop
        monotone = True
        for dim in bounded:
            bound = space.bounds[dim]
            if round_dim not in bound.used_dims():
                continue
            others = sorted(bound.used_dims() - {round_dim})
            for point in product(*(range(blocks[d]) for d in others)):
                values = [0] * len(space.block)
                for d, value in zip(others, point):
                    values[d] = value
                counts = []
                for core in range(cores):
                    values[round_dim] = _deal(space, round_dim, core, n)
                    counts.append(bound.eval(values, []))
                if backwards:
                    counts.reverse()
                monotone &= all(a >= b for a, b in zip(counts, counts[1:]))
        if monotone:
            rounds.append(n)
            if backwards:
                backward.append(n)
    kept = _aligned(space, round_dim, depth, rounds, backward)
    return kept, tuple(n for n in backward if n in kept)


def _aligned(
    space: IterationSpace, round_dim: int, depth: int, rounds: Sequence[int], backward: Sequence[int]
) -> tuple[int, ...]:
    """Those of `rounds` in which, on every grid row (column), each core reaching an
    iteration of the loops down to `depth` has moved the same number of blocks before
    it as the round's sender (the first core; the last in `backward` rounds); the loops
    are walked at compile time, bounded ones backwards where they run so."""
    grid_dim = space.grid_dim_of[round_dim]
    other_dim = 1 - grid_dim

    def iterations(core: tuple[int, int]) -> dict[tuple[int, ...], int]:
        """The core's loop iterations down to `depth`, each with its position."""
        order: dict[tuple[int, ...], int] = {}

        def walk(ivs: list[int]) -> None:
            if len(ivs) == depth:
                order[tuple(ivs)] = len(order)
                return
            d, bound = len(ivs), space.bounds[len(ivs)]
            count = space.blocks_per_core[d]
            if bound is not None:
                values = [
                    _deal(space, e, core[space.grid_dim_of[e]], v) if e in space.grid_dim_of else v
                    for e, v in enumerate(ivs)
                ]
                count = bound.eval(values + [0] * (len(space.block) - len(values)), [])
            steps = range(count)
            if bound is not None and _runs_backwards(space, d, ivs + [0] * (len(space.block) - d)):
                steps = reversed(steps)
            for v in steps:
                walk([*ivs, v])

        walk([])
        return order

    kept = set(rounds)
    cores = space.grid[grid_dim]
    for other in range(space.grid[other_dim]):
        def core(position: int) -> tuple[int, int]:
            return (position, other) if grid_dim == 0 else (other, position)

        walks = [iterations(core(position)) for position in range(cores)]
        for position in range(cores):
            for ivs, index in walks[position].items():
                n = ivs[round_dim]
                sender = walks[cores - 1 if n in backward else 0]
                if n in kept and sender.get(ivs) != index:
                    kept.discard(n)
    return tuple(n for n in rounds if n in kept)


class _RegionWriter:
    """Appends ops to one data-movement region, with index constants and core
    coordinates made once at its top."""

    def __init__(self, block: Block, generic: d2m.GenericOp, space: IterationSpace):
        self.block = block
        self.generic = generic
        self.space = space
        self._constants: dict[int, SSAValue] = {}
        self.steps: dict[SSAValue, SSAValue] = {}  # a backwards loop's block -> its step
        # a sender waits for its multicasts a block later: the last ones after the loops
        self.multicasts_waited_after_loops = False
        self.primed: _Primed | None = None  # "First blocks first" (module docstring)
        self.core = [self.emit(d2m.CoreIndexOp(dim)).result for dim in range(GRID_RANK)]
        # the first block of the core's range along each contiguously dealt loop dim
        self.first_block: dict[int, SSAValue] = {}
        if space.deal == "contiguous":
            for dim, grid_dim in space.grid_dim_of.items():
                self.first_block[dim] = self.emit(
                    arith.MuliOp(self.core[grid_dim], self.constant(space.blocks_per_core[dim]))
                ).result

    def emit(self, op: Operation, block: Block | None = None) -> Operation:
        op.location = self.generic.location
        (block or self.block).add_op(op)
        return op

    def constant(self, value: int) -> SSAValue:
        if value not in self._constants:
            op = arith.ConstantOp(IntegerAttr(value, IndexType()))
            op.location = self.generic.location
            if self.block.first_op is None:
                self.block.add_op(op)
            else:
                self.block.insert_op_before(op, self.block.first_op)
            self._constants[value] = op.result
        return self._constants[value]

    def nest(
        self,
        streams: Sequence[Stream],
        emit_stream,
        semaphores: dict[Sharing, Semaphores],
        writes_after_inner_loops: bool,
    ) -> None:
        """Loops over the core's blocks down to the deepest stream; each stream's block
        moves at its depth (before the inner loops for readers, after them for writers)."""
        depth = max(s.depth for s in streams)

        def level(block: Block, ivs: list[SSAValue]) -> None:
            here = [s for s in streams if s.depth == len(ivs)]
            if here and not writes_after_inner_loops:
                emit_stream(self, block, here, ivs, semaphores)
            if len(ivs) < depth:
                dim = len(ivs)
                bound = self.space.bounds[dim]
                if bound is None:
                    upper = self.constant(self.space.blocks_per_core[dim])
                else:
                    at = Emitter(lambda op: self.emit(op, block).results[0], self.constant)
                    dims = [at.block_index(self, d, iv) for d, iv in enumerate(ivs)]
                    upper = affine_value(bound, dims, at.emit, at.constant)
                body = Block(arg_types=[IndexType()])
                body.args[0].name_hint = f"d{dim}"
                level(body, [*ivs, self.step_block(body, dim, ivs, upper)])
                body.add_op(scf.YieldOp())
                self.emit(scf.ForOp(self.constant(0), upper, self.constant(1), [], body), block)
            if here and writes_after_inner_loops:
                emit_stream(self, block, here, ivs, semaphores)

        level(self.block, [])

    def step_block(self, body: Block, dim: int, ivs: Sequence[SSAValue], upper: SSAValue) -> SSAValue:
        """The block of loop dim `dim` at step `body.args[0]` of its loop: the step, or,
        where the loop runs backwards (odd core-local blocks of `space.backwards(dim)`),
        upper - 1 - step; `self.steps` maps it back to the step."""
        step = body.args[0]
        split = self.space.backwards(dim)
        if split is None:
            return step
        at = Emitter(lambda op: self.emit(op, body).results[0], self.constant)
        odd = at.emit(arith.RemUIOp(ivs[split], self.constant(2)))
        last = at.emit(arith.SubiOp(upper, self.constant(1)))
        back = at.emit(arith.SubiOp(last, at.emit(arith.AddiOp(step, step))))
        block_ = at.emit(arith.AddiOp(step, at.emit(arith.MuliOp(odd, back))))
        self.steps[block_] = step
        return block_

    def tile_indices(self, block: Block, stream: Stream, ivs: Sequence[SSAValue]) -> list[SSAValue]:
        """The tile index of the stream's block at loop indices `ivs`, per operand dim."""
        indices = []
        for result in stream.indexing_map.results:
            if not isinstance(result, AffineDimExpr):
                indices.append(self.constant(0))
                continue
            dim = result.position
            at = Emitter(lambda op: self.emit(op, block).results[0], self.constant)
            block_index = at.block_index(self, dim, ivs[dim])
            tiles = self.emit(arith.MuliOp(block_index, self.constant(self.space.block[dim])), block)
            indices.append(tiles.result)
        return indices


@dataclass
class Emitter:
    """Emits index arithmetic through `emit` (appends an op, returns its result), with
    index constants from `constant`."""

    emit: Callable[[Operation], SSAValue]
    constant: Callable[[int], SSAValue]

    def block_index(self, place: _RegionWriter | _CoreIndices, dim: int, n: SSAValue) -> SSAValue:
        """The block index along loop dim `dim` of the core's `n`th block along it:
        contiguous, the core's first block + n; serpentine, with R blocks per core over
        G cores, block r·G + (G - 1 - x if n is even, else x) of round r = R - 1 - n:
        the first round deals the last G blocks backwards; a dim no grid dim splits, n."""
        space = place.space
        if dim not in space.grid_dim_of:
            return n
        grid_dim = space.grid_dim_of[dim]
        x = place.core[grid_dim]
        if space.deal == "contiguous":
            first = place.first_block.get(dim)
            if first is None:
                first = self.emit(arith.MuliOp(x, self.constant(space.blocks_per_core[dim])))
            return self.emit(arith.AddiOp(first, n))
        cores = space.grid[grid_dim]
        last = self.constant(space.blocks_per_core[dim] - 1)
        round_ = self.emit(arith.SubiOp(last, n))
        even = self.emit(arith.RemUIOp(self.emit(arith.AddiOp(n, self.constant(1))), self.constant(2)))
        mirrored = self.emit(arith.SubiOp(self.constant(cores - 1), x))
        flip = self.emit(arith.MuliOp(even, self.emit(arith.SubiOp(mirrored, x))))
        position = self.emit(arith.AddiOp(x, flip))
        return self.emit(arith.AddiOp(self.emit(arith.MuliOp(round_, self.constant(cores))), position))


@dataclass
class _CoreIndices:
    """What Emitter.block_index needs where no _RegionWriter is: the iteration space and
    the core's grid coordinates (no precomputed first blocks)."""

    space: IterationSpace
    core: list[SSAValue]
    first_block: dict[int, SSAValue]


def _lower_block_indices(generic: d2m.GenericOp, space: IterationSpace | None) -> None:
    """Replaces every `d2m.block_index` of the generic's threads by its arithmetic."""
    for op in [o for o in generic.walk() if isinstance(o, d2m.BlockIndexOp)]:
        dim = op.dim.value.data
        if space is None:
            raise PassError(
                op, "asks for a block index, but the generic has no implicit operands to "
                "define its iteration space",
            )
        if dim >= len(space.block):
            raise PassError(op, f"asks for loop dim {dim}, but the iteration space has {len(space.block)}")
        parent = op.parent_block()
        assert parent is not None

        def emit(new: Operation, before: Operation = op) -> SSAValue:
            new.location = op.location
            parent.insert_op_before(new, before)
            return new.results[0]

        def constant(value: int) -> SSAValue:
            return emit(arith.ConstantOp(IntegerAttr(value, IndexType())))

        core = [emit(d2m.CoreIndexOp(d)) for d in range(GRID_RANK)]
        value = Emitter(emit, constant).block_index(_CoreIndices(space, core, {}), dim, op.n)
        op.result.replace_all_uses_with(value)
        parent.erase_op(op)


def _wait_where_used(generic: d2m.GenericOp) -> None:
    """Moves each `d2m.wait` of the compute thread down to the first op of its block
    that uses the waited block or the CB: the reader hands over a handshake's blocks
    one at a time (a `valid` each), and a `with a.wait(), b.wait()` then starts on `a`
    without waiting for `b`. Waiting later only delays the thread's own progress (a
    wait changes nothing another thread sees), so it adds no deadlock."""
    kinds = generic.thread_kinds
    compute = generic.thread_regions[kinds.index(d2m.ThreadType.COMPUTE)]
    for wait in [op for op in compute.walk() if isinstance(op, d2m.WaitOp)]:
        block = wait.parent_block()
        assert block is not None
        here = wait.next_op
        while here is not None and not _uses(here, {wait.result, wait.cb}):
            here = here.next_op
        if here is not None and here is not wait.next_op:
            wait.detach()
            block.insert_op_before(wait, here)


def _uses(op: Operation, values: set[SSAValue]) -> bool:
    """Whether `op` or an op nested in it has an operand among `values`."""
    return any(operand in values for nested in op.walk() for operand in nested.operands)


def _read(
    writer: _RegionWriter,
    block: Block,
    streams: Sequence[Stream],
    ivs: Sequence[SSAValue],
    semaphores: dict[Sharing, Semaphores],
) -> None:
    """Reads one block of each of `streams`: the DRAM reads are all issued before the
    first is waited for (they overlap on the NoC); then the multicast blocks, one
    handshake per set of streams with the same senders."""
    emit = writer.emit
    reads = []
    multicasts: dict[Sharing, list[Member]] = {}
    partial: dict[Sharing, Stream] = {}
    if any(not stream.shared_grid_dims for stream in streams):
        _await_start(writer, block, ivs)
    for stream in streams:
        cb = block_cb(writer, stream)
        l1_block = emit(d2m.ReserveOp(cb, cb.type.block), block).result
        indices = writer.tile_indices(block, stream, ivs)
        source = writer.generic.operands[stream.index]
        if stream.shared_grid_dims:
            multicasts.setdefault(stream.sharing, []).append((cb, l1_block, source, indices))
            if stream.rounds is not None:
                partial[stream.sharing] = stream
        else:
            reads.append((cb, emit(d2m.DMAReadOp(source, indices, l1_block), block).tx))
    for cb, tx in reads:
        emit(d2m.DMAWaitOp(tx), block)
        emit(d2m.PushOp(cb), block)
    groups = [
        (sharing[0], semaphores[sharing], members)
        for sharing, members in multicasts.items()
        if sharing not in partial
    ]
    if groups:
        _multicast(writer, block, groups, ivs=ivs)
    for sharing, stream in partial.items():
        _multicast_in_rounds(writer, block, stream, (sharing[0], semaphores[sharing], multicasts[sharing]), ivs)


def _push(writer: _RegionWriter, block: Block, members: Sequence[Member]) -> None:
    for cb, *_ in members:
        writer.emit(d2m.PushOp(cb), block)


@dataclass
class _Primed:
    """The primed handshake (`_primed_sharing`): its streams and semaphores, the loop
    depth of the first reads the cores do themselves, and (once `_prime` has run) the
    i1 at the region's top telling whether this core receives its first blocks."""

    streams: Sequence[Stream]
    semaphores: Semaphores
    private_depth: int
    receives_first: SSAValue | None = None


def _iteration_test(writer: _RegionWriter, block: Block, ivs: Sequence[SSAValue], first: bool) -> SSAValue | None:
    """i1: the loops at `ivs` are at their first iteration (`first`), or past it; None
    without loops (then always the first)."""
    test = None
    for iv in ivs:
        step = writer.steps.get(iv, iv)
        here = writer.emit(arith.CmpiOp(step, writer.constant(0), "eq" if first else "ne"), block).result
        if test is not None:
            here = writer.emit((arith.AndIOp if first else arith.OrIOp)(test, here), block).result
        test = here
    return test


def _guard(writer: _RegionWriter, block: Block, condition: SSAValue | None, ops: Sequence[Operation]) -> None:
    """`ops` under `scf.if condition` (directly when None)."""
    then = block if condition is None else Block()
    for op in ops:
        writer.emit(op, then)
    if condition is not None:
        then.add_op(scf.YieldOp())
        writer.emit(scf.IfOp(condition, [], Region(then), Region(Block([scf.YieldOp()]))), block)


def _first_receiver(writer: _RegionWriter, block: Block, primed: _Primed, sender: Sequence[SSAValue]) -> SSAValue:
    """i1: this core receives the primed handshake's first blocks: it is not their
    sender, and its loops down to the handshake reach their first iteration."""
    emit = writer.emit
    first = primed.streams[0]
    receives = None
    for grid_dim in first.shared_grid_dims:
        other = emit(arith.CmpiOp(writer.core[grid_dim], sender[grid_dim], "ne"), block).result
        receives = other if receives is None else emit(arith.OrIOp(receives, other), block).result
    assert receives is not None
    at = Emitter(lambda op: emit(op, block).results[0], writer.constant)
    for dim, bound in enumerate(writer.space.bounds[: first.depth]):
        if bound is None:
            continue
        dims = [at.block_index(writer, d, writer.constant(0)) for d in range(dim)]
        upper = affine_value(bound, dims, at.emit, at.constant)
        reaches = emit(arith.CmpiOp(upper, writer.constant(0), "sgt"), block).result
        receives = emit(arith.AndIOp(receives, reaches), block).result
    return receives


def _primed_sender(writer: _RegionWriter, block: Block, primed: _Primed) -> list[SSAValue]:
    """The core sending the primed handshake's first blocks (its first round's)."""
    first = primed.streams[0]
    return _sender(writer, block, first.shared_grid_dims, False, first.rounds is not None)


def _prime(writer: _RegionWriter, primed: _Primed) -> None:
    """At the reader's start, a receiver of the primed handshake's first blocks reserves
    them and sends its `ready` (its CBs are empty), which the handshake's first
    iteration then skips: the sender need not wait for the receivers' own first reads."""
    sender = _primed_sender(writer, writer.block, primed)
    receives = primed.receives_first = _first_receiver(writer, writer.block, primed, sender)
    ops: list[Operation] = []
    for stream in primed.streams:
        cb = block_cb(writer, stream)
        ops.append(d2m.ReserveOp(cb, cb.type.block))
    ready = writer.block.args[primed.semaphores.ready]
    ops.append(d2m.SemaphoreIncOp(operands=[ready, writer.constant(1), sender]))
    _guard(writer, writer.block, receives, ops)


def _await_start(writer: _RegionWriter, block: Block, ivs: Sequence[SSAValue]) -> None:
    """Before the cores' own first reads: a receiver of the primed handshake's first
    blocks waits for its sender's `start` (the first member's reads issued)."""
    primed = writer.primed
    if primed is None or len(ivs) != primed.private_depth:
        return
    first = _iteration_test(writer, block, ivs, first=True)
    receives = primed.receives_first
    assert receives is not None, "the reader's top primes the handshake first"
    if first is not None:
        receives = writer.emit(arith.AndIOp(first, receives), block).result
    start = writer.block.args[primed.semaphores.start]  # type: ignore[index]
    constant = writer.constant
    _guard(writer, block, receives, [d2m.SemaphoreWaitOp(operands=[start, constant(1), [constant(0)]])])


def _multicast_in_rounds(
    writer: _RegionWriter, block: Block, stream: Stream, group: Group, ivs: Sequence[SSAValue]
) -> None:
    """A group multicast only in `stream.rounds` (core-local blocks of its round dim)
    and only to the cores whose bounded loops reach this iteration: the first ones
    along the grid dim (the first core counts them and sends) or, in `stream.backward`
    rounds, the last ones (the last core does); in other rounds every core reads its
    own blocks. Forwards, the cores taking a block only shrink within a round, so no
    receiver signals `ready` for a block before the one it waits for is sent;
    backwards they grow, so a core joining the round waits for the sender's `go`,
    which the sender gives once it has taken the previous block's `ready`s."""
    emit, constant = writer.emit, writer.constant
    assert stream.round_dim is not None and stream.rounds is not None
    (grid_dim,) = group[0]
    here = ivs[stream.round_dim]

    def among(rounds: Sequence[int]) -> SSAValue:
        inside = None
        for n in rounds:
            equal = emit(arith.CmpiOp(here, constant(n), "eq"), block).result
            inside = equal if inside is None else emit(arith.OrIOp(inside, equal), block).result
        return inside

    own = Block()
    reads = [emit(d2m.DMAReadOp(source, indices, l1), own).tx for _, l1, source, indices in group[2]]
    for tx in reads:
        emit(d2m.DMAWaitOp(tx), own)
    _push(writer, own, group[2])
    otherwise = own
    for backward in (True, False):
        rounds = [n for n in stream.rounds if (n in stream.backward) == backward]
        if not rounds:
            continue
        shared = Block()
        _multicast(
            writer,
            shared,
            [group],
            lambda branch, b=backward: _receivers(writer, branch, stream, grid_dim, ivs, b),
            backward,
            ivs,
        )
        shared.add_op(scf.YieldOp())
        otherwise.add_op(scf.YieldOp())
        choice = Block()
        emit(scf.IfOp(among(rounds), [], Region(shared), Region(otherwise)), choice)
        otherwise = choice
    for op in list(otherwise.ops):
        op.detach()
        block.add_op(op)


def _bound_at(
    writer: _RegionWriter, branch: Block, grid_dim: int, ivs: Sequence[SSAValue], other: int, dim: int
) -> SSAValue:
    """Loop dim `dim`'s bound on the core `other` along `grid_dim` (this core's other
    coordinates) at the core-local indices `ivs`."""
    at = Emitter(lambda op: writer.emit(op, branch).results[0], writer.constant)
    core = list(writer.core)
    core[grid_dim] = writer.constant(other)
    place = _CoreIndices(writer.space, core, {})
    dims = [at.block_index(place, d, iv) for d, iv in enumerate(ivs)]
    return affine_value(writer.space.bounds[dim], dims, at.emit, at.constant)


def _receivers(
    writer: _RegionWriter, branch: Block, stream: Stream, grid_dim: int, ivs: Sequence[SSAValue],
    backward: bool = False,
) -> SSAValue:
    """How many cores besides the sender (the first along `grid_dim`; the last,
    `backward`) reach this iteration: those whose every bounded loop above the stream
    (its bound at their block of the round dim) exceeds its index here."""
    emit, constant = writer.emit, writer.constant
    at = Emitter(lambda op: emit(op, branch).results[0], constant)
    cores = writer.space.grid[grid_dim]
    count = constant(0)
    for other in range(cores - 1) if backward else range(1, cores):
        reaches = None
        for d, bound in enumerate(writer.space.bounds[: stream.depth]):
            if bound is None or d >= len(ivs):
                continue
            upper = _bound_at(writer, branch, grid_dim, ivs, other, d)
            inside = emit(arith.CmpiOp(ivs[d], upper, "slt"), branch).result
            reaches = inside if reaches is None else emit(arith.AndIOp(reaches, inside), branch).result
        if reaches is None:
            count = at.emit(arith.AddiOp(count, constant(1)))
            continue
        as_int = emit(arith.ExtUIOp(reaches, IntegerType(32)), branch).result
        count = at.emit(arith.AddiOp(count, emit(arith.IndexCastOp(as_int, IndexType()), branch).result))
    return count


def _joiners(writer: _RegionWriter, branch: Block, go: SSAValue, grid_dim: int, ivs: Sequence[SSAValue], dim: int) -> None:
    """The sender of a backward round gives `go` to the cores whose backward loop
    `dim` starts at this block (its bound on them is the block + 1)."""
    emit, constant = writer.emit, writer.constant
    nxt = emit(arith.AddiOp(ivs[dim], constant(1)), branch).result
    for other in range(writer.space.grid[grid_dim] - 1):
        starts = emit(arith.CmpiOp(nxt, _bound_at(writer, branch, grid_dim, ivs, other, dim), "eq"), branch)
        core = list(writer.core)
        core[grid_dim] = constant(other)
        signal = Block([d2m.SemaphoreSetOp(operands=[go, constant(1), core, []]), scf.YieldOp()])
        emit(scf.IfOp(starts.result, [], Region(signal), Region(Block([scf.YieldOp()]))), branch)


def _multicast(
    writer: _RegionWriter,
    block: Block,
    groups: Sequence[Group],
    receivers_of: Callable[[Block], SSAValue] | None = None,
    backward: bool = False,
    ivs: Sequence[SSAValue] = (),
) -> None:
    """For each group, one core along its shared grid dims (`_sender`) reads the
    members' blocks and multicasts them to the others (tt-metal's ready / valid handshake, once
    per group). A core's role in every group is decided first (nested `scf.if`s, one
    branch per combination), so that it issues all its DRAM reads and `ready`s before
    its first handshake; a core runs the handshakes it sends, then those it receives,
    each kind in group order (a send waits only for `ready`s). With
    `receivers_of` (one group, along one grid dim), the sender multicasts to the first
    that many cores after itself, and not at all to none; `backward`, the sender is the
    last core, multicasting to that many cores before itself, and a receiver at the
    first step of its backward loop waits for the sender's `go` (`_joiners`) before
    its `ready`."""
    emit, constant = writer.emit, writer.constant
    counted = receivers_of is not None
    sender_of = {shared: _sender(writer, block, shared, backward, counted) for shared, _, _ in groups}
    pieces_of = [_pieces(members) for _, _, members in groups]
    conditions = []
    for shared, _, _ in groups:
        is_sender = None
        for grid_dim in shared:
            here = emit(arith.CmpiOp(writer.core[grid_dim], sender_of[shared][grid_dim], "eq"), block).result
            is_sender = here if is_sender is None else emit(arith.AndIOp(is_sender, here), block).result
        conditions.append(is_sender)

    def handshakes(branch: Block, sends: Sequence[bool]) -> None:
        """A core's part in every group: the reads of the first member's pieces of
        each group it sends issued and its `ready`s sent first, then the handshakes,
        those it sends first, each kind in group order; a sender waits for its
        receivers' `ready`s, then for each piece of the group's blocks (`_pieces`)
        waits for its read (its own only: a transaction id each), multicasts it
        (linked: a block's `valid` behind its last piece) and issues the next piece's
        read if it is not out yet (a later member's), so that it overlaps the
        multicast; a receiver pushes each block on its `valid`."""
        reads: dict[tuple[SSAValue, Piece], SSAValue] = {}

        def read(members: Sequence[Member], piece: Piece, at: Block) -> None:
            position, rows = piece
            _, l1, source, indices = members[position]
            reads[l1, piece] = emit(d2m.DMAReadOp(source, indices, l1, rows), at).tx

        for (_, _, members), sending, pieces in zip(groups, sends, pieces_of):
            if sending:  # the first member's pieces at once (each wait is for its own read)
                for piece in pieces:
                    if piece[0] == 0:
                        read(members, piece, branch)

        def arg(position: int) -> SSAValue:
            return writer.block.args[position]

        for (shared, semaphores, _), sending in zip(groups, sends):
            if sending:
                continue
            if backward:
                assert semaphores.go is not None
                step = writer.steps[ivs[-1]]
                first = emit(arith.CmpiOp(step, constant(0), "eq"), branch).result
                go = d2m.SemaphoreWaitOp(operands=[arg(semaphores.go), constant(1), [constant(0)]])
                emit(scf.IfOp(first, [], Region(Block([go, scf.YieldOp()])), Region(Block([scf.YieldOp()]))), branch)
            ready = arg(semaphores.ready)
            inc = d2m.SemaphoreIncOp(operands=[ready, constant(1), sender_of[shared]])
            if semaphores.start is None or backward:
                emit(inc, branch)
            elif ivs:  # the first iteration's `ready` went at the start (`_prime`)
                _guard(writer, branch, _iteration_test(writer, branch, ivs, first=False), [inc])
        # the groups it sends first (stable: each kind in group order)
        for (shared, semaphores, members), sending, pieces in sorted(
            zip(groups, sends, pieces_of), key=lambda item: not item[1]
        ):
            # backward rounds have their own `valid`s: a sender's set leaves its own word at 1
            valid_of = semaphores.back_valid if backward else semaphores.valid
            valids = [arg(valid_of[cb.index]) for cb, *_ in members]
            if not sending:
                for member, valid in zip(members, valids):
                    emit(d2m.SemaphoreWaitOp(operands=[valid, constant(1), [constant(0)]]), branch)
                    _push(writer, branch, [member])
                continue
            # the multicast's rectangle: its first core and its shape
            send = branch
            if receivers_of is None:  # the whole line
                origin = [constant(0) if g in shared else writer.core[g] for g in range(GRID_RANK)]
                shape = [constant(writer.space.grid[g] if g in shared else 1) for g in range(GRID_RANK)]
                receivers = constant(prod(writer.space.grid[g] for g in shared) - 1)
            else:  # the counted cores after the sender (before it, backward)
                origin = list(sender_of[shared])
                receivers = receivers_of(branch)
                (grid_dim,) = shared
                cores = emit(arith.AddiOp(receivers, constant(1)), branch).result
                shape = [cores if g == grid_dim else constant(1) for g in range(GRID_RANK)]
                if backward:  # the range ends at the sender
                    _joiners(writer, branch, arg(semaphores.go), grid_dim, ivs, len(ivs) - 1)
                    origin[grid_dim] = emit(arith.SubiOp(origin[grid_dim], receivers), branch).result
                send = Block()
                any_ = emit(arith.CmpiOp(receivers, constant(0), "ugt"), branch).result
            # the previous block's multicasts (`_defers_multicast_waits`), while this
            # block's reads are out
            defer = send is branch and _defers_multicast_waits(members)
            if defer:
                emit(d2m.DMAWriteBarrierOp(), send)
                writer.multicasts_waited_after_loops = True
            # the primed handshake's first iteration: `start` once the reads are issued,
            # so they reach DRAM before the receivers' own
            if semaphores.start is not None and not backward:
                signal = d2m.SemaphoreSetOp(operands=[arg(semaphores.start), constant(1), origin, shape])
                _guard(writer, send, _iteration_test(writer, send, ivs, first=True), [signal])
            emit(d2m.SemaphoreWaitOp(operands=[arg(semaphores.ready), receivers, [constant(0)]]), send)
            multicasts = []
            for position, piece in enumerate(pieces):
                member, rows = piece
                l1 = members[member][1]
                emit(d2m.DMAWaitOp(reads[l1, piece]), send)
                # linked: the next piece and the block's `valid` follow it on the path
                # it keeps, so `valid` lands after every piece of the block, and the
                # receivers take a block while the next is read
                multicasts.append(emit(d2m.DMAMulticastOp(l1, l1, origin, shape, True, rows), send).tx)
                ends_block = rows is None or rows[1] == _tile_rows(l1)
                if ends_block:
                    emit(d2m.SemaphoreSetOp(operands=[valids[member], constant(1), origin, shape]), send)
                following = pieces[position + 1] if position + 1 < len(pieces) else None
                if following is not None and (members[following[0]][1], following) not in reads:
                    read(members, following, send)  # overlaps this multicast
                if ends_block:  # the block goes to compute before its multicast is through
                    _push(writer, send, [members[member]])
            for tx in multicasts if not defer else ():  # before the CB slots are written again
                emit(d2m.DMAWaitOp(tx), send)
            if send is not branch:  # no receivers: the other pieces read at once, then waited for
                send.add_op(scf.YieldOp())
                alone = Block()
                for piece in pieces:
                    if piece[0] != 0:
                        read(members, piece, alone)
                for piece in pieces:
                    emit(d2m.DMAWaitOp(reads[members[piece[0]][1], piece]), alone)
                _push(writer, alone, members)
                alone.add_op(scf.YieldOp())
                emit(scf.IfOp(any_, [], Region(send), Region(alone)), branch)

    def decide(branch: Block, sends: list[bool]) -> None:
        if len(sends) == len(groups):
            handshakes(branch, sends)
            return
        send, receive = Block(), Block()
        decide(send, [*sends, True])
        decide(receive, [*sends, False])
        send.add_op(scf.YieldOp())
        receive.add_op(scf.YieldOp())
        emit(scf.IfOp(conditions[len(sends)], [], Region(send), Region(receive)), branch)

    decide(block, [])


def _sender(
    writer: _RegionWriter, block: Block, shared: tuple[int, ...], backward: bool, counted: bool
) -> list[SSAValue]:
    """The core that reads and multicasts a group shared along the grid dims `shared`
    (module docstring, "Senders"): along one grid dim, the one at (this core's
    coordinate on the other grid dim + an offset) mod the line's length, the offset
    half a grid row for a row's sender and 0 for a column's; the first core (the last,
    `backward`) of a `counted` multicast (rounds) and of a group shared along both
    grid dims."""
    emit, constant = writer.emit, writer.constant
    core = list(writer.core)
    if counted or len(shared) != 1:
        for grid_dim in shared:
            core[grid_dim] = constant(writer.space.grid[grid_dim] - 1 if backward else 0)
        return core
    (grid_dim,) = shared
    offset = writer.space.grid[1] // 2 if grid_dim == 1 else 0
    moved = writer.core[1 - grid_dim]
    if offset:
        moved = emit(arith.AddiOp(moved, constant(offset)), block).result
    core[grid_dim] = emit(arith.RemUIOp(moved, constant(writer.space.grid[grid_dim])), block).result
    return core


def _defers_multicast_waits(members: Sequence[Member]) -> bool:
    """Whether a sender waits for a handshake's multicasts one block later (module
    docstring, "Deferred waits"): when every member's CB holds two blocks or more, the
    next block's reads go to another slot than the one the multicasts read from."""
    return all(cb.type.buffers.data >= 2 for cb, *_ in members)


PIECE_BYTES = 32 * 1024
"""The least bytes of a piece a sender multicasts (module docstring, "Pieces")."""


def _tile_rows(block: SSAValue) -> int:
    block_type = block.type
    assert isinstance(block_type, MemRefType)
    return block_type.get_shape()[-2]


def _pieces(members: Sequence[Member]) -> list[Piece]:
    """The pieces a sender reads and multicasts a handshake's blocks in, in order: a
    block of B >= PIECE_BYTES bytes whose dims before its tile rows are 1 splits into
    min(rows, max(2, B // PIECE_BYTES)) runs of its tile rows, as even as the rows
    allow; any other block is one piece."""
    pieces: list[Piece] = []
    for position, (_, l1, _, _) in enumerate(members):
        block_type = l1.type
        assert isinstance(block_type, MemRefType)
        shape = block_type.get_shape()
        tile = block_type.get_element_type()
        assert isinstance(tile, TileType)
        whole = prod(shape) * tile.size_bytes() // PIECE_BYTES
        count = min(shape[-2] if len(shape) >= 2 else 1, max(2, whole) if whole else 1)
        if count < 2 or any(extent != 1 for extent in shape[:-2]):
            pieces.append((position, None))
            continue
        ends = [shape[-2] * i // count for i in range(count + 1)]
        pieces.extend((position, (start, stop)) for start, stop in zip(ends, ends[1:]))
    return pieces


def _write(
    writer: _RegionWriter,
    block: Block,
    streams: Sequence[Stream],
    ivs: Sequence[SSAValue],
    semaphores: dict[Sharing, Semaphores],
) -> None:
    """Writes one block of each of `streams` to DRAM."""
    emit = writer.emit
    for stream in streams:
        cb = block_cb(writer, stream)
        l1_block = emit(d2m.WaitOp(cb, cb.type.block), block).result
        indices = writer.tile_indices(block, stream, ivs)
        tx = emit(d2m.DMAWriteOp(l1_block, writer.generic.operands[stream.index], indices), block).tx
        emit(d2m.DMAWaitOp(tx), block)
        emit(d2m.PopOp(cb), block)


def block_cb(writer: _RegionWriter, stream: Stream) -> SSAValue:
    cb = writer.block.args[stream.index]
    assert isinstance(cb.type, d2m.CBType)
    return cb


def _thread_blocks(generic: d2m.GenericOp, needed: int) -> list[Block]:
    """`needed` data-movement regions with empty bodies: the kernel's `pass` threads
    first, then new ones (with no limit: d2m-hw-thread-selection merges them onto the
    core's data-movement RISC-Vs)."""
    free = [
        region.block
        for kind, region in zip(generic.thread_kinds, generic.thread_regions)
        if kind == d2m.ThreadType.DATAMOVEMENT and region.block.first_op is None
    ]
    missing = needed - len(free)
    first = generic.thread_regions[0].block
    for _ in range(max(missing, 0)):
        block = Block(arg_types=first.arg_types)
        for arg, named in zip(block.args, first.args):
            arg.name_hint = named.name_hint
        generic.add_region(Region(block))
        free.append(block)
    if missing > 0:
        kinds = [*generic.thread_kinds, *[d2m.ThreadType.DATAMOVEMENT] * missing]
        generic.threads = ArrayAttr(d2m.ThreadAttr(k) for k in kinds)
    return free[:needed]


def _add_semaphores(generic: d2m.GenericOp, streams: Sequence[Stream]) -> dict[Sharing, Semaphores]:
    """New semaphores per set of grid dims inputs are multicast along (every core runs
    the handshakes on one set in the same order): `ready`, and a `valid` per input, so
    a receiver takes each block as soon as it has landed; where they are multicast in
    backward rounds, a `back_valid` per input (a sender's `semaphore_set` leaves its
    own word at 1, and the forward rounds' sender receives in backward ones) and
    `go`; appended to the block arguments of every region."""
    groups: dict[Sharing, list[int]] = {}
    backward: set[Sharing] = set()
    for stream in streams:
        if stream.shared_grid_dims:
            groups.setdefault(stream.sharing, []).append(stream.index)
            if stream.backward:
                backward.add(stream.sharing)

    def add(name: str) -> int:
        for region in generic.thread_regions:
            arg = region.block.insert_arg(d2m.SemaphoreType(), len(region.block.args))
            arg.name_hint = name
        return len(generic.thread_regions[0].block.args) - 1

    names = {i: generic.operands[i].name_hint or f"operand{i}" for i in range(len(generic.operands))}
    semaphores = {}
    for shared, indices in groups.items():
        group = "_".join(names[i] for i in indices)
        ready = add(f"{group}_ready")
        valid = {i: add(f"{names[i]}_valid") for i in indices}
        back = shared in backward
        back_valid = {i: add(f"{names[i]}_back_valid") for i in indices} if back else {}
        go = add(f"{group}_go") if back else None
        start = add(f"{group}_start") if shared == _primed_sharing(streams) else None
        semaphores[shared] = Semaphores(ready, valid, back_valid, go, start)
    return semaphores


def _primed_sharing(inputs: Sequence[Stream]) -> Sharing | None:
    """The handshake whose first blocks go to DRAM before the receivers' own first reads
    (module docstring, "First blocks first"): a kernel's only handshake, when some input
    is read by every core itself, its inputs move at one loop level and it multicasts at
    the first iteration (its first round, forwards). Two handshakes could wait for each
    other's start; inputs at two levels make two handshakes on one `ready`."""
    sharings = {s.sharing for s in inputs if s.shared_grid_dims}
    if len(sharings) != 1 or all(s.shared_grid_dims for s in inputs):
        return None
    (sharing,) = sharings
    members = [s for s in inputs if s.sharing == sharing]
    if len({s.depth for s in members}) != 1:  # handshakes at two loop levels
        return None
    first = members[0]
    if first.rounds is not None and (0 not in first.rounds or 0 in first.backward):
        return None
    return sharing


def generate_datamovement(generic: d2m.GenericOp) -> None:
    implicit = _implicit_operands(generic)
    if not implicit:
        _lower_block_indices(generic, None)
        return
    maps, types = _maps(generic, implicit)
    space = _iteration_space(generic, implicit, maps, types)
    _lower_block_indices(generic, space)
    streams = _streams(generic, implicit, maps, space)
    inputs = [s for s in streams if s.is_input]
    outputs = [s for s in streams if not s.is_input]
    blocks = _thread_blocks(generic, bool(inputs) + bool(outputs))
    _wait_where_used(generic)
    semaphores = _add_semaphores(generic, inputs)
    for group, emit_stream, block in (
        (inputs, _read, blocks[0] if inputs else None),
        (outputs, _write, blocks[-1] if outputs else None),
    ):
        if not group:
            continue
        writer = _RegionWriter(block, generic, space)
        primed = _primed_sharing(group) if emit_stream is _read else None
        if primed is not None:
            writer.primed = _Primed(
                [s for s in group if s.sharing == primed],
                semaphores[primed],
                min(s.depth for s in group if not s.shared_grid_dims),
            )
            _prime(writer, writer.primed)
        writer.nest(group, emit_stream, semaphores, writes_after_inner_loops=emit_stream is _write)
        if writer.multicasts_waited_after_loops:
            writer.emit(d2m.DMAWriteBarrierOp())


@dataclass(frozen=True)
class D2MGenerateDatamovement(ModulePass):
    """Generates the reader and writer of every generic's implicit operands."""

    name = "d2m-generate-datamovement"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for generic in [o for o in op.walk() if isinstance(o, d2m.GenericOp)]:
            generate_datamovement(generic)
