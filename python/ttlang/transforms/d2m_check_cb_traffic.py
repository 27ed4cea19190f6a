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

Only the CBs of tensors some thread moves with a DMA (`d2m.dma_read`/`dma_write` on
the tensor) are checked: a tensor no thread moves is an implicit operand, whose reader
or writer d2m-generate-datamovement writes. The pass changes nothing; it runs right
after that one, when every operand of a kernel is DMA-moved.
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


def check_generic(generic: d2m.GenericOp) -> None:
    operands = [*generic.inputs, *generic.outputs]
    traffic = [_Traffic({}, {}) for _ in operands]
    for thread, region in enumerate(generic.thread_regions):
        cb_args = region.block.args[: len(operands)]
        position = {arg: index for index, arg in enumerate(cb_args)}
        for op in region.walk():
            if isinstance(op, d2m.PushOp | d2m.WaitOp) and op.cb in position:
                record = traffic[position[op.cb]]
                seen = record.pushes if isinstance(op, d2m.PushOp) else record.waits
                seen.setdefault(thread, op)
    moved = _moved_tensors(generic)
    kinds = [str(attr.data) for attr in generic.threads]
    for index, (tensor, record) in enumerate(zip(operands, traffic)):
        if tensor not in moved:
            continue
        tensor_name = _name(tensor, f"operand {index}")
        if record.pushes and not record.waits:
            thread, op = next(iter(record.pushes.items()))
            cb = _name(op.cb, f"cb {index}")
            raise PassError(
                op,
                f"pushes `{cb}` (the CB of `{tensor_name}`, cb {index}) in thread {thread} "
                f"({kinds[thread]}), but no thread waits for it: its blocks never leave the "
                f"core and `{tensor_name}` is never written. Drain it in a data-movement "
                f"thread: `with {cb}.wait() as blk: dma(blk, {tensor_name}_acc[...]).wait()`.",
            )
        if record.waits and not record.pushes:
            thread, op = next(iter(record.waits.items()))
            cb = _name(op.cb, f"cb {index}")
            raise PassError(
                op,
                f"waits for `{cb}` (the CB of `{tensor_name}`, cb {index}) in thread {thread} "
                f"({kinds[thread]}), but no thread pushes it: the wait never returns. Fill "
                f"it in a data-movement thread: `with {cb}.reserve() as blk: "
                f"dma({tensor_name}_acc[...], blk).wait()`.",
            )


class D2MCheckCBTraffic(ModulePass):
    name = "d2m-check-cb-traffic"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for generic in op.walk():
            if isinstance(generic, d2m.GenericOp):
                check_generic(generic)
