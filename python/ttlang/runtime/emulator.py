"""The emulator target: run a Program on the C++ Tensix emulator in a subprocess.

The runtime executable and the kernels are built by `toolchain` (cached). A run
exchanges files with the emulator in a temporary directory (program.json, the program
as `Program.to_json` writes it; launch.json, what this run binds to it: the device
description file, the kernels' shared objects, which buffers hold data; tile pages of
every DRAM buffer; report.json; see lib/program_loader.h). A kernel that crashes or
hangs ends the subprocess, never this process: it comes back as EmulatorError.

Tensors are passed by buffer, as on a device: every given tensor's contents are
uploaded, outputs included (tiles a kernel never writes come back unchanged), and one
tensor given for several buffers (`k(acc, addend, acc)`) is one DRAM buffer: the
first of them; the others' runtime arguments name it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
from pathlib import Path

import torch

from ttlang.device import load_device
from ttlang.runtime import tiles, toolchain
from ttlang.runtime import trace as trace_module
from ttlang.runtime.errors import EmulatorError, name_cbs
from ttlang.runtime.report import TimingReport
from ttlang.runtime.trace import TraceOptions
from ttlang.runtime.program import PROGRAM_FORMAT, Program

DEFAULT_TIMEOUT_S = 600.0


def run(
    program: Program,
    tensors: dict[str, torch.Tensor],
    timeout_s: float | None = None,
    trace: TraceOptions | None = None,
):
    """Runs `program`; returns (outputs by buffer name, TimingReport). Writes a timeline
    trace when `trace` or $TTLANG_TRACE asks for one (ttlang.runtime.trace)."""
    trace = trace or trace_module.requested_by_environment()
    _check_program(program, tensors)
    executable = toolchain.runtime_executable()
    libraries = toolchain.kernel_libraries(program.kernels, program.compute_config.math_approx_mode)
    timeout = timeout_s or float(os.environ.get("TTLANG_EMULATOR_TIMEOUT", DEFAULT_TIMEOUT_S))
    same_buffer = _shared_buffers(program, tensors)
    with tempfile.TemporaryDirectory(prefix="ttemu-") as work_dir:
        work = Path(work_dir)
        (work / "program.json").write_text(program.to_json())
        (work / "launch.json").write_text(_launch_json(program, libraries, tensors, same_buffer))
        for index, buffer in enumerate(program.buffers):
            if buffer.name in tensors and same_buffer[buffer.name] == buffer.name:
                (work / f"buffer{index}.in").write_bytes(tiles.to_page_bytes(tensors[buffer.name], buffer))
        try:
            _run_subprocess(executable, work, timeout, trace.emulator_environment() if trace else {})
        except EmulatorError as error:
            names = {cb.index: cb.name for cb in program.cbs if cb.name}
            raise EmulatorError(name_cbs(str(error), names), error.filename, error.line) from None
        index_of = {buffer.name: index for index, buffer in enumerate(program.buffers)}
        outputs = {
            buffer.name: tiles.from_page_bytes(
                (work / f"buffer{index_of[same_buffer[buffer.name]]}.out").read_bytes(), buffer
            )
            for buffer in program.buffers
            if buffer.is_output
        }
        report = TimingReport.from_json((work / "report.json").read_text())
    return outputs, report


def _shared_buffers(program: Program, tensors: dict[str, torch.Tensor]) -> dict[str, str]:
    """Buffer name -> the buffer holding its data: the first buffer given the same
    tensor (same storage, offset, shape and strides), else itself."""
    first: dict[tuple, str] = {}
    same_buffer = {}
    for buffer in program.buffers:
        tensor = tensors.get(buffer.name)
        if tensor is None:
            same_buffer[buffer.name] = buffer.name
            continue
        key = (tensor.untyped_storage().data_ptr(), tensor.storage_offset(), tuple(tensor.shape),
               tuple(tensor.stride()), tensor.dtype)
        same_buffer[buffer.name] = first.setdefault(key, buffer.name)
    return same_buffer


def _check_program(program: Program, tensors: dict[str, torch.Tensor]) -> None:
    kinds = [k.kind for k in program.kernels]
    for kind in set(kinds):
        if kinds.count(kind) > 1:
            raise EmulatorError(f"the program has {kinds.count(kind)} {kind} kernels; a core runs one of each kind")
    for buffer in program.buffers:
        if buffer.data_format not in tiles.TORCH_DTYPES:
            raise EmulatorError(f"buffer '{buffer.name}': data format {buffer.data_format!r} is not bf16 or fp32")
        if buffer.is_input and buffer.name not in tensors:
            raise EmulatorError(f"no tensor given for input buffer '{buffer.name}'")
        if buffer.name in tensors and tuple(tensors[buffer.name].shape) != tuple(buffer.shape):
            raise EmulatorError(
                f"tensor for buffer '{buffer.name}' has shape {tuple(tensors[buffer.name].shape)}, "
                f"the program expects {tuple(buffer.shape)}"
            )
        *_, rows, cols = buffer.shape
        if rows % 32 or cols % 32:
            raise EmulatorError(f"buffer '{buffer.name}' shape {tuple(buffer.shape)}: last two dims must be multiples of 32")


def _launch_json(
    program: Program,
    libraries: list[Path],
    tensors: dict[str, torch.Tensor],
    same_buffer: dict[str, str],
) -> str:
    """What this run binds to the program (lib/program_loader.h): a buffer given the
    same tensor as an earlier one is stored in it (`stored_in`); a stored buffer has
    initial data when a tensor was given for it (by-buffer semantics) and is read back
    when it holds an output."""
    read_back = {same_buffer[b.name] for b in program.buffers if b.is_output}
    doc = {
        "format": PROGRAM_FORMAT,
        "device_description": str(load_device(program.device).path),
        "kernel_libraries": {k.name: str(lib) for k, lib in zip(program.kernels, libraries)},
        "stored_in": {name: held_by for name, held_by in same_buffer.items() if held_by != name},
        "initial_data": [b.name for b in program.buffers if b.name in tensors and same_buffer[b.name] == b.name],
        "read_back": [b.name for b in program.buffers if b.name in read_back],
    }
    return json.dumps(doc, indent=1)


def _run_subprocess(executable: Path, work: Path, timeout: float, environment: dict[str, str]) -> None:
    with subprocess.Popen(
        [str(executable), str(work)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **environment},
    ) as process:
        try:
            _, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            # SIGTERM: the emulator names every thread still running and its last API call.
            process.terminate()
            try:
                _, stderr = process.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                _, stderr = process.communicate()
            where = [l.removeprefix("ttemu error: ") for l in stderr.splitlines() if l.strip()]
            raise EmulatorError(
                "\n".join(
                    [
                        f"the emulated program did not finish within {timeout:g} s: a kernel probably "
                        "loops forever (set TTLANG_EMULATOR_TIMEOUT to allow longer runs)",
                        *where,
                    ]
                )
            ) from None
    if process.returncode == 0:
        return
    # A check the compiler located names its kernel line first: "ttemu location: file:line".
    filename = line = None
    messages = []
    for text in stderr.splitlines():
        if text.startswith(_LOCATION):
            filename, _, number = text.removeprefix(_LOCATION).rpartition(":")
            line = int(number)
        elif text.strip():
            messages.append(text.removeprefix("ttemu error: "))
    detail = "\n".join(messages) or "(no message)"
    if process.returncode < 0:
        name = signal.Signals(-process.returncode).name
        raise EmulatorError(f"the emulator died with {name}:\n{detail}", filename, line)
    raise EmulatorError(detail, filename, line)


_LOCATION = "ttemu location: "
