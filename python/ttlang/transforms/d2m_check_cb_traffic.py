"""d2m-check-cb-traffic: every CB a kernel moves data through explicitly has a producer
and a consumer among the program's threads.

A block pushed into a CB that no thread waits for never leaves the core (an output
comes back unwritten, silently); a wait on a CB that no thread pushes blocks forever.
Both are kernel errors, reported at the first push (or wait) with the CB named by its
kernel tensor and by the thread's parameter:

    d2m.generic {...} ins(%x : ...) outs(%out : ...) {
    ^bb0(%x_cb: !cb, %out_cb: !cb):             // compute
      ...
      d2m.push %out_cb                          // error: `out_cb` (the CB of `out`) is
    }, {                                        // pushed by thread 0 (compute), but no
    ^bb0(%x_cb_1: !cb, %out_cb_1: !cb):         // thread waits for it
      %blk = d2m.reserve %x_cb_1 ...
      d2m.dma_read %x[...], %blk ...            // reads x into x_cb
      d2m.push %x_cb_1
    }, {
    ^bb0(%x_cb_2: !cb, %out_cb_2: !cb):
      %blk = d2m.wait %x_cb_2 ...               // drains the wrong CB
      d2m.dma_write %blk, %out[...] ...
      d2m.pop %x_cb_2
    }

The CBs of tensors some thread moves with a DMA (`d2m.dma_read`/`dma_write` on the
tensor) are checked, and every kernel-local CB (a region's CB argument past the
operands': `CircularBuffer(shape)` in the kernel function, backed by no tensor, so no
pass writes its traffic). A tensor no thread moves is an implicit operand, whose reader
or writer d2m-generate-datamovement writes. The pass changes nothing; it runs right
after that one, when every operand of a kernel is DMA-moved.

    ^bb0(%x_cb: !cb, %out_cb: !cb, %mask_cb: !cb):   // datamovement
      %blk = d2m.reserve %mask_cb ...
      d2m.fill_causal_mask %blk ...
      d2m.push %mask_cb                     // error: pushes `mask_cb` (a kernel-local CB,
                                            // cb 2) ..., but no thread waits for it
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from ttlang.dialects import d2m
from ttlang.transforms.diagnostics import PassError


def _name(value: SSAValue, fallback: str) -> str:
    return value.name_hint or fallback


def _moved_tensors(generic: d2m.GenericOp) -> set[SSAValue]:
    """The generic's operands that some thread reads or writes with a DMA."""
    moved: set[SSAValue] = set()
    for op in generic.walk():
        if isinstance(op, d2m.DMAReadOp):
            moved.add(op.src)
        elif isinstance(op, d2m.DMAWriteOp):
            moved.add(op.dst)
    return moved


@dataclass
class _Traffic:
    """The first push and the first wait of one CB, per thread."""

    pushes: dict[int, Operation]
    waits: dict[int, Operation]


def _unbalanced(op: Operation, thread: int, kind: str, index: int, tensor: str | None) -> PassError:
    """The error for `op`, the first push (wait) of CB `index` with no wait (push) in any
    thread; `tensor` names the operand the CB belongs to (None: a kernel-local CB)."""
    cb = _name(op.cb, f"cb {index}")
    what = f"the CB of `{tensor}`" if tensor else "a kernel-local CB"
    if isinstance(op, d2m.PushOp):
        fix = (
            f"in a data-movement thread: `with {cb}.wait() as blk: dma(blk, {tensor}_acc[...]).wait()`"
            if tensor
            else f"in the thread that uses its blocks: `with {cb}.wait() as blk: ...`"
        )
        return PassError(
            op,
            f"pushes `{cb}` ({what}, cb {index}) in thread {thread} ({kind}), but no thread "
            f"waits for it: its blocks never leave the core"
            + (f" and `{tensor}` is never written" if tensor else "")
            + f". Drain it {fix}.",
        )
    fix = (
        f"in a data-movement thread: `with {cb}.reserve() as blk: dma({tensor}_acc[...], blk).wait()`"
        if tensor
        else f"in the thread that makes its blocks: `with {cb}.reserve() as blk: ...`"
    )
    return PassError(
        op,
        f"waits for `{cb}` ({what}, cb {index}) in thread {thread} ({kind}), but no thread "
        f"pushes it: the wait never returns. Fill it {fix}.",
    )


def check_generic(generic: d2m.GenericOp) -> None:
    operands = [*generic.inputs, *generic.outputs]
    regions = list(generic.thread_regions)
    checked = len(operands) + (len(generic.local_cb_types(regions[0])) if regions else 0)
    traffic = [_Traffic({}, {}) for _ in range(checked)]
    for thread, region in enumerate(regions):
        position = {arg: index for index, arg in enumerate(region.block.args[:checked])}
        for op in region.walk():
            if isinstance(op, d2m.PushOp | d2m.WaitOp) and op.cb in position:
                record = traffic[position[op.cb]]
                seen = record.pushes if isinstance(op, d2m.PushOp) else record.waits
                seen.setdefault(thread, op)
    moved = _moved_tensors(generic)
    kinds = [str(attr.data) for attr in generic.threads]
    for index, record in enumerate(traffic):
        tensor = None
        if index < len(operands):  # a kernel-local CB is always checked
            if operands[index] not in moved:
                continue
            tensor = _name(operands[index], f"operand {index}")
        if bool(record.pushes) != bool(record.waits):
            thread, op = next(iter((record.pushes or record.waits).items()))
            raise _unbalanced(op, thread, kinds[thread], index, tensor)


class D2MCheckCBTraffic(ModulePass):
    name = "d2m-check-cb-traffic"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for generic in op.walk():
            if isinstance(generic, d2m.GenericOp):
                check_generic(generic)
