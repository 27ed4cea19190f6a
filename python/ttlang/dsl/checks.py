"""Checks of what a kernel is given, made before anything is compiled or run, so that a
wrong argument is a KernelError at the author's line (never an AttributeError from
the frontend, a TypeError from the kernel function or a torch error after the run):

- `check_decorator(function, options)`: when `@pykernel_gen(...)` decorates, at the
  decorator's line: device_grid, cb_buffers, num_outs, math_fidelity, the compute
  flags (the grid is checked against device_grid when compiling, also at the
  decorator's line).
- `check_call(kernel, tensors, params, running)`: at the call site of `kernel(...)` /
  `kernel.compile(...)`: tensor arguments, keyword parameters, tensors in host memory
  and writable outputs when it runs.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Sequence
from pathlib import Path
from types import FunctionType
from typing import Any, get_args

from ttlang.device import load_device
from ttlang.dsl.diagnostics import KernelError, SourceLocation, definition_location
from ttlang.dsl.options import KernelOptions
from ttlang.runtime import ttnn_tensors
from ttlang.runtime.program import MathFidelity

_DSL_DIR = Path(__file__).resolve().parent


def _positive_pair(value: object) -> bool:
    return (
        isinstance(value, tuple)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in value)
    )


def check_decorator(function: FunctionType, options: KernelOptions) -> None:
    """Options no kernel can have, reported at the decorator's line."""
    where = definition_location(function)

    def reject(message: str, hint: str) -> None:
        raise KernelError(message, where, hint)

    if options.device_grid is not None:
        device = options.device_grid
        full = load_device(options.device).grid.compute_grid
        if not _positive_pair(device) or device[0] > full[0] or device[1] > full[1]:
            reject(
                f"device_grid={device!r} is not a core grid the {options.device} has "
                f"(its compute grid is {full[0]}x{full[1]})",
                f"pass two positive ints of at most {full[0]}x{full[1]}, or leave device_grid "
                "out to use the whole compute grid",
            )
    counts = options.cb_buffers if isinstance(options.cb_buffers, tuple) else (options.cb_buffers,)
    if not all(isinstance(c, int) and not isinstance(c, bool) and c >= 1 for c in counts):
        reject(
            f"cb_buffers={options.cb_buffers!r}: a CB holds at least one block",
            "pass cb_buffers=2 (double buffering) or 1, or one such count per tensor",
        )
    if not isinstance(options.num_outs, int) or isinstance(options.num_outs, bool) or options.num_outs < 1:
        reject(f"num_outs={options.num_outs!r}: a kernel has at least one output", "pass num_outs=1 or more")
    for flag in ("fp32_dest_acc_en", "math_approx_mode", "dst_full_sync_en"):
        value = getattr(options.compute_config, flag)
        if not isinstance(value, bool):
            reject(f"{flag}={value!r} is not a bool", f"pass {flag}=True or {flag}=False")
    fidelities = get_args(MathFidelity)
    if options.compute_config.math_fidelity not in fidelities:
        reject(
            f"math_fidelity={options.compute_config.math_fidelity!r} is not a math fidelity",
            f"pass one of {', '.join(repr(f) for f in fidelities)}",
        )


def call_site() -> SourceLocation:
    """The innermost frame outside ttlang.dsl: the line calling the kernel."""
    frame = sys._getframe(1)
    while frame is not None and Path(frame.f_code.co_filename).resolve().parent == _DSL_DIR:
        frame = frame.f_back
    if frame is None:
        return SourceLocation("<unknown>", 0)
    return SourceLocation(frame.f_code.co_filename, frame.f_lineno)


def check_call(
    function: FunctionType, tensors: Sequence[Any], params: dict[str, Any], num_outs: int, running: bool
) -> None:
    """The arguments of one call of the kernel `function`; `running` when the outputs
    (the last `num_outs` tensors) will be written (a call, not `compile`)."""
    where = call_site()
    name = function.__name__
    parameters = list(inspect.signature(function).parameters.values())
    positional = [
        p for p in parameters if p.default is inspect.Parameter.empty and p.kind != p.KEYWORD_ONLY
    ]
    keywords = [p for p in parameters if p not in positional]
    if len(tensors) != len(positional):
        raise KernelError(
            f"{name} takes {len(positional)} tensors ({', '.join(p.name for p in positional)}), "
            f"but was called with {len(tensors)}",
            where,
            "pass one tensor per parameter without a default; compile-time parameters have "
            "defaults and are passed as keywords",
        )
    for parameter, value in zip(positional, tensors):
        if not (hasattr(value, "shape") and hasattr(value, "dtype")):
            raise KernelError(
                f"{name}: tensor parameter `{parameter.name}` got {type(value).__name__} {value!r:.40}",
                where,
                "pass a torch tensor (bfloat16 or float32, tile-aligned), a ttnn device tensor or "
                "a TensorSpec; numbers are keyword parameters, with a default in the kernel's signature",
            )
    known = {p.name for p in keywords}
    unknown = sorted(set(params) - known)
    if unknown:
        raise KernelError(
            f"{name}: unknown keyword parameter(s) {', '.join(unknown)}",
            where,
            f"the kernel's keyword parameters are: {', '.join(sorted(known)) or 'none'}",
        )
    for key, value in params.items():
        if not isinstance(value, bool | int | float):
            raise KernelError(
                f"{name}: kernel parameter `{key}` is {type(value).__name__}; keyword parameters "
                "are compile-time int, float or bool values",
                where,
                "pass a number, or compute what the kernel needs from it in the kernel function",
            )
    missing = [p.name for p in keywords if p.default is inspect.Parameter.empty and p.name not in params]
    if missing:
        raise KernelError(
            f"{name}: missing keyword parameter(s) {', '.join(missing)}",
            where,
            f"pass them as keywords: {name}(..., {missing[0]}=...)",
        )
    if not running:
        return
    for parameter, value in zip(positional, tensors):
        device = getattr(value, "device", None)
        if not ttnn_tensors.is_ttnn_tensor(value) and getattr(device, "type", "cpu") != "cpu":
            raise KernelError(
                f"{name}: tensor `{parameter.name}` is on device {device}; a run reads its "
                "tensors from host memory",
                where,
                f"pass `{parameter.name}.cpu()` (a tensor on the meta device has no data to run "
                "with; `kernel.compile(...)` takes one)",
            )
    outputs = list(zip(positional, tensors))[len(positional) - num_outs :]
    for parameter, value in outputs:
        if ttnn_tensors.is_ttnn_tensor(value) and not ttnn_tensors.is_on_device(value):
            raise KernelError(
                f"{name}: output `{parameter.name}` is a ttnn host tensor; the kernel writes its "
                "outputs into device tensors",
                where,
                f"create `{parameter.name}` on the device: ttnn.from_torch(..., device=device)",
            )
        if getattr(value, "requires_grad", False):
            raise KernelError(
                f"{name}: output `{parameter.name}` requires grad; the kernel writes outputs in place",
                where,
                f"pass `{parameter.name}.detach()` or a tensor created without requires_grad",
            )
        if hasattr(value, "stride") and any(s == 0 and d > 1 for s, d in zip(value.stride(), value.shape)):
            raise KernelError(
                f"{name}: output `{parameter.name}` is expanded (a stride of 0): its elements share memory",
                where,
                "pass a fresh tensor, e.g. torch.empty(shape, dtype=...), or .clone() the expanded one",
            )
