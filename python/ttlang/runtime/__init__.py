"""Run compiled programs: on the bundled Tensix emulator (default) or on hardware.

`run_program(program, tensors, target=None)` launches a `ttlang.runtime.program.Program`
with torch tensors and returns a `RunResult` (outputs by buffer name, timing report).
The target is `target`, else $TTLANG_TARGET, else "emulator".

The launcher (and torch with it) is imported on first use: the compiler imports
`ttlang.runtime.program` for the program descriptor and must not pay for torch.
"""

from ttlang.runtime.errors import (
    EmulatorError,
    HardwareUnavailableError,
    KernelCompileError,
    RuntimeLaunchError,
    ToolchainError,
)
from ttlang.runtime.report import CoreTiming, ThreadTiming, TimingReport

_LAUNCHER_NAMES = ("RunResult", "run_program", "selected_target")


def __getattr__(name: str):
    if name in _LAUNCHER_NAMES:
        from ttlang.runtime import launcher

        return getattr(launcher, name)
    raise AttributeError(f"module 'ttlang.runtime' has no attribute {name!r}")


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
