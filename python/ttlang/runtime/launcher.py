"""run_program: launch a compiled Program on a target with torch tensors in and out."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import torch

from ttlang.runtime import emulator, hardware, ttnn_tensors
from ttlang.runtime.errors import RuntimeLaunchError
from ttlang.runtime.report import TimingReport
from ttlang.runtime.trace import TraceOptions
from ttlang.runtime.program import Program

TARGETS = {"emulator": emulator.run, "hardware": hardware.run}


@dataclass
class RunResult:
    """Output tensors by DRAM buffer name, and the timing report of the run."""

    outputs: dict[str, torch.Tensor]
    report: TimingReport


def selected_target(target: str | None = None) -> str:
    """`target`, else $TTLANG_TARGET, else the emulator."""
    name = target or os.environ.get("TTLANG_TARGET") or "emulator"
    if name not in TARGETS:
        raise RuntimeLaunchError(f"unknown target '{name}'; choose one of: {', '.join(TARGETS)}")
    return name


def run_program(
    program: Program,
    tensors: Mapping[str, torch.Tensor] | Sequence[torch.Tensor],
    target: str | None = None,
    *,
    timeout_s: float | None = None,
    trace: TraceOptions | None = None,
) -> RunResult:
    """Runs `program` with `tensors` (by buffer name, or in `program.buffers` order).

    Output buffers are returned as torch tensors (in the buffer's format) and also
    copied in place into the given tensors, when given: torch tensors, or ttnn device
    tensors (ttlang.runtime.ttnn_tensors). `trace` records the run's timeline
    (emulator only; ttlang.runtime.trace).
    """
    if not isinstance(tensors, Mapping):
        tensors = _by_buffer_name(program, list(tensors))
    given, tensors = tensors, _on_host(tensors)
    name = selected_target(target)
    if trace is not None and name != "emulator":
        raise RuntimeLaunchError(f"timeline traces come from the emulator; the target is '{name}'")
    run = TARGETS[name]
    outputs, report = (
        run(program, dict(tensors), timeout_s, trace) if trace else run(program, dict(tensors), timeout_s)
    )
    for name, value in outputs.items():
        if name not in given:
            continue
        if ttnn_tensors.is_ttnn_tensor(given[name]):
            ttnn_tensors.write_back(given[name], value)
        else:
            given[name].copy_(value)
    return RunResult(outputs=outputs, report=report)


def _on_host(tensors: Mapping[str, object]) -> dict[str, torch.Tensor]:
    """`tensors` with every ttnn tensor read to the host; one ttnn tensor given for
    several buffers becomes one torch tensor, so they stay one buffer."""
    read: dict[int, torch.Tensor] = {}
    on_host = {}
    for name, tensor in tensors.items():
        if ttnn_tensors.is_ttnn_tensor(tensor):
            if id(tensor) not in read:
                read[id(tensor)] = ttnn_tensors.to_host(tensor)
            tensor = read[id(tensor)]
        on_host[name] = tensor
    return on_host


def _by_buffer_name(program: Program, tensors: list[torch.Tensor]) -> dict[str, torch.Tensor]:
    if len(tensors) != len(program.buffers):
        raise RuntimeLaunchError(
            f"{len(tensors)} tensors given for {len(program.buffers)} buffers "
            f"({', '.join(b.name for b in program.buffers)})"
        )
    return {buffer.name: tensor for buffer, tensor in zip(program.buffers, tensors)}
