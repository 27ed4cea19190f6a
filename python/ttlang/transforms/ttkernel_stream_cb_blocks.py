"""ttkernel-stream-cb-blocks: a block that one thread packs a piece at a time and another
thread consumes moves a piece at a time: the compute kernel publishes each DST
section's pages as soon as they are packed, and the data-movement kernel waits for
them and sends them on piece by piece, instead of both handling the whole block.

Input: the program as ttkernel-share-cb-l1 leaves it. d2m-bufferize pushes a generic's
output block once, after the generic; d2m-lower-to-loops packs it a subblock (a DST
section) at a time, in a loop over the subblocks, and the generated writer waits for
the whole block before its first write. So the writer's DRAM writes of a kernel's last
block all start once its last section is packed, and queue at the banks there with
every other core's (FlashAttention's last O chunk: docs/flash_attention.md).

Compute kernels: a `cb_push_back(cb, n)` of a CB a data-movement kernel waits on,
right after a loop `L` (constant bounds and step, T trips, `r` counting them from 0,
as a subblock loop steps by its subblock's rows; a loop of one trip stands for its
only loop inside) whose iteration `r` packs exactly the pages
`[r * n/T, (r + 1) * n/T)` of the block (every `pack_tile` on `cb` inside `L` outside
any `scf.if`, its page a linear function of `r` and of the constant-bounded loops
inside `L`, each page once; nothing else in `L` works on `cb`'s back), becomes a push
of `n/T` pages at the end of each iteration (after its last pack and that section's
`tile_regs_release`). A push moves the write pointer, so each pack's page is
rebased: `page - r * n/T`. The CB holds whole blocks, so a piece never wraps.

Data-movement kernels: a `cb_wait_front(cb, n)` of a CB a compute kernel pushes,
followed (past index arithmetic, `get_read_ptr` and other CBs' operations) by such a
loop `L` whose iteration `r` reads the pages `[r * n/T, (r + 1) * n/T)` (every use of
`cb`'s read pointer inside `L` is the L1 address of a `noc_async_write_tile`, a page
`read_ptr + page * page_bytes`), waits for the first piece only, and each iteration
waits for the pages it reads: `cb_wait_front(cb, (r + 1) * n/T)` (tt-metal's wait
counts the pages ready at the front, so a larger count later waits for more). The
pages are popped together after the writes, as before.

Before (an output block of 4x4 tiles packed a tile row per DST section, as the
implicit matmul's 4x4-tile blocks are; its generated writer):

    ttkernel.cb_reserve_back(%out, %c16)
    scf.for %r = %c0 to %c4 step %c1 : i32 {
      ttkernel.tile_regs_acquire()
      ...
      scf.for %j = %c0 to %c4 step %c1 : i32 {
        %p = <%r * 4 + %j>
        ttkernel.pack_tile(%j, %out, %p)
      }
      ttkernel.tile_regs_release()
    }
    ttkernel.cb_push_back(%out, %c16)
    ...
    ttkernel.cb_wait_front(%out, %c16)                          // the writer
    %ptr = ttkernel.get_read_ptr(%out)
    scf.for %r = %c0 to %c4 step %c1 : i32 {
      scf.for %j = %c0 to %c4 step %c1 : i32 {
        ttkernel.noc_async_write_tile(%id, %pages, <%ptr + (%r * 4 + %j) * 2048>)
      }
    }

After:

    ttkernel.cb_reserve_back(%out, %c16)
    scf.for %r = %c0 to %c4 step %c1 : i32 {
      ...
      scf.for %j = %c0 to %c4 step %c1 : i32 {
        %p = <%r * 4 + %j>
        %q = arith.subi %p, <%r * 4>
        ttkernel.pack_tile(%j, %out, %q)
      }
      ttkernel.tile_regs_release()
      ttkernel.cb_push_back(%out, %c4)
    }
    ...
    ttkernel.cb_wait_front(%out, %c4)                           // the writer
    %ptr = ttkernel.get_read_ptr(%out)
    scf.for %r = %c0 to %c4 step %c1 : i32 {
      ttkernel.cb_wait_front(%out, <(%r + 1) * 4>)
      scf.for %j = %c0 to %c4 step %c1 : i32 { ... }
    }

Anything else is left as it is. Fails (PassError), as ttkernel-sink-cb-waits does, on
a CB operand of a compute kernel that is not a compile-time argument.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from ttlang.conversion.d2m_to_ttkernel import PROGRAM_ATTR
from ttlang.conversion.program_builder import cb_config
from ttlang.dialects import ttkernel
from ttlang.transforms.analysis.linear_index import LinearForm, constant_range, linear_form, loop_ranges
from ttlang.transforms.ttkernel_hoist_cb_pushes import BACK_OPS
from ttlang.transforms.ttkernel_place_inits import cb_operands, compute_kernels
from ttlang.transforms.ttkernel_sink_cb_waits import cb_index, checkcb_operands

_DEPENDING = "which block it streams"


def _index_of(cb: SSAValue) -> int | None:
    """The compile-time argument index `cb` is, else None."""
    owner = cb.owner
    return owner.index.value.data if isinstance(owner, ttkernel.GetCompileTimeArgValOp) else None


def _names(op: Operation, index: int, kinds: tuple[type[Operation], ...] | None = None) -> bool:
    """Whether `op` or an operation in its regions (of `kinds`, if given) names CB `index`."""
    return any(
        (kinds is None or isinstance(inner, kinds)) and any(_index_of(cb) == index for cb in cb_operands(inner))
        for inner in op.walk()
    )


def _constant(value: SSAValue) -> int | None:
    form = linear_form(value)
    return None if form.terms else form.constant


@dataclass(frozen=True)
class _Pieces:
    """The loop whose iterations handle the pieces, its induction variable's values, and
    the induction variables of the loops of one trip it is in (below the first), at
    their value."""

    loop: scf.ForOp
    iteration: range
    fixed: dict[SSAValue, range]

    @property
    def induction(self) -> SSAValue:
        return self.loop.body.block.args[0]

    def offset(self, pages_per_step: int, extra: int, before: Operation) -> SSAValue:
        """`(iv - start) * pages_per_step + extra`, inserted before `before`: the pages
        the iterations before this one handle (and `extra` more)."""
        ops: list[Operation] = []
        steps = self.induction
        if self.iteration.start:
            ops.append(arith.SubiOp(steps, _i32(self.iteration.start, before)))
            steps = ops[-1].results[0]
        ops.append(arith.MuliOp(steps, _i32(pages_per_step, before)))
        if extra:
            ops.append(arith.AddiOp(ops[-1].results[0], _i32(extra, before)))
        Rewriter.insert_op(ops, InsertPoint.before(before))
        return ops[-1].results[0]


def _piece_loop(loop: Operation | None, touches: Callable[[Operation], bool]) -> _Pieces | None:
    """`loop`, or through loops of one trip the only op inside touching the CB
    (`touches`), when its bounds are constant (and it has trips)."""
    fixed: dict[SSAValue, range] = {}
    while isinstance(loop, scf.ForOp):
        iteration = constant_range(loop)
        if iteration is None or not len(iteration):
            return None
        if len(iteration) > 1:
            return _Pieces(loop, iteration, fixed)
        fixed[loop.body.block.args[0]] = iteration
        inner = [op for op in loop.body.block.ops if touches(op)]
        loop = inner[0] if len(inner) == 1 else None
    return None


def _covers(accesses: list[tuple[Operation, LinearForm]], pieces: _Pieces, piece: int) -> bool:
    """Whether, in the `k`th iteration of the loop, the pages the accesses index (linear
    forms) are exactly `k * piece + [0, piece)`, each once."""
    step = pieces.iteration.step
    if piece % step:
        return False
    pages: list[int] = []
    for op, form in accesses:
        inner = loop_ranges(op, pieces.loop)
        if inner is None or form.coefficient(pieces.induction) != piece // step:
            return False
        ranges = pieces.fixed | inner
        rest = form.without(pieces.induction)
        if any(value not in ranges for value in rest.terms):
            return False
        first = piece // step * pieces.iteration.start  # the first iteration's part
        pages.extend(first + page for page in rest.values(ranges))
    return sorted(pages) == list(range(piece))


def _i32(value: int, before: Operation) -> SSAValue:
    constant = arith.ConstantOp(IntegerAttr(value, 32))
    Rewriter.insert_op(constant, InsertPoint.before(before))
    return constant.result


def _back_op_before(op: Operation, index: int) -> Operation | None:
    """The nearest operation before `op` in its block working on CB `index`'s back."""
    previous = op.prev_op
    while previous is not None and not _names(previous, index, BACK_OPS):
        previous = previous.prev_op
    return previous


