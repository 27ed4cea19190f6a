"""ttkernel-share-cb-l1: compute temporaries whose lifetimes do not overlap share L1,
when the program's CBs would not fit a core otherwise.

Input: the kernels as ttkernel-hoist-cb-pushes leaves them, and the module's
`ttlang.program` (its CBs by id). Output: the program's `cb_shares_l1_with`, by CB id
the id of the CB whose L1 it takes, or -1 (program assembly hands it to the runtimes as
`CBConfig.shares_l1_with`: tt-metal's buffer indices of one circular buffer, each with
its own read and write pointers). Nothing is recorded when the CBs fit as they are.

A CB is shareable when only the compute kernel names it (a data-movement kernel's
transfers run beside the compute thread, at no point its program order fixes) and its
pages live in groups: a block whose own `cb_reserve_back` / `cb_push_back` /
`cb_wait_front` / `cb_pop_front` on the CB (constant page counts) push before they wait
and pop, and pop all they push, with no such call nested deeper in the block's
operations. The CB is then empty before the group's first operation naming it and
after its last (each loop iteration, for a group in a loop body), so it holds pages only
in the group's span: from the first operation of the block naming it (its pages or its
counts; inits only configure the engines) to the last. A group nests no other group of
its CB; a block without count calls of the CB passes the question to the operations
naming it (each of their blocks in turn).

Two CBs may share L1 when no span of one overlaps a span of the other: spans in
different blocks are compared in their innermost common block, a span further in
standing for the operation there that holds it (the two branches of one `scf.if`
never overlap). The compute kernel is one thread in program order: the unpacker reads a
CB's pages before the math of that section, whose DST the packer waits for before it
writes the next CB's, so the order holds across the three TRISCs too. Each CB, largest
first, joins the first set of sharers it overlaps with none of; the set's first (the
largest) holds the L1.

Before (a causal FlashAttention step: `%s` of a full score block, `%sd` of a diagonal
block, in sibling loops of the Q chunk's body; both only in the compute kernel):

    scf.for %i ... {
      scf.for %j = ... { cb_reserve_back(%s, 64) ... pack_tile(.., %s, ..) ...
                         cb_push_back(%s, 64) ... cb_wait_front(%s, 64) ...
                         cb_pop_front(%s, 64) }
      scf.for %d = ... { cb_reserve_back(%sd, 16) ... cb_pop_front(%sd, 16) }
    }

After: the program's `cb_shares_l1_with` gives `%sd`'s id the id of `%s` (CBs 15-20 of
the causal [1, 8, 2048, 128] kernel with 512-key chunks in CBs 11 and 13: 1,722 KiB of
CBs -> 1,338 KiB, which fits the n150's 1,364).

Fails (PassError) on a CB operand that is not a compile-time argument, as the other
ttkernel passes do: which CB it names is unknown.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, ModuleOp
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass

from ttlang.conversion.d2m_to_ttkernel import PROGRAM_ATTR
from ttlang.conversion.program_builder import SHARES_L1_ATTR, cb_config
from ttlang.dialects import ttkernel
from ttlang.dialects.ttcore import constant_int, device_of
from ttlang.transforms.ttkernel_place_inits import cb_operands, compute_kernels
from ttlang.transforms.ttkernel_sink_cb_waits import CONFIGURATION_OPS, cb_index, checkcb_operands

_COUNT_OPS = (ttkernel.CBReserveBackOp, ttkernel.CBPushBackOp, ttkernel.CBWaitFrontOp, ttkernel.CBPopFrontOp)


@dataclass(frozen=True)
class Span:
    """Where a CB may hold pages: `block`'s operations `first` to `last` (positions)."""

    block: Block
    first: int
    last: int


