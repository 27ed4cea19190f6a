"""Run compiled programs: on the bundled Tensix emulator (default) or on hardware.

`run_program(program, tensors, target=None)` launches a `ttlang.target.program.Program`
with torch tensors and returns a `RunResult` (outputs by buffer name, timing report).
The target is `target`, else $TTLANG_TARGET, else "emulator".
"""

from ttlang.runtime.errors import (
    EmulatorError,
    HardwareUnavailableError,
    KernelCompileError,
    RuntimeLaunchError,
    ToolchainError,
)
from ttlang.runtime.launcher import RunResult, run_program, selected_target
from ttlang.runtime.report import CoreTiming, ThreadTiming, TimingReport

__all__ = [
    "CoreTiming",
    "EmulatorError",
    "HardwareUnavailableError",
    "KernelCompileError",
    "RunResult",
    "RuntimeLaunchError",
    "ThreadTiming",
    "TimingReport",
    "ToolchainError",
    "run_program",
    "selected_target",
]