def _stream_push(push: ttkernel.CBPushBackOp, index: int) -> None:
    """Splits `push` into one push per iteration of the loop packing its pages."""
    count = _constant(push.num_tiles)
    found = _piece_loop(_back_op_before(push, index), lambda op: _names(op, index, BACK_OPS))
    if count is None or found is None or count % len(found.iteration):
        return
    loop, piece = found.loop, count // len(found.iteration)
    reserve = _back_op_before(loop, index)  # the block's reserve, nothing packed into it before `loop`
    if not isinstance(reserve, ttkernel.CBReserveBackOp) or _constant(reserve.num_tiles) != count:
        return
    packs = [op for op in loop.walk() if isinstance(op, ttkernel.PackTileOp) and _index_of(op.out_cb) == index]
    others = [op for op in loop.walk() if isinstance(op, BACK_OPS) and op not in packs and _names(op, index)]
    if others or not _covers([(p, linear_form(p.out_tile)) for p in packs], found, piece):
        return
    for pack in packs:
        rebased = arith.SubiOp(pack.out_tile, found.offset(piece // found.iteration.step, 0, pack))
        Rewriter.insert_op(rebased, InsertPoint.before(pack))
        pack.operands[2] = rebased.result
    last = next(op for op in reversed(list(loop.body.block.ops)) if _names(op, index, BACK_OPS))
    if isinstance(last.next_op, ttkernel.TileRegsReleaseOp):
        last = last.next_op
    after = last.next_op
    assert after is not None  # the body's yield
    Rewriter.insert_op(ttkernel.CBPushBackOp(push.cb, _i32(piece, after)), InsertPoint.before(after))
    push.detach()
    push.erase()


def _read_pointers(kernel: func.FuncOp, index: int) -> set[SSAValue]:
    return {
        op.result for op in kernel.walk() if isinstance(op, ttkernel.GetReadPtrOp) and _index_of(op.cb) == index
    }


def _stream_wait(wait: ttkernel.CBWaitFrontOp, index: int, pointers: set[SSAValue], page_bytes: int) -> None:
    """Splits `wait` into a wait per iteration of the loop reading its pages."""
    count = _constant(wait.num_tiles)

    def reads(op: Operation) -> bool:
        return _names(op, index) or any(
            any(p in linear_form(v).terms for p in pointers) for inner in op.walk() for v in inner.operands
        )

    following = wait.next_op
    while following is not None and (isinstance(following, ttkernel.GetReadPtrOp) or not reads(following)):
        following = following.next_op
    found = _piece_loop(following, reads)
    if count is None or found is None or count % len(found.iteration) or _names(found.loop, index):
        return
    loop, piece = found.loop, count // len(found.iteration)
    accesses: list[tuple[Operation, LinearForm]] = []
    for op in loop.walk():
        uses = [i for i, v in enumerate(op.operands) if any(p in linear_form(v).terms for p in pointers)]
        if not uses or isinstance(op, arith.AddiOp | arith.MuliOp | arith.SubiOp):
            continue
        if not isinstance(op, ttkernel.NocAsyncWriteTileOp) or uses != [2]:
            return
        address = linear_form(op.l1_addr)
        bases = [p for p in pointers if address.coefficient(p)]
        page = address.without(bases[0]).scaled_down(page_bytes) if len(bases) == 1 else None
        if page is None or address.coefficient(bases[0]) != 1:
            return
        accesses.append((op, page))
    if not accesses or not _covers(accesses, found, piece):
        return
    wait.operands[1] = _i32(piece, wait)
    top = loop.body.block.first_op
    assert top is not None
    pages = found.offset(piece // found.iteration.step, piece, top)
    Rewriter.insert_op(ttkernel.CBWaitFrontOp(wait.cb, pages), InsertPoint.before(top))


class TTKernelStreamCBBlocks(ModulePass):
    """Blocks packed a section at a time move between threads a section at a time."""

    name = "ttkernel-stream-cb-blocks"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        program = op.attributes.get(PROGRAM_ATTR)
        if not isinstance(program, DictionaryAttr):
            return
        page_bytes = [cb_config(i, t).page_size for i, t in enumerate(program.data["cbs"].data)]
        compute = compute_kernels(op)
        movement = [k for k in op.body.block.ops if isinstance(k, func.FuncOp) and k not in compute]
        waited = {_index_of(w.cb) for k in movement for w in k.walk() if isinstance(w, ttkernel.CBWaitFrontOp)}
        pushed: set[int] = set()
        for kernel in compute:
            checkcb_operands(kernel, _DEPENDING)
            for push in [p for p in kernel.walk() if isinstance(p, ttkernel.CBPushBackOp)]:
                index = cb_index(push.cb, push, _DEPENDING)
                pushed.add(index)
                if index in waited:
                    _stream_push(push, index)
        for kernel in movement:
            for wait in [w for w in kernel.walk() if isinstance(w, ttkernel.CBWaitFrontOp)]:
                index = _index_of(wait.cb)
                if index is not None and index in pushed:
                    _stream_wait(wait, index, _read_pointers(kernel, index), page_bytes[index])