class _Uses:
    """Which CBs each operation of a kernel names, itself and in its regions (configuration
    ops name none: they touch no page and no count), and which it calls count ops on."""

    def __init__(self, kernel: func.FuncOp):
        self.names: dict[Operation, set[int]] = {}
        self.below: dict[Operation, set[int]] = {}
        self.counts_below: dict[Operation, set[int]] = {}
        self.position: dict[Operation, int] = {}
        self._visit(kernel.body.block)

    def _visit(self, block: Block) -> None:
        for at, op in enumerate(block.ops):
            self.position[op] = at
            names = set() if isinstance(op, CONFIGURATION_OPS) else {cb_index(cb, op) for cb in cb_operands(op)}
            below, counts = set(names), set(names) if isinstance(op, _COUNT_OPS) else set()
            for region in op.regions:
                for inner in region.blocks:
                    self._visit(inner)
                    for nested in inner.ops:
                        below |= self.below[nested]
                        counts |= self.counts_below[nested]
            self.names[op], self.below[op], self.counts_below[op] = names, below, counts

    def spans(self, block: Block, index: int) -> list[Span] | None:
        """The spans of CB `index` in `block` (module docstring), None when its pages are
        not provably confined to groups."""
        holders = [op for op in block.ops if index in self.below[op]]
        counts = [op for op in holders if isinstance(op, _COUNT_OPS)]
        if not counts:
            spans: list[Span] = []
            for op in holders:
                if index in self.names[op]:
                    return None  # its pages touched outside any group
                for region in op.regions:
                    for inner in region.blocks:
                        found = self.spans(inner, index)
                        if found is None:
                            return None
                        spans += found
            return spans
        if any(index in self.counts_below[op] for op in holders if op not in counts):
            return None  # count calls nested deeper too
        pages = 0
        for op in counts:
            count = constant_int(op.operands[1])
            if count is None:
                return None
            if isinstance(op, ttkernel.CBPushBackOp):
                pages += count
            elif isinstance(op, ttkernel.CBWaitFrontOp) and count > pages:
                return None  # waits for pages pushed before the group
            elif isinstance(op, ttkernel.CBPopFrontOp):
                pages -= count
                if pages < 0:
                    return None
        if pages:
            return None  # leaves pages behind
        return [Span(block, self.position[holders[0]], self.position[holders[-1]])]

    def overlap(self, a: Span, b: Span) -> bool:
        """Spans `a` and `b` may hold pages at once (module docstring)."""
        outer_a = {id(block): op for block, op in _ancestry(a.block)}
        for block, op_b in _ancestry(b.block):
            if id(block) in outer_a:
                op_a = outer_a[id(block)]
                break
        else:
            raise AssertionError("two blocks of one kernel share its body")
        lo_a, hi_a = (a.first, a.last) if op_a is None else (self.position[op_a],) * 2
        lo_b, hi_b = (b.first, b.last) if op_b is None else (self.position[op_b],) * 2
        if op_a is not None and op_a is op_b:  # two regions of one operation
            return not isinstance(op_a, scf.IfOp)
        return max(lo_a, lo_b) <= min(hi_a, hi_b)


def _ancestry(block: Block) -> list[tuple[Block, Operation | None]]:
    """`block` and the blocks around it, innermost first, each with the operation in it
    that holds the one before (None for `block` itself)."""
    chain: list[tuple[Block, Operation | None]] = [(block, None)]
    while (op := chain[-1][0].parent_op()) is not None and (outer := op.parent_block()) is not None:
        chain.append((outer, op))
    return chain


def _named_outside(module: ModuleOp, compute: list[func.FuncOp]) -> set[int]:
    """CB ids a kernel other than the compute kernels names."""
    named = set()
    for kernel in module.body.block.ops:
        if isinstance(kernel, func.FuncOp) and kernel not in compute:
            named |= {op.index.value.data for op in kernel.walk() if isinstance(op, ttkernel.GetCompileTimeArgValOp)}
    return named


def shared_l1(module: ModuleOp, sizes: list[int]) -> list[int]:
    """By CB id, the id of the CB whose L1 it may take (module docstring), or -1."""
    compute = compute_kernels(module)
    shares = [-1] * len(sizes)
    if len(compute) != 1:
        return shares
    (kernel,) = compute
    outside = _named_outside(module, compute)
    uses = _Uses(kernel)
    spans: dict[int, list[Span]] = {}
    for index in range(len(sizes)):
        if index in outside:
            continue
        found = uses.spans(kernel.body.block, index)
        if found:
            spans[index] = found
    sets: list[list[int]] = []
    for index in sorted(spans, key=lambda i: (-sizes[i], i)):
        for members in sets:
            if not any(uses.overlap(a, b) for other in members for a in spans[index] for b in spans[other]):
                members.append(index)
                shares[index] = members[0]
                break
        else:
            sets.append([index])
    return shares


@dataclass(frozen=True)
class TTKernelShareCBL1(ModulePass):
    """Records which compute temporaries share L1 when the CBs would not fit otherwise."""

    name = "ttkernel-share-cb-l1"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        program = op.attributes.get(PROGRAM_ATTR)
        if not isinstance(program, DictionaryAttr) or "cbs" not in program.data:
            return
        for kernel in compute_kernels(op):
            checkcb_operands(kernel, "whether it may share L1")
        configs = [cb_config(index, cb_type) for index, cb_type in enumerate(program.data["cbs"].data)]
        sizes = [cb.num_pages * cb.page_size for cb in configs]
        if sum(sizes) <= device_of(op).cb_l1_bytes.data:
            return
        shares = shared_l1(op, sizes)
        if all(holder < 0 for holder in shares):
            return
        op.attributes[PROGRAM_ATTR] = DictionaryAttr(
            {**program.data, SHARES_L1_ATTR: ArrayAttr([IntegerAttr(holder, 64) for holder in shares])}
        )
